import { describe, expect, it } from 'vitest';
import { documentSparseVector, querySparseVector, termId } from '../../../src/adapters/qdrant/sparse-vector.js';

describe('termId', () => {
  it('is 32-bit FNV-1a of the UTF-8 bytes: stable, and different for different terms', () => {
    // Published FNV-1a test vectors.
    expect(termId('')).toBe(0x811c9dc5);
    expect(termId('a')).toBe(0xe40c292c);
    expect(termId('foobar')).toBe(0xbf9cf968);
    expect(termId('forest')).not.toBe(termId('forests'));
  });
});

describe('BM25 sparse vectors', () => {
  it('weighs a document term by its saturated, length-normalised frequency, indices sorted and unique', () => {
    const v = documentSparseVector('forest forest carbon', { k1: 1.2, b: 0.75, avgDocLength: 3 });
    expect(v.indices).toEqual([...v.indices].sort((a, b) => a - b));
    expect(new Set(v.indices).size).toBe(v.indices.length);
    const weight = (term: string): number => v.values[v.indices.indexOf(termId(term))] ?? NaN;
    // length 3 = the average: norm = k1, so the weight is n (k1 + 1) / (n + k1).
    expect(weight('forest')).toBeCloseTo((2 * 2.2) / (2 + 1.2), 10);
    expect(weight('carbon')).toBeCloseTo(2.2 / 2.2, 10);
  });

  it('weighs a longer document less for the same count', () => {
    const short = documentSparseVector('forest carbon');
    const long = documentSparseVector(`forest ${'carbon '.repeat(600)}`);
    const id = termId('forest');
    expect(long.values[long.indices.indexOf(id)] ?? 0).toBeLessThan(short.values[short.indices.indexOf(id)] ?? 0);
  });

  it('gives each distinct query term once with weight 1, with the terms a document of the same words has', () => {
    const q = querySparseVector('forest emissions forest');
    expect(q.values).toEqual([1, 1]);
    expect(q.indices).toEqual(documentSparseVector('emission forests').indices);
  });
});
