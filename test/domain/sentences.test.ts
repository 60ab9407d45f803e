import { describe, expect, it } from 'vitest';
import { evidenceSentences, hasTwelveLetters, splitSentences } from '../../src/domain/sentences.js';

describe('splitSentences', () => {
  it('splits at sentence ends, not at line breaks or decimal points', () => {
    expect(splitSentences('The rate is 1.5 per\nhectare. Next one starts here! And "quoted" one?')).toEqual([
      'The rate is 1.5 per hectare.',
      'Next one starts here!',
      'And "quoted" one?',
    ]);
  });

  it('gives nothing for blank text', () => {
    expect(splitSentences(' \n\t ')).toEqual([]);
  });
});

describe('hasTwelveLetters', () => {
  it('counts letters, not digits or punctuation', () => {
    expect(hasTwelveLetters('Table 4.2: 1,200 t')).toBe(false);
    expect(hasTwelveLetters('abcdef 123 ghijkl')).toBe(true);
  });
});

describe('evidenceSentences', () => {
  it('keeps the sentences of a passage and leaves fragments out', () => {
    const text = 'Cut-off ratio - the limiting ratio of HFC23 to HCFC22.\nPage 3 of 40.\nThe plant destroys HFC23 by incineration.';
    expect(evidenceSentences(text)).toEqual([
      'Cut-off ratio - the limiting ratio of HFC23 to HCFC22.',
      'The plant destroys HFC23 by incineration.',
    ]);
  });

  it('gives none for a chunk that is one sentence: its own vector is that sentence', () => {
    expect(evidenceSentences('The project area\ncovers 29,018 hectares of peat swamp forest.')).toEqual([]);
  });

  it('keeps the one sentence of a chunk that also holds fragments', () => {
    expect(evidenceSentences('Page 3.\nThe project area covers 29,018 hectares.')).toEqual(['The project area covers 29,018 hectares.']);
  });

  it('gives none for a chunk of fragments only', () => {
    expect(evidenceSentences('Table 4 | 2021 | 1,200 | 2022 | 1,300')).toEqual([]);
  });
});
