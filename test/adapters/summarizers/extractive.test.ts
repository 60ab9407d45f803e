import { describe, expect, it } from 'vitest';
import { createExtractiveSummarizer, extractiveAnswer } from '../../../src/adapters/summarizers/extractive.js';
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

  it('answers with the sentences that share the question words, each marked with its passage', async () => {
    const s = createExtractiveSummarizer();
    const answer = await s.summarize({ question: 'What is the annual average carbon removal?', passages, maxChars: 200 });
    expect(answer).toContain('The annual average carbon removal is estimated at 26,752tCO2e [1].');
    expect(answer.length).toBeLessThanOrEqual(200);
    for (const id of extractMarkers(answer)) expect([1, 2, 3]).toContain(id);
  });

  it('stays within the length budget while still saying something', () => {
    const answer = extractiveAnswer('removals over the crediting period', passages, 60);
    expect(answer.length).toBeGreaterThan(0);
    expect(extractMarkers(answer)).toEqual([1]);
    const wide = extractiveAnswer('removals over the crediting period', passages, 2000);
    expect(wide.length).toBeGreaterThanOrEqual(answer.length);
    expect(wide.length).toBeLessThanOrEqual(2000);
  });

  it('leaves out sentences that share little or nothing with the question, however large the budget', () => {
    const answer = extractiveAnswer('annual average carbon removal', passages, 5000);
    expect(answer).toContain('26,752tCO2e');
    expect(answer).not.toMatch(/Purulia|Avoided Deforestation|Table 4/);
    // Nothing in common: the best passage's opening sentence, not every sentence.
    const none = extractiveAnswer('zebra quantum', passages, 5000);
    expect(none).toBe('PAI 1 is expected to achieve total GHG reductions or removals of 5,35,052 tCO2e over the initial 20-year crediting period [1].');
  });

  it('orders sentences by passage relevance and keeps one marker per run of a passage', () => {
    const answer = extractiveAnswer('crediting period removals Purulia West Bengal planted', passages, 2000);
    const i1 = answer.indexOf('[1]');
    const i2 = answer.indexOf('[2]');
    expect(i1).toBeGreaterThan(0);
    expect(i2).toBeGreaterThan(i1);
    expect(answer.match(/\[1\]/g)).toHaveLength(1);
  });

  it('drops bracketed reference numbers of the passage text, so they cannot pass for markers', () => {
    const answer = extractiveAnswer('Which saplings are planted by the communities?', passages, 2000);
    expect(answer).not.toContain('[12]');
    expect(answer).toContain('Saplings of native species are planted by the communities [2].');
  });

  it('returns an empty answer without passages and never invents text', () => {
    expect(extractiveAnswer('anything', [], 500)).toBe('');
    const answer = extractiveAnswer('Who prepared the methodology?', passages, 2000);
    const source = passages.map((p) => p.text.replace(/\s*\[\d+\]/g, '').replace(/\s+/g, ' ')).join(' ');
    for (const sentence of answer.replace(/\s*\[\d+\]/g, '').split(/(?<=\.)\s+/)) {
      expect(source).toContain(sentence.replace(/\.$/, ''));
    }
  });

  it('cites a numbers-only passage whole rather than answering nothing', () => {
    const answer = extractiveAnswer('values', [{ id: 4, documentTitle: 't', page: 1, text: '2022 1,200 2023 1,300' }], 500);
    expect(answer).toBe('2022 1,200 2023 1,300 [4]');
  });
});
