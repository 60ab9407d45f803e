import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExtractiveReader } from '../../../src/adapters/readers/extractive.js';
import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import type { Quote } from '../../../src/domain/answer/quotes.js';
import { projectKey } from '../../../src/domain/project-ref.js';
import type { DocumentTextStore } from '../../../src/ports/document-text-store.js';
import type { ReadRequest, Reader } from '../../../src/ports/reader.js';
import type { ScoredChunk } from '../../../src/ports/vector-index.js';
import { passageReader, placeQuotes, projectLabel, readAhead, readWindows, type ReadPassage } from '../../../src/services/search/read.js';
import { toCitations } from '../../../src/services/search/retrieve.js';
import { resolveSettings } from '../../../src/services/search/settings.js';
import type { SearchServiceOptions } from '../../../src/services/search/types.js';
import { createSearchFixture, searchOptions, type SearchFixture } from '../support/fixtures.js';
import { asRequested, capturingLogger, contextFor } from './support/context.js';

/** The read stage over the SQLite index and page text store: page windows, the reader's request, quotes placed. */
const SPECIES = { registry: 'CDM', projectId: 547 };
const PAGE =
  'Site preparation is manual. The tree species planted are Pinus massoniana, Cunninghamia lanceolata,\n' +
  'Schima superba, Liquidambar formosana and Eucalyptus urophylla. Seedlings come from local nurseries.';
// The chunk as indexed stops mid-sentence, after the second species.
const CUT = PAGE.indexOf('Cunninghamia lanceolata,') + 'Cunninghamia lanceolata,'.length;
const QUESTION = 'Which tree species are planted?';

let fx: SearchFixture;
let texts: DocumentTextStore;
let chunks: ScoredChunk[];
beforeAll(async () => {
  fx = await createSearchFixture();
  texts = await createSqliteDocumentTextStore({ db: fx.db });
  await fx.addRecord(SPECIES);
  await fx.addDocument(SPECIES, 'pdd', [PAGE.slice(0, CUT)], { title: 'PDD_547.pdf' });
  await texts.put(SPECIES, 'pdd', [PAGE]);
  chunks = await fx.index.searchText('tree species', [SPECIES], 5);
});
afterAll(async () => {
  await texts.close();
  await fx.close();
});

const settings = (over: Partial<SearchServiceOptions> = {}) => resolveSettings(searchOptions(fx, over));
const requested = [asRequested(SPECIES, 'cdm')];

/** The extractive reader, its requests kept. */
function recordingReader(): Reader & { requests: ReadRequest[] } {
  const inner = createExtractiveReader();
  const requests: ReadRequest[] = [];
  return {
    id: 'recording',
    requests,
    read(request, signal) {
      requests.push(request);
      return inner.read(request, signal);
    },
  };
}

describe('projectLabel', () => {
  it('names a project by its registry as given and its id', () => {
    expect(projectLabel({ registry: 'Verra', projectId: 5533 })).toBe('Verra 5533');
  });
});

describe('readWindows', () => {
  it("gives each citation its chunk's page window and the document's running lines when the page text is at hand", async () => {
    expect(chunks).toHaveLength(1);
    const read = await readWindows(settings({ texts }), toCitations(chunks, requested), chunks);
    expect(read).toHaveLength(1);
    const [r] = read;
    expect(r?.chunk).toBe(chunks[0]);
    expect(r?.citation.id).toBe(1);
    expect(r?.window).toEqual({ page: PAGE, start: 0, end: PAGE.length, chunkStart: 0, chunkEnd: CUT });
    expect(r?.doc?.running).toBeInstanceOf(Set);
  });

  it('has no window without a text store, for a page changed since the chunk was cut, or when the store fails', async () => {
    const citations = () => toCitations(chunks, requested);
    expect((await readWindows(settings(), citations(), chunks))[0]).toMatchObject({ window: null });
    expect((await readWindows(settings(), citations(), chunks))[0]).not.toHaveProperty('doc');

    const changed = await createSqliteDocumentTextStore({ db: fx.db });
    const other = { registry: 'CDM', projectId: 548 };
    await fx.addDocument(other, 'pdd', ['The tree species planted are Pinus massoniana.']);
    await changed.put(other, 'pdd', ['The tree species planted are Cunninghamia lanceolata only.']);
    const stale = await fx.index.searchText('tree species', [other], 1);
    const [r] = await readWindows(settings({ texts: changed }), toCitations(stale, [asRequested(other)]), stale);
    expect(r?.window).toBeNull();
    await changed.close();

    const { lines, logger } = capturingLogger();
    const failing: DocumentTextStore = { ...texts, get: () => Promise.reject(new Error('disk read failed')) };
    const [f] = await readWindows(settings({ texts: failing, logger }), citations(), chunks);
    expect(f?.window).toBeNull();
    expect(lines.find((l) => l.msg === 'page text unavailable; passage cited as indexed')?.err).toBe('disk read failed');
  });
});

