import { describe, expect, it } from 'vitest';
import { extractMarkers, validateMarkers } from '../../src/domain/markers.js';

describe('extractMarkers', () => {
  it('reads single, grouped, adjacent and range markers in order of first appearance', () => {
    expect(extractMarkers('A [2]. B [1, 3]. C [3][4]. D [5-7]. E [2].')).toEqual([2, 1, 3, 4, 5, 6, 7]);
  });
  it('ignores bracketed text that is not a marker', () => {
    expect(extractMarkers('see [a], [ ], [1.5], [x1] and array[0 ]')).toEqual([0]);
    expect(extractMarkers('no markers here (1)')).toEqual([]);
  });
});

describe('validateMarkers', () => {
  it('removes a marker that refers to no citation and reports it', () => {
    const v = validateMarkers('The period is 20 years [1]. It starts in 2022 [9].', [1, 2]);
    expect(v.text).toBe('The period is 20 years [1]. It starts in 2022.');
    expect(v.removed).toEqual([9]);
  });
  it('keeps the valid members of a group and splits it into single markers', () => {
    const v = validateMarkers('Both agree [1, 7, 2].', [1, 2, 3]);
    expect(v.text).toBe('Both agree [1][2].');
    expect(v.removed).toEqual([7]);
  });
  it('expands ranges before validating them', () => {
    expect(validateMarkers('Several say so [2-4].', [2, 3]).text).toBe('Several say so [2][3].');
  });
  it('leaves an answer with only valid markers unchanged', () => {
    const text = 'Density is 1,111 trees per hectare [1] with 3 x 3 m spacing [2].';
    expect(validateMarkers(text, [1, 2])).toEqual({ text, removed: [] });
  });
  it('removes every marker when there are no citations, including zero', () => {
    expect(validateMarkers('Nothing [0] supports [1] this.', []).text).toBe('Nothing supports this.');
  });
});
