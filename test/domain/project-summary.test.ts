import { describe, expect, it } from 'vitest';
import { documentRank, firstSentences, isDescriptionDocument, stripMarkers, summaryPassages } from '../../src/domain/project-summary.js';

const PROSE =
  'The project activity involves the reforestation of degraded agricultural land owned by indigenous communities in West Bengal. ' +
  'Native species are planted in mixed stands to restore forest cover, improve soil and provide income from non-timber products. ' +
  'The communities manage the plantations under long-term agreements with the project proponent.';

describe('documentRank', () => {
  it('prefers a project description, then a design document named by title, then reports, then anything else', () => {
    const rank = (documentType: string, title = 'x.pdf') => documentRank({ documentType, title });
    expect(rank('Project Description')).toBe(0);
    expect(rank('Draft Project Description')).toBe(1);
    expect(rank('Other', 'Proj_Desc_v2.pdf')).toBe(3);
    expect(rank('Validation Report')).toBe(10);
    expect(rank('Other')).toBe(20);
    expect(isDescriptionDocument({ documentType: 'Other', title: 'PDD final.pdf' })).toBe(true);
    expect(isDescriptionDocument({ documentType: 'Monitoring Report', title: 'MR.pdf' })).toBe(false);
  });
});

describe('summaryPassages', () => {
  it('starts under the description heading, skipping a contents page', () => {
    const pages = [
      'Table of contents\n1 Project details ........ 3\n1.1 Summary description of the project ........ 3',
      `Cover letter\nRef 2024/11/05 No. 12345\n1.1 Summary Description of the Project\n${PROSE}`,
    ];
    const out = summaryPassages([{ state: { title: 'PD.pdf' }, pages }]);
    expect(out[0]).toEqual({ id: 1, text: PROSE, documentTitle: 'PD.pdf', page: 2 });
    expect(out.every((p) => p.page === 2 && !p.text.includes('........'))).toBe(true);
  });

  it('takes at most two passages from each further document, and none from a page of figures', () => {
    const many = Array.from({ length: 5 }, (_, i) => `${PROSE.replace('West Bengal', `district ${i}`)}`);
    const docs = [
      { state: { title: 'a.pdf' }, pages: [many[0] ?? ''] },
      { state: { title: 'b.pdf' }, pages: many.slice(1) },
      { state: { title: 'c.pdf' }, pages: ['2021 12,345 2022 23,456 2023 34,567 '.repeat(10)] },
    ];
    const out = summaryPassages(docs);
    expect(out.map((p) => p.documentTitle)).toEqual(['a.pdf', 'b.pdf', 'b.pdf']);
  });
});

describe('stripMarkers and firstSentences', () => {
  it('removes citation markers and the spaces they leave', () => {
    expect(stripMarkers('Trees are planted [1, 2]. Soil improves [3-4] .')).toBe('Trees are planted. Soil improves.');
  });

  it('cuts at the last full stop within the budget, or at a word with an ellipsis', () => {
    expect(firstSentences('One.  Two.', 100)).toBe('One. Two.');
    expect(firstSentences('First sentence here. Second sentence is long.', 30)).toBe('First sentence here.');
    expect(firstSentences('no full stop in this rather long text at all', 20)).toBe('no full stop in…');
  });
});
