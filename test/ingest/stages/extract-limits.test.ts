import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIngest } from '../../../ingest/pipeline.js';
import { createPdfExtractor } from '../../../ingest/stages/extract.js';
import type { PdfExtractor } from '../../../ingest/types.js';
import type { IngestDeps } from '../../../ingest/types.js';
import { createEmbedder } from '../../../src/deps.js';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../../src/adapters/sqlite/vector-index.js';
import type { ProjectRef } from '../../../src/domain/project-ref.js';
import { createHttpDownloader } from '../../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../../src/adapters/download/url-policy.js';
import { createLogger } from '../../../src/logger.js';
import { startStaticServer, type StaticServer } from '../../support/static-server.js';
import { hugePagePdf, hugeStringPdf, manyPagesPdf, repeatedLinePdf } from '../support/hostile-pdf.js';
import { makePdf } from '../support/make-pdf.js';

/**
 * PDF bombs against the extraction limits (EXTRACT_*): each limit trips, the document fails naming it, the
 * ingestion process keeps running meanwhile, and the next document is extracted (and indexed) as usual.
 */

const normal = (): Buffer => makePdf(['A normal page about the baseline scenario and monitoring of carbon stocks.']);
const NORMAL_PAGES = ['A normal page about the baseline scenario and monitoring of carbon stocks.'];

describe('extraction limits', () => {
  const extractors: PdfExtractor[] = [];
  const make = (...args: Parameters<typeof createPdfExtractor>): PdfExtractor => {
    const e = createPdfExtractor(...args);
    extractors.push(e);
    return e;
  };
  afterAll(async () => {
    await Promise.all(extractors.map((e) => e.close()));
  });

  it('fails a PDF with more pages than maxPages before reading them, then extracts the next', async () => {
    const ex = make({ maxPages: 1000 });
    expect(await ex.extract(manyPagesPdf(5000))).toEqual({
      ok: false,
      kind: 'failed',
      reason: 'PDF has 5000 pages, more than the limit of 1000 (EXTRACT_MAX_PAGES)',
    });
    expect(await ex.extract(normal())).toEqual({ ok: true, pages: NORMAL_PAGES, ocrPages: [] });
  });

  it('fails a PDF whose text passes maxTextChars at the page that crosses it', async () => {
    const ex = make({ maxTextChars: 10_000 });
    // 53 characters a page: page 189 crosses 10,000.
    const r = await ex.extract(manyPagesPdf(500));
    expect(r).toEqual({
      ok: false,
      kind: 'failed',
      reason: 'PDF text exceeds the limit of 10000 characters at page 189 of 500 (EXTRACT_MAX_TEXT_CHARS)',
    });
  });

  it('stops a page that takes longer than timeoutMs, keeps the event loop free meanwhile, and goes on', async () => {
    const ex = make({ timeoutMs: 1500 });
    // Warm the process, so the limit applies to the bomb and not to loading pdf.js.
    expect((await ex.extract(normal())).ok).toBe(true);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 50);
    const started = performance.now();
    // 20 MB of text operators on one page: about 8 million characters, seconds to parse, a gigabyte of heap.
    const r = await ex.extract(hugePagePdf(20_000_000));
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(r).toEqual({ ok: false, kind: 'failed', reason: 'extraction took longer than the limit of 1500 ms (EXTRACT_TIMEOUT_MS)' });
    // The parse ran in another process: this one ran its timer all along (at least half of its ticks).
    expect(ticks).toBeGreaterThanOrEqual(Math.floor(elapsed / 50 / 2));
    expect(await ex.extract(normal())).toEqual({ ok: true, pages: NORMAL_PAGES, ocrPages: [] });
  });
});

