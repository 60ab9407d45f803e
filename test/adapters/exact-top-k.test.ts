import { describe, expect, it } from 'vitest';
import { cosineTopK, exactTopKAvailable } from '../../src/adapters/exact-top-k.js';
import { randomUnitVector } from '../contract/vector-index.contract.js';
import { rng } from '../support/rng.js';

const DIMS = 16;

function matrixOf(rows: Float32Array[]): Float32Array {
  const m = new Float32Array(rows.length * DIMS);
  rows.forEach((r, i) => m.set(r, i * DIMS));
  return m;
}

function bruteForce(rows: Float32Array[], q: Float32Array): { row: number; score: number }[] {
  const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return rows
    .map((r, row) => {
      const n = norm(r) * norm(q);
      return { row, score: n === 0 ? 0 : r.reduce((s, x, i) => s + x * (q[i] ?? 0), 0) / n };
    })
    .sort((a, b) => b.score - a.score || a.row - b.row);
}

describe('exact cosine top-k (usearch)', () => {
  it('loads the prebuilt binary usearch ships for this platform', () => {
    // usearch publishes binaries for these; elsewhere the SQLite index scores every search in SQL instead.
    const shipped = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'].includes(`${process.platform}-${process.arch}`);
    expect(exactTopKAvailable()).toBe(shipped);
  });

  it.runIf(exactTopKAvailable())('equals brute force on random vectors, best first', () => {
    const rand = rng(11);
    const rows = Array.from({ length: 300 }, () => randomUnitVector(rand, DIMS));
    // Not unit length: cosine, not the inner product.
    rows.forEach((r, i) => r.forEach((x, d) => (r[d] = x * (1 + (i % 7)))));
    for (let q = 0; q < 5; q++) {
      const query = randomUnitVector(rand, DIMS);
      const expected = bruteForce(rows, query);
      for (const k of [1, 10, 299, 300, 400]) {
        const got = cosineTopK(matrixOf(rows), DIMS, query, k);
        expect(got.map((r) => r.row)).toEqual(expected.slice(0, k).map((r) => r.row));
        got.forEach((r, i) => expect(r.score).toBeCloseTo(expected[i]?.score ?? NaN, 5));
      }
    }
  });

  it.runIf(exactTopKAvailable())('returns every row tied with the k-th, and scores zero vectors 0', () => {
    const rand = rng(12);
    const same = randomUnitVector(rand, DIMS);
    const rows = [randomUnitVector(rand, DIMS), same, new Float32Array(DIMS), same, same, randomUnitVector(rand, DIMS)];
    const top2 = cosineTopK(matrixOf(rows), DIMS, same, 2);
    expect(top2.map((r) => r.row).sort()).toEqual([1, 3, 4]);
    for (const r of top2) expect(r.score).toBeCloseTo(1, 6);
    const all = cosineTopK(matrixOf(rows), DIMS, same, 6);
    expect(all.find((r) => r.row === 2)?.score).toBe(0);
    expect(cosineTopK(matrixOf(rows), DIMS, new Float32Array(DIMS), 3).every((r) => r.score === 0)).toBe(true);
    expect(cosineTopK(new Float32Array(0), DIMS, same, 3)).toEqual([]);
    expect(cosineTopK(matrixOf(rows), DIMS, same, 0)).toEqual([]);
  });
});
