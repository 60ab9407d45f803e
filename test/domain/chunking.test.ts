import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  canonicalDocumentUri,
  chunkIdFor,
  chunkPage,
  chunkPages,
  documentIdFor,
  estimateTokens,
  normalizePageText,
} from '../../src/domain/chunking.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';

const sentence = (i: number): string => `Sentence number ${i} describes the baseline scenario of the project area in some detail.`;
const paragraph = (from: number, n: number): string => Array.from({ length: n }, (_, k) => sentence(from + k)).join(' ');

describe('estimateTokens', () => {
  it('counts short words as one token, long words and digit runs as several, punctuation as one each', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('the cat')).toBe(2);
    expect(estimateTokens('validation')).toBe(3);
    expect(estimateTokens('256109')).toBe(3);
    expect(estimateTokens('a, b.')).toBe(4);
    expect(estimateTokens('tCO₂e')).toBe(3);
    // Acronyms and formulae split into more pieces than prose; caseless scripts split per character.
    expect(estimateTokens('HFC')).toBe(2);
    expect(estimateTokens('CH2FCF2CHF2')).toBe(8);
    expect(estimateTokens('Mangifera')).toBe(3);
    expect(estimateTokens('森林碳汇')).toBe(4);
  });

  it('is at least the whitespace word count (never under-estimates prose)', () => {
    const text = paragraph(0, 20);
    expect(estimateTokens(text)).toBeGreaterThanOrEqual(text.split(/\s+/).length);
  });
});

describe('normalizePageText', () => {
  it('unifies line endings, blanks and control characters and keeps paragraph breaks', () => {
    expect(normalizePageText('a\r\nb\tc\u00a0\u00a0d  \n\n\n\ne\u0000f  ')).toBe('a\nb c d\n\nef');
  });
});

describe('chunkPage', () => {
  it('keeps a page that fits as one chunk with offset 0', () => {
    const chunks = chunkPage('Short page about VM0007.', 3, { maxTokens: 100 });
    expect(chunks).toEqual([{ page: 3, offset: 0, text: 'Short page about VM0007.' }]);
  });

  it('never exceeds maxTokens, and every chunk is the page text at its offset', () => {
    const text = [paragraph(0, 12), paragraph(12, 3), paragraph(15, 25)].join('\n\n');
    for (const maxTokens of [16, 40, 100, 254]) {
      const chunks = chunkPage(text, 1, { maxTokens });
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) {
        expect(estimateTokens(c.text)).toBeLessThanOrEqual(maxTokens);
        expect(text.slice(c.offset, c.offset + c.text.length)).toBe(c.text);
      }
    }
  });

  it('covers the whole page: chunks in order, with nothing but blanks between two of them', () => {
    const text = [paragraph(0, 30), paragraph(30, 30)].join('\n\n');
    const chunks = chunkPage(text, 1, { maxTokens: 60 });
    expect(chunks[0]?.offset).toBe(0);
    const last = chunks.at(-1);
    expect(last && last.offset + last.text.length).toBe(text.length);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1];
      const cur = chunks[i];
      if (!prev || !cur) continue;
      expect(cur.offset).toBeGreaterThan(prev.offset);
      expect(text.slice(prev.offset + prev.text.length, cur.offset).trim()).toBe('');
    }
  });

  it('cuts at sentence ends rather than mid-sentence when sentences fit', () => {
    const text = paragraph(0, 40);
    const chunks = chunkPage(text, 1, { maxTokens: 80 });
    // (A chunk after the first starts with the previous one's last words: the overlap.)
    expect(chunks[0]?.text.startsWith('Sentence number')).toBe(true);
    for (const c of chunks) expect(c.text.endsWith('detail.')).toBe(true);
  });

  it('prefers paragraph breaks: two paragraphs that each fit are not mixed', () => {
    const a = paragraph(0, 4);
    const b = paragraph(100, 4);
    const text = `${a}\n\n${b}`;
    // No room for an overlap before the second paragraph.
    const budget = Math.max(estimateTokens(a), estimateTokens(b));
    const chunks = chunkPage(text, 1, { maxTokens: budget });
    expect(chunks.map((c) => c.text)).toEqual([a, b]);
  });

  it('repeats the end of a chunk at the start of the next one (overlap within the budget)', () => {
    const text = paragraph(0, 40);
    const chunks = chunkPage(text, 1, { maxTokens: 80 });
    expect(chunks.length).toBeGreaterThan(2);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1];
      const cur = chunks[i];
      if (!prev || !cur) continue;
      expect(cur.offset).toBeLessThan(prev.offset + prev.text.length);
      const shared = text.slice(cur.offset, prev.offset + prev.text.length);
      expect(estimateTokens(shared)).toBeLessThanOrEqual(12);
      expect(estimateTokens(cur.text)).toBeLessThanOrEqual(80);
    }
  });

  it('splits a table-like run of lines at line breaks, and a run without spaces by characters', () => {
    const table = Array.from({ length: 60 }, (_, i) => `Year ${2000 + i} | 26752 | 535052`).join('\n');
    const chunks = chunkPage(table, 2, { maxTokens: 50 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const c of chunks) {
      expect(estimateTokens(c.text)).toBeLessThanOrEqual(50);
      // Whole lines, after the previous chunk's last cell (the overlap).
      expect(c.text.endsWith('535052')).toBe(true);
    }
    const blob = 'x'.repeat(1000);
    const hard = chunkPage(blob, 1, { maxTokens: 20 });
    expect(hard.map((c) => c.text).join('')).toBe(blob);
    for (const c of hard) expect(estimateTokens(c.text)).toBeLessThanOrEqual(20);
  });

  it("keeps a page's list of contents apart from its other text, so that no chunk holds both", () => {
    const contents = Array.from({ length: 4 }, (_, i) => `Figure ${i + 1} - Monitoring Period Net SOCS Change ......... ${i + 2}`);
    const glossary = 'List of Terms\nSoil Organic Carbon (SOC) is the organic carbon component of the total carbon content of soil.';
    const page = ['List of Figures', ...contents, glossary].join('\n');
    const chunks = chunkPage(page, 5, { maxTokens: 200 });
    expect(chunks.map((c) => c.text)).toEqual([['List of Figures', ...contents].join('\n'), glossary]);
    // A page without contents lines is cut as before: one chunk within the budget.
    expect(chunkPage(glossary, 5, { maxTokens: 200 }).map((c) => c.text)).toEqual([glossary]);
  });

  it('drops blank and punctuation-only pieces', () => {
    expect(chunkPage('', 1, { maxTokens: 50 })).toEqual([]);
    expect(chunkPage('   \n\n  ', 1, { maxTokens: 50 })).toEqual([]);
    expect(chunkPage('----- . -----', 1, { maxTokens: 50 })).toEqual([]);
  });

  it('rejects an unusable budget with a message showing it', () => {
    expect(() => chunkPage('text', 1, { maxTokens: 2 })).toThrow(/at least 8, got 2/);
    expect(() => chunkPage('text', 1, { maxTokens: Number.NaN })).toThrow(/got NaN/);
  });

  it('is deterministic', () => {
    const text = [paragraph(0, 12), paragraph(12, 30)].join('\n\n');
    expect(chunkPage(text, 1, { maxTokens: 64 })).toEqual(chunkPage(text, 1, { maxTokens: 64 }));
  });
});

