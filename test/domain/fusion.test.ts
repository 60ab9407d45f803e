import { describe, expect, it } from 'vitest';
import { aggregateByPage, collapseNearDuplicates, convexCombination } from '../../src/domain/fusion.js';
import type { ScoredChunk } from '../../src/ports/vector-index.js';

function chunk(id: string, over: Partial<ScoredChunk> = {}): ScoredChunk {
  return {
    id,
    registry: 'Verra',
    projectId: 1,
    documentId: 'd1',
    documentTitle: 'PD.pdf',
    documentType: 'Project Description',
    uri: 'https://example.org/pd.pdf',
    page: 1,
    offset: 0,
    text: `passage ${id} with its own distinct words number ${id}`,
    score: 1,
    ...over,
  };
}

describe('convexCombination', () => {
  const bm25 = (scores: [string, number][]) => scores.map(([id, score]) => chunk(id, { score }));

  it('keeps a clear full-text winner ahead of a chunk the dense list prefers', () => {
    const fused = convexCombination([
      {
        name: 'text',
        weight: 0.7,
        items: bm25([
          ['a', 30],
          ['b', 12],
          ['c', 10],
        ]),
      },
      {
        name: 'vector',
        weight: 0.3,
        items: bm25([
          ['c', 0.8],
          ['b', 0.5],
          ['a', 0.4],
        ]),
      },
    ]);
    // a: 0.7 x 1 + 0.3 x 0 = 0.7; c: 0.7 x 0 + 0.3 x 1 = 0.3; b: 0.7 x 0.1 + 0.3 x 0.25 = 0.145
    expect(fused.map((c) => c.id)).toEqual(['a', 'c', 'b']);
    expect(fused.map((c) => Number(c.score.toFixed(3)))).toEqual([0.7, 0.3, 0.145]);
  });

  it('lets the dense list decide between near-tied full-text candidates', () => {
    const fused = convexCombination([
      {
        name: 'text',
        weight: 0.7,
        items: bm25([
          ['a', 20],
          ['b', 19.5],
          ['z', 5],
        ]),
      },
      {
        name: 'vector',
        weight: 0.3,
        items: bm25([
          ['b', 0.9],
          ['a', 0.3],
          ['z', 0.2],
        ]),
      },
    ]);
    expect(fused.map((c) => c.id)).toEqual(['b', 'a', 'z']);
  });

  it('normalises weights, scores a chunk missing from a list 0 there, and handles single-item and empty lists', () => {
    const fused = convexCombination([
      { name: 'text', weight: 2, items: bm25([['a', 5]]) },
      { name: 'vector', weight: 2, items: bm25([['b', 0.5]]) },
      { name: 'none', weight: 1, items: [] },
    ]);
    expect(fused.map((c) => [c.id, Number(c.score.toFixed(2))])).toEqual([
      ['a', 0.4],
      ['b', 0.4],
    ]);
    expect(convexCombination([])).toEqual([]);
    expect(convexCombination([{ name: 'text', items: [] }])).toEqual([]);
    expect(() => convexCombination([{ name: 'x', weight: -1, items: bm25([['a', 1]]) }])).toThrow(/weight of "x"/);
  });
});

describe('convexCombination ties and repeats', () => {
  it('counts an id repeated within one list once, at its first rank, and keeps ties in order of first appearance', () => {
    const fused = convexCombination([
      { name: 'text', items: [chunk('a', { score: 3 }), chunk('a', { score: 1 }), chunk('b', { score: 2 })] },
      { name: 'vector', items: [chunk('b', { score: 0.9 }), chunk('a', { score: 0.1 })] },
    ]);
    // a: 0.5 x 1 + 0.5 x 0 (its second text entry ignored); b: 0.5 x 0.5 + 0.5 x 1
    expect(fused.map((c) => [c.id, c.score])).toEqual([
      ['b', 0.75],
      ['a', 0.5],
    ]);
    const tie = convexCombination([
      { name: 'text', items: [chunk('x')] },
      { name: 'vector', items: [chunk('y')] },
    ]);
    expect(tie.map((c) => c.id)).toEqual(['x', 'y']);
  });

  it('lets a zero weight turn a retriever off without losing its chunks', () => {
    const fused = convexCombination([
      { name: 'text', weight: 0, items: [chunk('a')] },
      { name: 'vector', items: [chunk('b')] },
    ]);
    expect(fused.map((c) => [c.id, c.score])).toEqual([
      ['b', 1],
      ['a', 0],
    ]);
  });
});

