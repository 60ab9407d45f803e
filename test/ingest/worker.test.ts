import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import type { IngestDeps } from '../../ingest/types.js';
import { createWorkerHandlers } from '../../ingest/worker.js';
import { createHttpDownloader } from '../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../src/adapters/download/url-policy.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../src/adapters/sqlite/vector-index.js';
import { createExtractiveSummarizer } from '../../src/adapters/summarizers/extractive.js';
import { createEmbedder } from '../../src/deps.js';
import { documentIdFor } from '../../src/domain/chunking.js';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import { createLogger } from '../../src/logger.js';
import type { ClaimedDocumentJob, IngestJobHandlers } from '../../src/ports/ingest-queue.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';
import { makePdf } from './support/make-pdf.js';

/**
 * What a queue worker does with a claimed job, over real components: SQLite stores, the USE embedder, the HTTP
 * downloader against a local server, the PDF extractor in its child processes, the extractive summariser. The queue
 * itself (pg-boss) is tested in test/adapters/postgres/ingest-queue.test.ts.
 */

const logger = createLogger({ level: 'silent', name: 'test' });
const REF: ProjectRef = { registry: 'Verra', projectId: 7001 };
const PAGE =
  'The project restores 1,200 hectares of degraded mangrove forest in the Rufiji delta. Community nurseries raise the ' +
  'seedlings, and survival is monitored every year on permanent sample plots.';

let server: StaticServer;
let db: SqliteDatabase;
let deps: IngestDeps;
let handlers: IngestJobHandlers;
const extractor = createPdfExtractor();
let busyCalls = 0;

function serve(req: IncomingMessage, res: ServerResponse): boolean {
  const { pathname } = new URL(req.url ?? '/', 'http://x');
  if (pathname === '/pd.pdf') {
    const body = makePdf([PAGE, PAGE.replace('1,200', '1,300')]);
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
    res.end(body);
    return true;
  }
  if (pathname === '/busy.pdf') {
    busyCalls++;
    res.writeHead(503);
    res.end();
    return true;
  }
  return false;
}

const job = (path: string, over: Partial<ClaimedDocumentJob> = {}): ClaimedDocumentJob => ({
  jobId: `job-${path}`,
  ref: REF,
  documentId: documentIdFor(`${server.baseUrl}${path}`),
  uri: `${server.baseUrl}${path}`,
  title: path.slice(1),
  documentType: 'Project Description',
  uploadDate: '2024-01-01T00:00:00.000Z',
  force: false,
  attempt: 1,
  lastAttempt: false,
  ...over,
});

beforeAll(async () => {
  server = await startStaticServer({ handlers: [serve] });
  db = openSqlite({ dataDir: ':memory:' });
  const embedder = await createEmbedder({ kind: 'use' }, { modelsDir: './models', allowRemoteModels: false, openai: {} });
  deps = {
    records: await createSqliteRecordStore({ db }),
    states: await createSqliteDocumentStateStore({ db }),
    texts: await createSqliteDocumentTextStore({ db }),
    index: await createSqliteVectorIndex({ db }),
    embedder,
  };
  await deps.index.open({ embedderId: embedder.id, dimensions: embedder.dimensions });
  const documents = ['/pd.pdf', '/busy.pdf'].map((p) => ({
    documentName: p.slice(1),
    documentType: 'Project Description',
    uploadDate: '2024-01-01T00:00:00.000Z',
    uri: `${server.baseUrl}${p}`,
  }));
  await deps.records.upsert([
    {
      ref: REF,
      format: 'registry-json',
      raw: {
        registry: 'Verra',
        resourceIdentifier: String(REF.projectId),
        resourceName: 'Rufiji Mangrove Restoration',
        documentGroups: [{ code: 'VCS_PIPELINE_DOCUMENTS', description: 'Pipeline', documents }],
      },
    },
  ]);
  handlers = createWorkerHandlers({
    deps,
    downloader: createHttpDownloader({ policy: createUrlPolicy([server.hostPort]), retries: 0, timeoutMs: 10_000 }),
    extractor,
    summarizer: createExtractiveSummarizer(),
    logger,
  });
}, 120_000);

afterAll(async () => {
  await extractor.close();
  await deps?.embedder.close();
  db?.close();
  await server?.close();
});

describe('queue worker handlers', () => {
  it('indexes a document job and records its state', async () => {
    const result = await handlers.document(job('/pd.pdf'));
    expect(result).toEqual({ status: 'done', outcome: 'indexed', indexed: true, failed: false });
    const state = await deps.states.get(REF, job('/pd.pdf').documentId);
    expect(state).toMatchObject({ status: 'indexed', pages: 2, embedderId: deps.embedder.id });
    expect((await deps.index.documentChunkIds(REF, job('/pd.pdf').documentId)).length).toBeGreaterThan(0);
    expect(await deps.texts.get(REF, job('/pd.pdf').documentId)).toHaveLength(2);
  });

  it('finds the same document unchanged on a second job, and re-embeds it when forced', async () => {
    expect(await handlers.document(job('/pd.pdf'))).toMatchObject({ status: 'done', outcome: 'unchanged', indexed: false });
    expect(await handlers.document(job('/pd.pdf', { force: true }))).toMatchObject({ status: 'done', outcome: 'indexed' });
  });

  it('hands a failure that may pass back to the queue, leaving the state, until the last attempt records it', async () => {
    const id = job('/busy.pdf').documentId;
    const before = await deps.states.get(REF, id);
    const retry = await handlers.document(job('/busy.pdf'));
    expect(retry).toEqual({ status: 'retry', reason: expect.stringContaining('503') });
    expect(await deps.states.get(REF, id)).toEqual(before);

    const last = await handlers.document(job('/busy.pdf', { attempt: 4, lastAttempt: true }));
    expect(last).toMatchObject({ status: 'done', outcome: 'failed', failed: true, indexed: false });
    expect(await deps.states.get(REF, id)).toMatchObject({ status: 'failed', reason: expect.stringContaining('503') });
    expect(busyCalls).toBe(2);
  });

  it('drops the job of a project that is no longer stored', async () => {
    const gone = { ...job('/pd.pdf'), ref: { registry: 'Verra', projectId: 9 } };
    expect(await handlers.document(gone)).toEqual({
      status: 'done',
      outcome: 'skipped',
      reason: 'project no longer stored',
      indexed: false,
      failed: false,
    });
  });

  it("derives the project's summary from its indexed documents in the enrich job", async () => {
    await handlers.enrich({ ref: REF, changed: true, force: false });
    const stored = await deps.records.get(REF);
    expect(stored?.enrichment.summary).toMatch(/mangrove/i);
  });
});