describe('chunkPages', () => {
  it('numbers pages from 1 and never lets a chunk span two pages', () => {
    const pages = ['First page text. It ends here.', '', 'Third page text.'];
    const chunks = chunkPages(pages, { maxTokens: 100 });
    expect(chunks.map((c) => [c.page, c.text])).toEqual([
      [1, 'First page text. It ends here.'],
      [3, 'Third page text.'],
    ]);
  });

  // Without the corpus vitest.config.ts says so once (and fails the run under REQUIRE_SERVICES=1).
  it.skipIf(!corpusAvailable)('chunks a real extracted page text within the USE budget', () => {
    // A stand-in for a dense page: the corpus SOURCES table is long, with pipes and numbers.
    const text = normalizePageText(readFileSync(corpusPath('SOURCES.md'), 'utf8'));
    const chunks = chunkPage(text, 1, { maxTokens: 254 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(estimateTokens(c.text)).toBeLessThanOrEqual(254);
  });
});

describe('ids', () => {
  it('document ids depend on the canonical uri only', () => {
    const a = documentIdFor('https://registry.verra.org/app/document/1?x=1');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(documentIdFor('  HTTPS://Registry.Verra.org:443/app/document/1?x=1#page=3 ')).toBe(a);
    expect(documentIdFor('https://registry.verra.org/app/document/2?x=1')).not.toBe(a);
    expect(canonicalDocumentUri('not a url ')).toBe('not a url');
  });

  it('chunk ids are UUIDs, stable, and differ in every part', () => {
    const base = { registry: 'Verra', projectId: 5533, documentId: 'abc', page: 4, offset: 120 };
    const id = chunkIdFor(base);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(chunkIdFor({ ...base })).toBe(id);
    const variants = [
      { ...base, registry: 'CDM' },
      { ...base, projectId: 5534 },
      { ...base, documentId: 'abd' },
      { ...base, page: 5 },
      { ...base, offset: 121 },
    ];
    expect(new Set(variants.map(chunkIdFor)).size).toBe(5);
    expect(variants.map(chunkIdFor)).not.toContain(id);
  });
});