describe('collapseNearDuplicates', () => {
  const long = (seed: string) =>
    `The project area covers ${seed} hectares of degraded land in the district, planted with native species under ` +
    `the grouped project design, monitored every five years by the validation and verification body`;

  it('keeps the better-ranked of two overlapping chunks of the same page', () => {
    const first = chunk('a', { offset: 0, text: 'x'.repeat(100) });
    const overlapping = chunk('b', { offset: 40, text: 'y'.repeat(100) });
    const farther = chunk('c', { offset: 180, text: 'z'.repeat(100) });
    expect(collapseNearDuplicates([first, overlapping, farther]).map((c) => c.id)).toEqual(['a', 'c']);
  });

  it('does not treat equal offsets on other pages, documents or projects as overlap', () => {
    const a = chunk('a', { text: long('100') + ' alpha' });
    const otherPage = chunk('b', { page: 2, text: 'completely different words on another page of this document' });
    const otherDoc = chunk('c', { documentId: 'd2', text: 'another document speaks of monitoring plans and sampling' });
    const otherProject = chunk('d', { projectId: 2, text: 'a different project with a leakage belt of forest areas' });
    expect(collapseNearDuplicates([a, otherPage, otherDoc, otherProject])).toHaveLength(4);
  });

  it('collapses identical boilerplate repeated in another document, keeping the first', () => {
    const a = chunk('a', { documentId: 'd1', text: long('29,018') });
    const copy = chunk('b', { documentId: 'd2', page: 7, offset: 300, text: `  ${long('29,018')}\n` });
    const different = chunk('c', {
      documentId: 'd3',
      text: 'Crediting period of 20 years from 15/07/2022 to 14/07/2042 for the first instance.',
    });
    expect(collapseNearDuplicates([a, copy, different]).map((c) => c.id)).toEqual(['a', 'c']);
  });

  it("keeps a table's rows on the next page, and another project's copy of a template table, apart: their figures differ", () => {
    const rows = (years: number[], extra = ''): string =>
      years.map((y) => `01-Jan- ${y} to 31- Dec- ${y} 0 27,769 0 4,998 0 22,770 22,770`).join('\n') + extra;
    const p49 = chunk('a', { page: 49, text: rows([2030, 2031, 2032, 2033, 2034, 2035, 2036, 2037]) });
    const p50 = chunk('b', { page: 50, text: rows([2036, 2037, 2038, 2039, 2040, 2041], '\nTotal 0 535,052 0 96,309 438,743 438,743') });
    expect(collapseNearDuplicates([p49, p50]).map((c) => c.id)).toEqual(['a', 'b']);
    const table = (figures: string): string =>
      `Year Estimated baseline emissions (tCO2e) Estimated project removals (tCO2e) Estimated leakage emissions (tCO2e) Estimated net GHG emissions reductions or removals (tCO2e) ${figures} De Minimis Through the implementation of Regenerative Farming techniques to increase SOCS.`;
    const botany = chunk('c', { projectId: 6006, text: table('2022 246 616 370') });
    const fonthill = chunk('d', { projectId: 6007, text: table('2023 1,460 3,650 2,190') });
    expect(collapseNearDuplicates([botany, fonthill])).toHaveLength(2);
    // The same table copied with the same figures is one passage.
    expect(collapseNearDuplicates([botany, chunk('e', { documentId: 'copy', text: table('2022 246 616 370') })])).toHaveLength(1);
  });

  it('keeps passages that share a template but differ in substance', () => {
    const a = chunk('a', { text: 'The permanence period of Botany Farm is 25 years from the start date of the project as declared.' });
    const b = chunk('b', {
      documentId: 'd2',
      text: 'Fonthill Farms commits to a permanence period of 40 years, measured from its first monitoring round.',
    });
    expect(collapseNearDuplicates([a, b])).toHaveLength(2);
  });
});

describe('collapseNearDuplicates with a limit', () => {
  it('stops after `limit` distinct passages', () => {
    const many = Array.from({ length: 10 }, (_, i) => chunk(`c${i}`, { page: i + 1 }));
    expect(collapseNearDuplicates(many, 3).map((c) => c.id)).toEqual(['c0', 'c1', 'c2']);
  });
});

describe('aggregateByPage', () => {
  it('keeps one candidate per page, its best chunk, scored max + bonus x the others', () => {
    const ranked = [
      chunk('p1a', { page: 1, score: 0.9 }),
      chunk('p2a', { page: 2, score: 0.8 }),
      chunk('p2b', { page: 2, offset: 500, score: 0.5 }),
      chunk('p1b', { page: 1, offset: 500, score: 0.1 }),
      chunk('p3a', { page: 3, score: 0.85 }),
    ];
    const out = aggregateByPage(ranked, 0.2);
    // p1: 0.9 + 0.2 x 0.1 = 0.92; p2: 0.8 + 0.2 x 0.5 = 0.9 overtakes p3 (0.85, one chunk).
    expect(out.map((c) => c.id)).toEqual(['p1a', 'p2a', 'p3a']);
    const scores = out.map((c) => c.score);
    [0.92, 0.9, 0.85].forEach((want, i) => expect(scores[i]).toBeCloseTo(want, 10));
  });

  it('lets several matching chunks lift a page above a page with one slightly better chunk', () => {
    const ranked = [
      chunk('single', { page: 1, score: 0.6 }),
      chunk('m1', { page: 2, score: 0.55 }),
      chunk('m2', { page: 2, offset: 300, score: 0.5 }),
      chunk('m3', { page: 2, offset: 600, score: 0.5 }),
    ];
    expect(aggregateByPage(ranked).map((c) => c.id)).toEqual(['m1', 'single']);
    // Without a bonus the best chunk alone decides.
    expect(aggregateByPage(ranked, 0).map((c) => c.id)).toEqual(['single', 'm1']);
  });

  it('treats the same page number of another document, project or registry as another page', () => {
    const ranked = [
      chunk('a', { page: 4 }),
      chunk('b', { page: 4, documentId: 'd2' }),
      chunk('c', { page: 4, projectId: 2 }),
      chunk('d', { page: 4, registry: 'CDM' }),
    ];
    expect(aggregateByPage(ranked).map((c) => c.id)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('caps scores at 1 (the search settings check the bonus)', () => {
    const ranked = [chunk('a', { score: 1 }), chunk('b', { offset: 100, score: 1 })];
    expect(aggregateByPage(ranked, 1)[0]?.score).toBe(1);
    expect(aggregateByPage([])).toEqual([]);
  });
});
