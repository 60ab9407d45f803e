import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer, extractiveAnswer } from '../../../src/adapters/summarizers/extractive.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';
import { extractMarkers } from '../../../src/domain/markers.js';
import type { CitedPassage } from '../../../src/ports/summarizer.js';

const passages: CitedPassage[] = [
  {
    id: 1,
    documentTitle: 'VCS5533_project_description.pdf',
    page: 10,
    text:
      'PAI 1 is expected to achieve total GHG reductions or removals of 5,35,052 tCO2e over the initial 20-year\n' +
      'crediting period. The annual average carbon removal is estimated at 26,752tCO2e. Table 4 shows the vintages.',
  },
  {
    id: 2,
    documentTitle: 'VCS5533_project_description.pdf',
    page: 4,
    text: 'The project is located in Purulia district of West Bengal. Saplings of native species are planted [12] by the communities.',
  },
  {
    id: 3,
    documentTitle: 'methodology_VM0007.pdf',
    page: 2,
    text: 'This methodology was prepared by Avoided Deforestation Partners. 12 3 4',
  },
];

describe('extractive summariser', () => {
  it('reports itself as "extractive"', () => {
    expect(createExtractiveSummarizer().model).toBe('extractive');
  });

  it('answers with the sentences that hold the question words, each followed by its passage marker', async () => {
    const s = createExtractiveSummarizer();
    const answer = await s.summarize({ question: 'What is the annual average carbon removal?', passages, maxChars: 200 });
    expect(answer).toContain('The annual average carbon removal is estimated at 26,752tCO2e [1].');
    expect(answer.length).toBeLessThanOrEqual(200);
    for (const id of extractMarkers(answer)) expect([1, 2, 3]).toContain(id);
  });

  it('keeps the best piece whatever the budget, and adds others only while they fit', () => {
    const small = extractiveAnswer({ question: 'removals over the crediting period', passages, maxChars: 60 });
    expect(extractMarkers(small)).toEqual([1]);
    const wide = extractiveAnswer({ question: 'removals over the crediting period', passages, maxChars: 2000 });
    expect(wide.length).toBeGreaterThanOrEqual(small.length);
    expect(wide.length).toBeLessThanOrEqual(2000);
  });

  it('leaves out passages that share little with the question, however large the budget', () => {
    const answer = extractiveAnswer({ question: 'annual average carbon removal', passages, maxChars: 5000 });
    expect(answer).toContain('26,752tCO2e');
    expect(answer).not.toMatch(/Purulia|Avoided Deforestation/);
  });

  it('composes with the tuning it is given', async () => {
    const question = 'Where are native saplings planted, and what removal is estimated?';
    const all = await createExtractiveSummarizer({ ...ANSWER_TUNING, pieceShare: 0 }).summarize({ question, passages, maxChars: 2000 });
    const best = await createExtractiveSummarizer({ ...ANSWER_TUNING, pieceShare: 1 }).summarize({ question, passages, maxChars: 2000 });
    expect(extractMarkers(all).length).toBeGreaterThan(1);
    expect(extractMarkers(best)).toHaveLength(1);
  });

  it('puts the best-matching passage first, not the first passage', () => {
    const answer = extractiveAnswer({ question: 'Where in West Bengal is the project located, Purulia?', passages, maxChars: 2000 });
    expect(answer.startsWith('The project is located in Purulia district of West Bengal')).toBe(true);
  });

  it("names each piece's project when the passages come from several projects", () => {
    const answer = extractiveAnswer({
      question: 'Who prepared the methodology and where is the project located?',
      passages: [
        { ...passages[1]!, project: 'Verra 5533' },
        { ...passages[2]!, project: 'Verra 1' },
      ],
      maxChars: 2000,
    });
    expect(answer).toContain('Verra 5533: The project is located in Purulia district of West Bengal [2].');
    expect(answer).toContain('Verra 1: This methodology was prepared by Avoided Deforestation Partners [3].');
  });

  it('drops bracketed reference numbers of the passage text, so they cannot pass for markers', () => {
    const answer = extractiveAnswer({ question: 'Which saplings are planted by the communities?', passages, maxChars: 2000 });
    expect(answer).not.toContain('[12]');
    expect(answer).toContain('Saplings of native species are planted by the communities [2].');
  });

  it('returns an empty answer without passages and never invents text', () => {
    expect(extractiveAnswer({ question: 'anything', passages: [], maxChars: 500 })).toBe('');
    const answer = extractiveAnswer({ question: 'Who prepared the methodology?', passages, maxChars: 2000 });
    const source = passages.map((p) => p.text.replace(/\s*\[\d+\]/g, '').replace(/\s+/g, ' ')).join(' ');
    for (const sentence of answer.replace(/\s*\[\d+\]/g, '').split(/(?<=\.)\s+/)) {
      expect(source).toContain(sentence.replace(/\.$/, ''));
    }
  });

  it('takes quotes the search weighed whole, in its order, without choosing sentences again', () => {
    // The search weighed the quotes with the projects' names left out; a fresh lexical pass would rank the
    // quote naming "Purulia" and "West Bengal" first and keep only one sentence of the two-sentence quote.
    const twoSentences = 'SOC Baseline Stock February 2023: 6,251.40 tSOC. Baseline GHG emissions were calculated for the year.';
    const answer = extractiveAnswer({
      question: 'What baseline SOC stock does the Purulia project in West Bengal record?',
      passages: [
        { ...passages[1]!, quote: passages[1]!.text, quoteWeight: { coverage: 0.2, score: 0.3 } },
        {
          id: 5,
          documentTitle: 'plan.pdf',
          page: 20,
          text: `Heading\n${twoSentences}`,
          quote: twoSentences,
          quoteWeight: { coverage: 0.8, score: 0.9 },
        },
      ],
      maxChars: 2000,
    });
    expect(
      answer.startsWith('SOC Baseline Stock February 2023: 6,251.40 tSOC. Baseline GHG emissions were calculated for the year [5].'),
    ).toBe(true);
  });

  it('states the best sentence the search gave for a quote that does not fit whole', () => {
    const long =
      `The soil samples were analysed by an accredited laboratory. ${'The laboratory followed the protocol of the credit class for every sample, with duplicates. '.repeat(4)}`.trim();
    const answer = extractiveAnswer({
      question: 'Who analysed the soil samples?',
      passages: [
        {
          id: 1,
          documentTitle: 'report.pdf',
          page: 3,
          text: 'Soil samples were taken by C A Agriculture.',
          quote: 'Soil samples were taken by C A Agriculture.',
          quoteWeight: { coverage: 0.6, score: 0.9 },
        },
        {
          id: 2,
          documentTitle: 'report.pdf',
          page: 4,
          text: long,
          quote: long,
          quoteWeight: { coverage: 0.6, score: 0.8 },
          quoteCore: 'The soil samples were analysed by an accredited laboratory.',
        },
      ],
      maxChars: 200,
    });
    expect(answer).toBe('Soil samples were taken by C A Agriculture [1]. The soil samples were analysed by an accredited laboratory [2].');
  });

  it('cites a numbers-only passage whole rather than answering nothing', () => {
    const answer = extractiveAnswer({
      question: 'values',
      passages: [{ id: 4, documentTitle: 't', page: 1, text: '2022 1,200 2023 1,300' }],
      maxChars: 500,
    });
    expect(answer).toBe('2022 1,200 2023 1,300 [4]');
  });
});
