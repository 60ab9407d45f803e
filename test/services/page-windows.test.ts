import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPdfPages } from '../../ingest/stages/extract.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import type { ChunkRecord } from '../../src/domain/chunk-record.js';
import { normalizedTerms } from '../../src/domain/query.js';
import { createPageTextCache, lineContext, pageWindow, WINDOW_CHARS } from '../../src/services/page-windows.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

const filler = (n: number) => 'Soil samples were taken in every stratum. '.repeat(Math.ceil(n / 42)).slice(0, n);
const ANSWER = 'The samples were analysed by the Eurofins laboratory in Wolverhampton.';

function chunkAt(page: string, text: string, pageNo = 1): ChunkRecord {
  return {
    id: 'c',
    registry: 'Verra',
    projectId: 1,
    documentId: 'd',
    documentTitle: 'd.pdf',
    documentType: 'Other',
    uri: 'https://x/d.pdf',
    page: pageNo,
    offset: page.indexOf(text),
    text,
  };
}

describe('pageWindow', () => {
  it('reaches WINDOW_CHARS either side of the chunk, widened to whole sentences', () => {
    const page = `${filler(2000)} ${ANSWER} ${filler(2000)}`;
    const w = pageWindow({ pages: [page] }, chunkAt(page, ANSWER));
    if (w === null) throw new Error('no window');
    expect(w.chunkStart).toBe(page.indexOf(ANSWER));
    expect(w.chunkStart - w.start).toBeGreaterThanOrEqual(WINDOW_CHARS);
    expect(w.chunkStart - w.start).toBeLessThan(WINDOW_CHARS + 300);
    expect(page.slice(w.start, w.start + 12)).toBe('Soil samples');
    expect(page[w.end - 1]).toBe('.');
  });

  it('is null when the stored page is no longer the one the chunk was cut from', () => {
    const page = `${filler(100)} ${ANSWER}`;
    const chunk = chunkAt(page, ANSWER);
    expect(pageWindow({ pages: [page.replace('Eurofins', 'another')] }, chunk)).toBeNull();
    expect(pageWindow({ pages: [page] }, { ...chunk, page: 2 })).toBeNull();
  });
});

describe('lineContext', () => {
  it('gives the rest of the lines a span starts and ends in', () => {
    const page = 'Heading\nThe risk factor is 10% for the period.\nNext line';
    const start = page.indexOf('risk');
    const end = page.indexOf(' for');
    expect(lineContext(page, start, end)).toEqual({ head: 'The ', tail: ' for the period.' });
  });
});

describe('createPageTextCache', () => {
  it("reads a document's pages once from the text store, with the words they use, and null for an unknown document", async () => {
    const db = openSqlite({ dataDir: ':memory:' });
    const store = await createSqliteDocumentTextStore({ db });
    const pages = ['Project X | page 1\nFirst.', 'Project X | page 2\nSecond.', 'Project X | page 3\nThird.'];
    const chunk = chunkAt(pages[0] ?? '', 'First.');
    await store.put(chunk, 'd', pages);
    const cache = createPageTextCache(store);
    const first = await cache.get(chunk, 'k');
    expect(first?.pages).toEqual(pages);
    expect(['second', 'third', 'project', 'x', '3'].map((t) => first?.usesWord(t))).toEqual([true, true, true, true, true]);
    expect(['fourth', 'secon', 'pag'].map((t) => first?.usesWord(t))).toEqual([false, false, false]);
    await store.put(chunk, 'd', ['changed']);
    expect((await cache.get(chunk, 'k'))?.pages).toEqual(pages);
    expect((await cache.get(chunk, 'other-key'))?.pages).toEqual(['changed']);
    expect(await cache.get({ ...chunk, documentId: 'missing' }, 'm')).toBeNull();
    await store.close();
    db.close();
  });
});

describeWithService("a document's words on a real registry PDF", { available: corpusAvailable, why: 'corpus not found' }, () => {
  it('finds every word its pages use, and only those, however the words are written', async () => {
    const pdf = readFileSync(corpusPath('pdf', 'VCS5533_project_description.pdf'));
    const extracted = await extractPdfPages(new Uint8Array(pdf));
    if (!extracted.ok) throw new Error(extracted.reason);
    const db = openSqlite({ dataDir: ':memory:' });
    const store = await createSqliteDocumentTextStore({ db });
    const chunk = chunkAt(extracted.pages[0] ?? '', (extracted.pages[0] ?? '').slice(0, 20));
    await store.put(chunk, 'd', extracted.pages);
    const doc = await createPageTextCache(store).get(chunk, 'k');
    const words = new Set(extracted.pages.flatMap((p) => normalizedTerms(p)));
    expect(words.size).toBeGreaterThan(1000);
    for (const w of words) expect(doc?.usesWord(w), w).toBe(true);
    // Words one letter short or long of its own, and others it does not use.
    const others = [...words].flatMap((w) => [w.slice(0, -1), `${w}q`]).filter((w) => w !== '' && !words.has(w));
    for (const w of [...others, 'kigali', 'offtake']) expect(doc?.usesWord(w), w).toBe(false);
    await store.close();
    db.close();
  }, 120_000);
});
