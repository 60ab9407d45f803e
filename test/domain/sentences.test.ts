import { describe, expect, it } from 'vitest';
import { evidenceSentences, hasTwelveLetters, isTitleCase, splitSentences } from '../../src/domain/sentences.js';

describe('splitSentences', () => {
  it('splits at sentence ends, not at line breaks or decimal points', () => {
    expect(splitSentences('The rate is 1.5 per\nhectare. Next one starts here! And "quoted" one?')).toEqual([
      'The rate is 1.5 per hectare.',
      'Next one starts here!',
      'And "quoted" one?',
    ]);
  });

  it('does not end a sentence at an abbreviation', () => {
    expect(
      splitSentences(
        'GFL commits a fund of Rs. 7 Crores (Euro 1.375 Million). Ground preparation (e.g. Burning) is limited. ' +
          'Decay rates follow Winjum et al. (1998). The meeting was opened by Mr. Solanki. See Fig. 3 and pp. 12-14.',
      ),
    ).toEqual([
      'GFL commits a fund of Rs. 7 Crores (Euro 1.375 Million).',
      'Ground preparation (e.g. Burning) is limited.',
      'Decay rates follow Winjum et al. (1998).',
      'The meeting was opened by Mr. Solanki.',
      'See Fig. 3 and pp. 12-14.',
    ]);
  });

  it('ends a sentence at an ellipsis before a capital', () => {
    // Fonthill Farms' project plan: a form's instruction ends "etc…", and the field's answer follows on its line.
    expect(
      splitSentences('Indicate the major environmental threats, including droughts, fires, floods, pests, etc… Flood risk is medium.'),
    ).toEqual(['Indicate the major environmental threats, including droughts, fires, floods, pests, etc…', 'Flood risk is medium.']);
  });

  it("does not end a sentence at a name's initial, but does at a lettered part's letter", () => {
    // SGS's validation report of GFL, page 2; Botany Farm's monitoring report, page 11.
    expect(splitSentences('Work carried out by: J. Miles M van der Linden. Work verified by: Gareth Phillips.')).toEqual([
      'Work carried out by: J. Miles M van der Linden.',
      'Work verified by: Gareth Phillips.',
    ]);
    expect(
      splitSentences('The calculator is defined in Appendix B. CXCS are responsible for the data. See Table C. It lists them.'),
    ).toEqual(['The calculator is defined in Appendix B.', 'CXCS are responsible for the data.', 'See Table C.', 'It lists them.']);
  });

  it('keeps a table row whole after a species abbreviation, and a report revision after "rev."', () => {
    // A planting table as extracted: "Eucalyptus sp." is followed by the row's figures, not by a new sentence.
    expect(
      splitSentences('Species Area in 2006 (ha) Total Quercus sp. 100 800 900 Eucalyptus sp. 850 150 1,000 Acacia spp. 4 trees.'),
    ).toEqual(['Species Area in 2006 (ha) Total Quercus sp. 100 800 900 Eucalyptus sp. 850 150 1,000 Acacia spp. 4 trees.']);
    expect(splitSentences('Report No. 2012-9450, rev. 01 VALIDATION REPORT')).toEqual(['Report No. 2012-9450, rev. 01 VALIDATION REPORT']);
    // A company's "Co." before its "Ltd" (the GFL PDD: "a similar project in Korea (Ulsan Chemical Co. Ltd related ...").
    expect(splitSentences('It is similar to a project in Korea (Ulsan Chemical Co. Ltd related F-CDM-Nmpu-0007).')).toHaveLength(1);
    // ... and before a code (the GFL PDD's "Column No. C-209"; a methodology's "No. AR-AM0004").
    expect(splitSentences('The stream from vent of Column No. C-209 (within the plant) is given below.')).toHaveLength(1);
    expect(splitSentences('It follows approved methodology No. AR-AM0004. The next one.')).toEqual([
      'It follows approved methodology No. AR-AM0004.',
      'The next one.',
    ]);
    // Before a capital it may end a sentence: "... Quercus sp. All species are native".
    expect(splitSentences('The mix is Eucalyptus sp. and Quercus sp. All species are native.')).toEqual([
      'The mix is Eucalyptus sp. and Quercus sp.',
      'All species are native.',
    ]);
  });

  it('still ends a sentence at such a word used as a word, and before a number after any other word', () => {
    expect(splitSentences('Is the pool included? No. The pool is excluded. It is zero. 5 plots were measured.')).toEqual([
      'Is the pool included?',
      'No.',
      'The pool is excluded.',
      'It is zero.',
      '5 plots were measured.',
    ]);
  });

  it('gives nothing for blank text', () => {
    expect(splitSentences(' \n\t ')).toEqual([]);
  });
});

describe('isTitleCase', () => {
  it('is a title, section name or form label: short, capitalised words, no digit, no final punctuation', () => {
    expect(isTitleCase('Permanence Period')).toBe(true);
    expect(isTitleCase('Carbon Accounting for Mosaic and\nLandscape-Scale REDD Projects')).toBe(true);
    expect(isTitleCase('Executive Summary')).toBe(true);
    // Twelve words, but the small ones do not count towards the ten.
    expect(isTitleCase('Methodology for Improved Forest Management: Conversion of Low- Productive to High-Productive Forest')).toBe(true);
  });

  it('is not a sentence, a defined term with its definition, a figure or a long line', () => {
    expect(isTitleCase('The permanence period for this project is 01/01/2033 to 31/12/2042.')).toBe(false);
    expect(isTitleCase('Peat Depletion Time (PDT) The estimated number of years for all peat to be depleted')).toBe(false);
    expect(isTitleCase('Methodology Version 1.2.2')).toBe(false);
    expect(isTitleCase('Credit Statement Permanence Buffer Credit Contribution Credits Pending Issue Total Area')).toBe(false);
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
