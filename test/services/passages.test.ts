import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { documentIdFor } from '../../src/domain/chunking.js';
import { AppError } from '../../src/errors.js';
import type { DocumentTextStore } from '../../src/ports/document-text-store.js';
import { createPassageService, type PassageService } from '../../src/services/passages.js';
import { createSearchService } from '../../src/services/search.js';
import { createSearchFixture, searchOptions, type SearchFixture } from './support/fixtures.js';

/**
 * The passage service over a real search service and SQLite stores. Its ids name the document by its address
 * (documentIdFor), so the document's state and page texts are kept under that id, as the ingest keeps them.
 */
const ref = { registry: 'Verra', projectId: 1650 };
const PAGES = [
  'The project reduces emissions from cookstoves in rural Malawi.',
  'The crediting period is ten years, from 1 March 2018 to 28 February 2028.',
];
const URI = 'https://docs.example.org/1650/pd.pdf';
let f: SearchFixture;
let texts: DocumentTextStore;
let passages: PassageService;

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

beforeAll(async () => {
  f = await createSearchFixture();
  texts = await createSqliteDocumentTextStore({ db: f.db });
  passages = createPassageService({ search: createSearchService(searchOptions(f)), documents: f.states, texts });
});
afterAll(async () => {
  await texts.close();
  await f.close();
});

describe('the passage service', () => {
  it('finds nothing while no document is indexed', async () => {
    expect(await passages.search('crediting period', 5)).toEqual([]);
  });

  it('searches every indexed project and reads a hit back by its id, with the whole page', async () => {
    await f.addDocument(ref, 'pd', PAGES);
    const documentId = documentIdFor(URI);
    const state = await f.states.get(ref, 'pd');
    if (state === null) throw new Error('fixture document missing');
    await f.states.put({ ...state, documentId, uri: URI, title: 'PD.pdf' });
    await texts.put(ref, documentId, PAGES);

    const hits = await passages.search('How long is the crediting period?', 5);
    const hit = hits.find((h) => h.id.endsWith(':2'));
    expect(hit).toEqual({ id: `verra:1650:${documentId}:2`, title: 'pd.pdf, page 2 (Verra 1650)', url: `${URI}#page=2` });

    const passage = await passages.fetch(hit?.id ?? '');
    expect(passage.text).toBe(PAGES[1]);
    expect(passage.title).toBe('PD.pdf, page 2 (Verra 1650)');
    expect(passage.metadata).toEqual({
      registry: 'Verra',
      projectId: 1650,
      documentTitle: 'PD.pdf',
      documentType: 'Project Description',
      uri: URI,
      page: 2,
      pages: 2,
    });
  });

  it('answers 400 for a string that is no passage id, and 404 for a page or document it does not hold', async () => {
    const bad = await refusal(passages.fetch('hello'));
    expect(bad.status).toBe(400);
    expect(bad.details[0]?.path).toBe('id');
    const documentId = documentIdFor(URI);
    expect((await refusal(passages.fetch(`verra:1650:${documentId}:3`))).message).toMatch(/has no page 3/);
    expect((await refusal(passages.fetch(`verra:1650:${'0'.repeat(32)}:1`))).status).toBe(404);
  });
});