describe('readAhead', () => {
  it("reads the likely citations' windows while the query embeds, and the search then finds them read", async () => {
    const s = settings({ texts });
    const chunk = chunks[0] as ScoredChunk;
    await readAhead(s, QUESTION, chunks, new Promise(() => undefined));
    const doc = await s.pageTexts?.get(chunk, `${projectKey(SPECIES)}\u0000pdd`);
    expect([...(doc?.readings.keys() ?? [])]).toEqual([expect.stringContaining(PAGE)]);
    const read = await readWindows(s, toCitations(chunks, requested), chunks);
    expect(read[0]?.doc).toBe(doc);
    await passageReader(s, contextFor(s, QUESTION, requested))(read);
    expect(doc?.readings.size).toBe(1);
  });

  it('reads ahead silently: a document that cannot be read is reported only when the search cites it', async () => {
    const { lines, logger } = capturingLogger();
    const failing: DocumentTextStore = { ...texts, get: () => Promise.reject(new Error('disk read failed')) };
    await readAhead(settings({ texts: failing, logger }), QUESTION, chunks, new Promise(() => undefined));
    expect(lines).toEqual([]);
  });

  it('stops once the query vector is there', async () => {
    const s = settings({ texts });
    await readAhead(s, QUESTION, chunks, Promise.resolve());
    const doc = await s.pageTexts?.get(chunks[0] as ScoredChunk, `${projectKey(SPECIES)}\u0000pdd`);
    expect(doc?.readings.size).toBe(0);
  });
});

describe('passageReader', () => {
  it('hands the reader each passage as its page window, with its line context and the scope words', async () => {
    const reader = recordingReader();
    const s = settings({ texts, reader });
    const known = await fx.records.getMany([SPECIES]);
    const ctx = contextFor(s, QUESTION, requested, { known });
    const read = await readWindows(s, toCitations(chunks, requested), chunks);
    const reading = await passageReader(s, ctx)(read);
    const [request] = reader.requests;
    expect(request?.question).toBe(QUESTION);
    expect(request?.passages).toEqual([
      expect.objectContaining({ id: 1, text: PAGE, project: 'cdm 547', line: { head: '', tail: '' }, running: read[0]?.doc?.running }),
    ]);
    // Whether its document uses a word.
    expect(request?.passages[0]?.usesWord?.('eucalyptus')).toBe(true);
    expect(request?.passages[0]?.usesWord?.('noise')).toBe(false);
    // Where to look: the document's title and type, the project as requested, and what its record calls it.
    expect(request?.scope).toEqual(expect.arrayContaining(['PDD_547.pdf', 'Project Description', 'cdm 547', 'Project 547']));
    expect(s.recordNames.size).toBe(1);
    expect(reading.answered).toBe(true);
    expect(reading.quotes[0]?.text).toContain('Eucalyptus urophylla.');
  });

  it('hands the reader the passage as indexed when there is no window, and no record names without records', async () => {
    const reader = recordingReader();
    const s = settings({ reader });
    const read = await readWindows(s, toCitations(chunks, requested), chunks);
    await passageReader(s, contextFor(s, QUESTION, requested))(read);
    const [request] = reader.requests;
    expect(request?.passages).toEqual([{ id: 1, text: PAGE.slice(0, CUT), score: read[0]?.citation.score, project: 'cdm 547' }]);
    expect(request?.scope).not.toContain('Project 547');
  });
});

describe('placeQuotes', () => {
  // A page window that starts inside the page; the chunk is its middle sentence.
  const page = 'Heading. Alpha one. Beta two. Gamma three.';
  const window = {
    page,
    start: page.indexOf('Alpha'),
    end: page.length,
    chunkStart: page.indexOf('Beta'),
    chunkEnd: page.indexOf(' Gamma'),
  };
  const quoteOf = (passageId: number, text: string): Quote => {
    const start = page.indexOf(text) - window.start;
    return { passageId, start, end: start + text.length, text, score: 1, coverage: 0.5 };
  };
  const passage = (id: number, withWindow: boolean): ReadPassage => {
    const [citation] = toCitations([{ ...(chunks[0] as ScoredChunk), text: 'Beta two.' }], requested);
    if (!citation) throw new Error('no citation');
    return { citation: { ...citation, id }, chunk: chunks[0] as ScoredChunk, window: withWindow ? window : null };
  };

  it("widens a citation's text from its chunk to take in a quote after or before it, so text holds quote", () => {
    const read = [passage(1, true), passage(2, true), passage(3, true)];
    placeQuotes(read, [quoteOf(1, 'Gamma three.'), quoteOf(2, 'Alpha one.'), quoteOf(3, 'Beta two.')]);
    expect(read.map((r) => [r.citation.text, r.citation.quote])).toEqual([
      ['Beta two. Gamma three.', 'Gamma three.'],
      ['Alpha one. Beta two.', 'Alpha one.'],
      ['Beta two.', 'Beta two.'],
    ]);
    for (const r of read) expect(r.citation.text).toContain(r.citation.quote);
  });

  it('keeps the text as indexed without a window, and quotes a passage without a quote whole', () => {
    const read = [passage(1, false), passage(2, true)];
    placeQuotes(read, [{ ...quoteOf(1, 'Beta two.'), start: 0, end: 4, text: 'Beta' }]);
    expect(read[0]?.citation).toMatchObject({ text: 'Beta two.', quote: 'Beta' });
    expect(read[1]?.citation).toMatchObject({ text: 'Beta two.', quote: 'Beta two.' });
  });

  it('completes a quote cut by the end of its passage from the page text', async () => {
    const quoted = async (withTexts: boolean) => {
      const s = settings(withTexts ? { texts } : {});
      const read = await readWindows(s, toCitations(chunks, requested), chunks);
      placeQuotes(read, (await passageReader(s, contextFor(s, QUESTION, requested))(read)).quotes);
      return read[0]?.citation;
    };
    const before = await quoted(false);
    expect(before?.quote).toBe(PAGE.slice(PAGE.indexOf('The tree'), CUT));
    const after = await quoted(true);
    const sentenceEnd = PAGE.indexOf('urophylla.') + 'urophylla.'.length;
    expect(after?.text).toBe(PAGE.slice(0, sentenceEnd));
    expect(after?.quote).toBe(PAGE.slice(PAGE.indexOf('The tree'), sentenceEnd));
  });
});
