import { describe, expect, it } from 'vitest';
import { chunk, chunkTokenBudget } from '../../../ingest/stages/chunk.js';
import type { DocumentWorkItem, StageContext } from '../../../ingest/types.js';

/** The chunk stage: page texts to chunks sized for the embedder, or `needs_ocr` when no page has text. */

const item = (pages: string[] | undefined): DocumentWorkItem => ({
  ref: { registry: 'Verra', projectId: 1 },
  documentId: 'd1',
  uri: 'https://registry.verra.org/a.pdf',
  title: 'a.pdf',
  documentType: 'Project Description',
  uploadDate: null,
  previous: null,
  ...(pages ? { pages } : {}),
});
// The stage reads the chunk size only.
const ctx = { chunkMaxTokens: 64 } as StageContext;

const sentence = (n: number): string => `Sentence ${n} says the project restores degraded peat swamp forest on the island.`;

describe('chunk stage', () => {
  it('cuts each page into chunks within the budget, every chunk on its page', async () => {
    const pages = [Array.from({ length: 12 }, (_, i) => sentence(i)).join(' '), sentence(99)];
    const out = await chunk(item(pages), ctx);
    expect(out.outcome).toBeUndefined();
    const chunks = out.chunks ?? [];
    expect(chunks.length).toBeGreaterThan(2);
    expect(new Set(chunks.map((c) => c.page))).toEqual(new Set([1, 2]));
    for (const c of chunks) expect(pages[c.page - 1]).toContain(c.text.slice(0, 40));
  });

  it('says a document with no text on any page needs OCR', async () => {
    expect((await chunk(item(['', '  ']), ctx)).outcome).toEqual({ kind: 'needs_ocr', reason: 'no searchable text on any of 2 page(s)' });
  });

  it('refuses an item that was never extracted', async () => {
    await expect(chunk(item(undefined), ctx)).rejects.toThrow('chunk: document d1 has no extracted pages');
  });
});

describe('chunkTokenBudget', () => {
  it("leaves room for the model's two special tokens, capped, and never below 8", () => {
    expect(chunkTokenBudget(256)).toBe(254);
    expect(chunkTokenBudget(512)).toBe(384);
    expect(chunkTokenBudget(512, 1000)).toBe(510);
    expect(chunkTokenBudget(4)).toBe(8);
  });
});
