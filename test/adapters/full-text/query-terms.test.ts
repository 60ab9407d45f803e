import { describe, expect, it } from 'vitest';
import { isStopword, lightStem, MAX_QUERY_TERMS, queryWords, sparseTerms } from '../../../src/adapters/full-text/query-terms.js';

describe('queryWords', () => {
  it('splits on spaces, trims punctuation, keeps codes whole with their parts, drops stopwords and repeats', () => {
    expect(queryWords('What is the AMS-III.AU methodology, and the methodology?')).toEqual([
      { word: 'ams-iii.au', parts: ['ams', 'iii', 'au'] },
      { word: 'methodology', parts: ['methodology'] },
    ]);
  });

  it('keeps stopwords when nothing else is left, and at most `max` words', () => {
    expect(queryWords('what is the').map((w) => w.word)).toEqual(['what', 'is', 'the']);
    const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    expect(queryWords(many)).toHaveLength(MAX_QUERY_TERMS);
    expect(queryWords(many, 3).map((w) => w.word)).toEqual(['w0', 'w1', 'w2']);
  });
});

describe('lightStem', () => {
  it('takes off plural endings of words only, never of codes, numbers or short words', () => {
    expect(lightStem('emissions')).toBe('emission');
    expect(lightStem('methodologies')).toBe('methodology');
    expect(lightStem('classes')).toBe('class');
    expect(lightStem('status')).toBe('status');
    expect(lightStem('analysis')).toBe('analysis');
    expect(lightStem('gas')).toBe('gas');
    expect(lightStem('vm0007s')).toBe('vm0007s');
  });
});

describe('sparseTerms', () => {
  it('gives each part stemmed, stopwords left out, and a compound word whole too', () => {
    expect(sparseTerms('The emissions of AMS-III.AU')).toEqual(['emission', 'ams', 'iii', 'au', 'ams-iii.au']);
    expect(isStopword('the')).toBe(true);
    expect(isStopword('emission')).toBe(false);
  });
});
