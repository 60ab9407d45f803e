import { describe, expect, it } from 'vitest';
import { cosineScores, exactTopKAvailable, topIndices } from '../../src/adapters/exact-top-k.js';
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

  it.runIf(exactTopKAvailable())('equals brute force on random vectors, row by row', () => {
    const rand = rng(11);
    const rows = Array.from({ length: 300 }, () => randomUnitVector(rand, DIMS));
    // Not unit length: cosine, not the inner product.
    rows.forEach((r, i) => r.forEach((x, d) => (r[d] = x * (1 + (i % 7)))));
    for (let q = 0; q < 5; q++) {
      const query = randomUnitVector(rand, DIMS);
      const expected = bruteForce(rows, query).sort((a, b) => a.row - b.row);
      const got = cosineScores(matrixOf(rows), DIMS, query);
      expect(got.length).toBe(rows.length);
      expected.forEach((e) => expect(got[e.row]).toBeCloseTo(e.score, 5));
    }
  });

  it.runIf(exactTopKAvailable())('scores zero vectors and a zero query 0', () => {
    const rand = rng(12);
    const q = randomUnitVector(rand, DIMS);
    const rows = [randomUnitVector(rand, DIMS), new Float32Array(DIMS), q];
    const got = cosineScores(matrixOf(rows), DIMS, q);
    expect(got[1]).toBe(0);
    expect(got[2]).toBeCloseTo(1, 6);
    expect([...cosineScores(matrixOf(rows), DIMS, new Float32Array(DIMS))]).toEqual([0, 0, 0]);
    expect(cosineScores(new Float32Array(0), DIMS, q).length).toBe(0);
  });
});

describe('topIndices', () => {
  it('returns the k best, best first, and every index tied with the k-th', () => {
    expect(topIndices([0.1, 0.9, 0.5, 0.7], 2)).toEqual([1, 3]);
    expect(topIndices([0.1, 0.9, 0.5, 0.9, 0.9, 0.2], 2)).toEqual([1, 3, 4]);
    expect(topIndices([0.3, 0.3, 0.1], 1)).toEqual([0, 1]);
    expect(topIndices([0.3, -0.2], 5)).toEqual([0, 1]);
    expect(topIndices([], 3)).toEqual([]);
    expect(topIndices([1], 0)).toEqual([]);
  });
});
