import { describe, expect, it } from 'vitest';
import { assertTexts, batches, cosine, EmbedderInputError, embedInBatches, toUnitVector } from '../../../src/adapters/embedders/common.js';

describe('assertTexts', () => {
  it('names the first text that is not a non-blank string', () => {
    expect(() => assertTexts(['a', 'b'])).not.toThrow();
    const err = (() => {
      try {
        assertTexts(['a', ' \n', null]);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(EmbedderInputError);
    expect((err as EmbedderInputError).index).toBe(1);
    expect((err as Error).message).toBe('embed(): text 1 is empty or whitespace only');
    expect(() => assertTexts(['a', null])).toThrow('embed(): text 1 is not a string (got null)');
    expect(() => assertTexts('a')).toThrow('embed(): text -1 expected an array of strings, got string');
  });
});

describe('batching and vectors', () => {
  it('splits into slices of at most the size, in order', () => {
    expect(batches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batches([], 3)).toEqual([]);
  });

  it('embeds batch by batch, concatenating in order, and refuses a batch answered with the wrong count', async () => {
    const sizes: number[] = [];
    const out = await embedInBatches(['a', 'bb', 'ccc'], 2, async (b) => {
      sizes.push(b.length);
      return b.map((t) => new Float32Array([t.length]));
    });
    expect(sizes).toEqual([2, 1]);
    expect(out.map((v) => v[0])).toEqual([1, 2, 3]);
    await expect(embedInBatches(['a', 'b'], 2, async () => [new Float32Array(1)])).rejects.toThrow(
      'embedder returned 1 vectors for 2 texts',
    );
  });

  it('scales to unit length, refusing a zero or non-finite vector, and measures cosine', () => {
    expect(Array.from(toUnitVector([3, 4], 'v'))).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(() => toUnitVector([0, 0], 'model x')).toThrow('model x: zero vector');
    expect(() => toUnitVector([1, Number.NaN], 'model x')).toThrow('model x: component 1 is not a finite number');
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([1, 1], [2, 2])).toBeCloseTo(1, 10);
    expect(cosine([0, 0], [1, 1])).toBe(0);
  });
});