describe('a run with PDF bombs', () => {
  const logger = createLogger({ level: 'silent', name: 'test' });
  const files = new Map<string, Buffer>();
  const ref: ProjectRef = { registry: 'Verra', projectId: 301 };
  let server: StaticServer;
  let db: SqliteDatabase;
  let deps: IngestDeps;

  function serve(req: IncomingMessage, res: ServerResponse): boolean {
    const body = files.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!body) return false;
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
    res.end(body);
    return true;
  }

  beforeAll(async () => {
    server = await startStaticServer({ handlers: [serve] });
    db = openSqlite({ dataDir: ':memory:' });
    deps = {
      records: await createSqliteRecordStore({ db }),
      states: await createSqliteDocumentStateStore({ db }),
      texts: await createSqliteDocumentTextStore({ db }),
      index: await createSqliteVectorIndex({ db }),
      embedder: await createEmbedder({ kind: 'use' }, { modelsDir: './models', allowRemoteModels: false, openai: {} }),
    };
    files.set('/pages-bomb.pdf', manyPagesPdf(20_000));
    // One 50-million-character string literal, which pdf.js assembles a character at a time: past 300 MB of heap.
    files.set('/memory-bomb.pdf', hugeStringPdf(50_000_000));
    // Issue 45: one page inflating to about a million characters of one line, and one of 40,000 (under the page cap).
    files.set('/line-bomb.pdf', repeatedLinePdf(1_500_000));
    files.set('/repeated-line.pdf', repeatedLinePdf(60_000));
    files.set('/normal.pdf', normal());
    await deps.records.upsert([
      {
        ref,
        format: 'registry-json',
        raw: {
          registry: 'Verra',
          resourceIdentifier: '301',
          resourceName: 'Project 301',
          documentGroups: [
            {
              code: 'VCS_PIPELINE_DOCUMENTS',
              description: 'Pipeline',
              documents: [...files.keys()].map((p) => ({
                documentName: p.slice(1),
                documentType: 'Project Description',
                uploadDate: '2024-01-01T00:00:00.000Z',
                uri: `${server.baseUrl}${p}`,
              })),
            },
          ],
        },
      },
    ]);
  }, 120_000);

  const extractor = createPdfExtractor({ maxPages: 1000, maxMemoryMb: 300 });
  afterAll(async () => {
    await extractor.close();
    await deps?.embedder.close();
    db?.close();
    await server?.close();
  });

  // The memory limit is tested here only: an extraction process dead of its heap inside a run, the run (and this
  // process: nodejs/node#47224 aborted it with worker threads) going on.
  it('fails each bomb with the limit it passed, and indexes the document after them', async () => {
    const summary = await runIngest({
      deps,
      projects: [ref],
      logger,
      downloader: createHttpDownloader({ policy: createUrlPolicy([server.hostPort]), retries: 0, timeoutMs: 10_000 }),
      extractor,
      prepareConcurrency: 1,
    });
    expect(summary.documents).toMatchObject({ total: 5, indexed: 1, failed: 3, skipped: 1 });
    const states = await deps.states.list({ projects: [ref] });
    const byUri = Object.fromEntries(states.map((s) => [new URL(s.uri).pathname, s]));
    expect(byUri['/pages-bomb.pdf']).toMatchObject({
      status: 'failed',
      reason: 'extract: PDF has 20000 pages, more than the limit of 1000 (EXTRACT_MAX_PAGES)',
    });
    expect(byUri['/memory-bomb.pdf']).toMatchObject({
      status: 'failed',
      reason: 'extract: extraction exceeded the memory limit of 300 MB (EXTRACT_MAX_MEMORY_MB)',
    });
    expect(byUri['/line-bomb.pdf']).toMatchObject({ status: 'failed', chunks: null });
    expect(byUri['/line-bomb.pdf']?.reason).toMatch(
      /^extract: page 1 of 1 has \d+ characters of text, more than a page holds \(limit 100000, EXTRACT_MAX_PAGE_CHARS\)$/,
    );
    expect(byUri['/repeated-line.pdf']).toMatchObject({ status: 'skipped', chunks: null });
    expect(byUri['/repeated-line.pdf']?.reason).toMatch(
      /^extract: the text is mostly one line repeated \("The baseline scenario is monitored every year by the project proponent\." [\d,]+ times, 100% of the text\): not indexed$/,
    );
    expect(byUri['/normal.pdf']).toMatchObject({ status: 'indexed' });
    // No chunk of the bombs reached the index or the text store: the project's only chunks are the normal document's.
    for (const bomb of ['/line-bomb.pdf', '/repeated-line.pdf']) {
      const id = byUri[bomb]?.documentId ?? '';
      expect(await deps.index.documentChunkIds(ref, id)).toEqual([]);
      expect(await deps.texts.get(ref, id)).toBeNull();
    }
    expect((await deps.index.countChunks([ref])).get('Verra:301')).toBe(byUri['/normal.pdf']?.chunks);
  }, 120_000);

  it('the repeated-line document is skipped again as unchanged, not re-extracted', async () => {
    const summary = await runIngest({
      deps,
      projects: [ref],
      logger,
      downloader: createHttpDownloader({ policy: createUrlPolicy([server.hostPort]), retries: 0, timeoutMs: 10_000 }),
      extractor,
      prepareConcurrency: 1,
    });
    expect(summary.documents).toMatchObject({ total: 5, unchanged: 2, failed: 3 });
  }, 120_000);
});
