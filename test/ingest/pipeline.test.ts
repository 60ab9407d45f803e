import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIngest, type AfterProjectContext, type IngestSummary } from '../../ingest/pipeline.js';
import type { IngestDeps } from '../../ingest/types.js';
import { createEmbedder } from '../../src/deps.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../src/adapters/sqlite/vector-index.js';
import { chunkIdFor, documentIdFor } from '../../src/domain/chunking.js';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import { createHttpDownloader } from '../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../src/adapters/download/url-policy.js';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import { createLogger } from '../../src/logger.js';
import type { Embedder } from '../../src/ports/embedder.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';
import { makePdf } from './support/make-pdf.js';

/**
 * The pipeline over real SQLite stores, the real USE embedder and real HTTP, with small generated PDFs so each run
 * takes seconds. The server's documents can be changed between runs.
 */

const logger = createLogger({ level: 'silent', name: 'test' });
const files = new Map<string, { body: Buffer; type: string }>();
let server: StaticServer;
let db: SqliteDatabase;
let deps: IngestDeps;
let embedCalls = 0;

const A: ProjectRef = { registry: 'Verra', projectId: 101 };
const B: ProjectRef = { registry: 'CDM', projectId: 202 };

const pageText = (topic: string, n: number): string =>
  Array.from({ length: n }, (_, i) => `The ${topic} section, paragraph ${i + 1}, describes monitoring of carbon stocks.`).join('\n');

function serve(req: IncomingMessage, res: ServerResponse): boolean {
  const f = files.get(new URL(req.url ?? '/', 'http://x').pathname);
  if (!f) return false;
  res.writeHead(200, { 'content-type': f.type, 'content-length': f.body.length });
  res.end(f.body);
  return true;
}

function record(ref: ProjectRef, docs: { name: string; path: string; type?: string; uploaded?: string }[]) {
  return {
    ref,
    format: 'registry-json' as const,
    raw: {
      registry: ref.registry,
      resourceIdentifier: String(ref.projectId),
      resourceName: `Project ${ref.projectId} ${ref.projectId === 101 ? 'Quokka Highlands' : 'Wombat Plains'}`,
      documentGroups: [
        {
          code: 'VCS_PIPELINE_DOCUMENTS',
          description: 'Pipeline',
          documents: docs.map((d) => ({
            documentName: d.name,
            documentType: d.type ?? 'Project Description',
            uploadDate: d.uploaded ?? '2024-01-01T00:00:00.000Z',
            uri: `${server.baseUrl}${d.path}`,
          })),
        },
      ],
    },
  };
}

/** One extraction pool for the file, as a root owns one for its process. */
const extractor = createPdfExtractor();

async function run(
  projects: ProjectRef[],
  extra: { afterProject?: (ref: ProjectRef, ctx: AfterProjectContext) => Promise<void> } = {},
): Promise<IngestSummary> {
  return runIngest({
    deps,
    projects,
    logger,
    downloader: createHttpDownloader({ policy: createUrlPolicy([server.hostPort]), retries: 0, timeoutMs: 5000 }),
    extractor,
    sentenceVectors: true,
    ...extra,
  });
}

async function chunkIds(ref: ProjectRef, path: string): Promise<string[]> {
  return deps.index.documentChunkIds(ref, documentIdFor(`${server.baseUrl}${path}`));
}

beforeAll(async () => {
  server = await startStaticServer({ handlers: [serve] });
  db = openSqlite({ dataDir: ':memory:' });
  const real = await createEmbedder({ kind: 'use' }, { modelsDir: './models', allowRemoteModels: false, openai: {} });
  // Counts calls through to the real model, to prove unchanged documents are not re-embedded.
  const embedder: Embedder = {
    id: real.id,
    dimensions: real.dimensions,
    maxBatchSize: real.maxBatchSize,
    maxInputTokens: real.maxInputTokens,
    embed: (texts, kind) => {
      embedCalls++;
      return real.embed(texts, kind);
    },
    close: () => real.close(),
  };
  deps = {
    records: await createSqliteRecordStore({ db }),
    states: await createSqliteDocumentStateStore({ db }),
    texts: await createSqliteDocumentTextStore({ db }),
    index: await createSqliteVectorIndex({ db }),
    embedder,
  };
  files.set('/a1.pdf', { body: makePdf([pageText('baseline', 3), pageText('leakage', 40)]), type: 'application/pdf' });
  files.set('/a2.pdf', { body: makePdf(['', ''], { textLayer: false }), type: 'application/pdf' });
  files.set('/b1.pdf', { body: makePdf([pageText('additionality', 2)]), type: 'application/pdf' });
  await deps.records.upsert([
    record(A, [
      { name: 'a1.pdf', path: '/a1.pdf' },
      { name: 'scan.pdf', path: '/a2.pdf' },
      { name: 'Area.kml', path: '/area.kml', type: 'KML File' },
      { name: 'gone.pdf', path: '/missing.pdf' },
    ]),
    record(B, [{ name: 'b1.pdf', path: '/b1.pdf' }]),
  ]);
});

afterAll(async () => {
  await extractor.close();
  await deps?.embedder.close();
  db?.close();
  await server?.close();
});

describe('runIngest', () => {
  it('indexes every PDF, records skipped / needs_ocr / failed documents with reasons, and calls afterProject', async () => {
    const seen: { ref: ProjectRef; outcomes: string[] }[] = [];
    const summary = await run([A, B], {
      afterProject: async (ref, ctx) => {
        seen.push({ ref, outcomes: ctx.documents.map((d) => d.outcome?.kind ?? 'none').sort() });
      },
    });
    expect(summary.documents).toEqual({
      total: 5,
      indexed: 2,
      unchanged: 0,
      skipped: 1,
      needsOcr: 1,
      failed: 1,
      removed: 0,
      heldByOtherRun: 0,
    });
    expect(summary.pages).toBe(3);
    expect(summary.failures).toEqual([
      expect.objectContaining({ project: 'Verra:101', uri: `${server.baseUrl}/missing.pdf`, reason: 'download: HTTP 404 Not Found' }),
    ]);
    expect(server.requests).not.toContain('/area.kml');
    expect(seen.map((s) => s.ref.projectId).sort()).toEqual([101, 202]);
    expect(seen.find((s) => s.ref.projectId === 101)?.outcomes).toEqual(['failed', 'indexed', 'needs_ocr', 'skipped']);

    const states = await deps.states.list({ projects: [A] });
    const byTitle = new Map(states.map((s) => [s.title, s]));
    expect(byTitle.get('a1.pdf')).toMatchObject({ status: 'indexed', pages: 2, embedderId: 'use-lite-512', reason: null });
    expect(byTitle.get('scan.pdf')).toMatchObject({ status: 'needs_ocr', reason: expect.stringMatching(/OCR/) });
    expect(byTitle.get('Area.kml')).toMatchObject({ status: 'skipped', reason: 'not a PDF (document type KML File)' });
    expect(byTitle.get('gone.pdf')).toMatchObject({ status: 'failed', reason: 'download: HTTP 404 Not Found' });

    // Chunks carry their page; page 2 of a1 is long enough to need several chunks.
    const a1 = byTitle.get('a1.pdf');
    const ids = await chunkIds(A, '/a1.pdf');
    expect(ids.length).toBe(a1?.chunks);
    expect(ids.length).toBeGreaterThan(2);
    const hits = await deps.index.searchText('leakage', [A], 50);
    expect(hits.length).toBeGreaterThan(1);
    for (const h of hits) {
      expect(h.page).toBe(2);
      expect(h.id).toBe(chunkIdFor({ registry: 'Verra', projectId: 101, documentId: h.documentId, page: h.page, offset: h.offset }));
    }
    expect((await deps.index.searchText('additionality', [A], 5)).length).toBe(0);
    expect((await deps.index.searchText('additionality', [B], 5)).length).toBe(1);
    // The sentences of every chunk (its paragraphs here, several a chunk) were embedded and stored beside it.
    const sentenceBytes = new Map(
      (db.prepare('SELECT id, length(sentence_embeddings) AS bytes FROM chunks').all() as { id: string; bytes: number | null }[]).map(
        (r) => [r.id, r.bytes ?? 0],
      ),
    );
    for (const id of ids) {
      expect((sentenceBytes.get(id) ?? 0) % (512 * 4)).toBe(0);
      expect(sentenceBytes.get(id) ?? 0).toBeGreaterThanOrEqual(2 * 512 * 4);
    }
    // Every chunk is findable by its project's name (search context), though no passage quotes it.
    const byName = await deps.index.searchText('quokka highlands', [A, B], 50);
    expect(byName.map((h) => h.id).sort()).toEqual([...ids].sort());
    for (const h of byName) expect(h.text).not.toMatch(/quokka/i);
    expect(await deps.texts.get(A, documentIdFor(`${server.baseUrl}/a1.pdf`))).toEqual([pageText('baseline', 3), pageText('leakage', 40)]);
  });

  it('skips unchanged documents without embedding again', async () => {
    const before = await chunkIds(A, '/a1.pdf');
    embedCalls = 0;
    const summary = await run([A, B]);
    expect(embedCalls).toBe(0);
    expect(summary.documents).toMatchObject({ indexed: 0, unchanged: 3, skipped: 1, failed: 1 });
    expect(await chunkIds(A, '/a1.pdf')).toEqual(before);
  });

  it('replaces the chunks of a changed document, and keeps an indexed one when its download fails', async () => {
    const oldIds = await chunkIds(A, '/a1.pdf');
    files.set('/a1.pdf', { body: makePdf([pageText('baseline', 1)]), type: 'application/pdf' });
    const bBefore = await chunkIds(B, '/b1.pdf');
    files.delete('/b1.pdf');
    const summary = await run([A, B]);
    expect(summary.documents).toMatchObject({ indexed: 1, failed: 2 });
    const newIds = await chunkIds(A, '/a1.pdf');
    expect(newIds.length).toBe(1);
    expect(oldIds).toContain(newIds[0]);
    expect((await deps.index.searchText('leakage', [A], 5)).length).toBe(0);
    // b1 could not be fetched this time: its earlier index stays searchable and its state stays indexed.
    expect(await chunkIds(B, '/b1.pdf')).toEqual(bBefore);
    expect((await deps.states.list({ projects: [B] }))[0]?.status).toBe('indexed');
    files.set('/b1.pdf', { body: makePdf([pageText('additionality', 2)]), type: 'application/pdf' });
  });

  it('removes chunks, text and state of a document its record no longer lists', async () => {
    const id = documentIdFor(`${server.baseUrl}/a1.pdf`);
    await deps.records.upsert([record(A, [{ name: 'scan.pdf', path: '/a2.pdf' }])]);
    const summary = await run([A]);
    expect(summary.documents.removed).toBe(3);
    expect(await deps.index.documentChunkIds(A, id)).toEqual([]);
    expect(await deps.texts.get(A, id)).toBeNull();
    expect((await deps.states.list({ projects: [A] })).map((s) => s.title)).toEqual(['scan.pdf']);
  });

  it('heals a run killed between writing chunks and marking the document indexed', async () => {
    await deps.records.upsert([record(A, [{ name: 'a1.pdf', path: '/a1.pdf' }])]);
    files.set('/a1.pdf', { body: makePdf([pageText('baseline', 3), pageText('leakage', 40)]), type: 'application/pdf' });
    await run([A]);
    const clean = await chunkIds(A, '/a1.pdf');
    const id = documentIdFor(`${server.baseUrl}/a1.pdf`);
    const state = (await deps.states.list({ projects: [A] })).find((s) => s.documentId === id);
    if (!state) throw new Error('a1 state missing');
    // What a kill leaves behind: state pending (no hash), a stray chunk that the document no longer has.
    await deps.states.put({ ...state, status: 'pending', contentHash: null, chunks: null });
    const stray = chunkIdFor({ registry: 'Verra', projectId: 101, documentId: id, page: 9, offset: 0 });
    await deps.index.upsert([
      {
        id: stray,
        registry: 'Verra',
        projectId: 101,
        documentId: id,
        documentTitle: 'a1.pdf',
        documentType: 'Project Description',
        uri: `${server.baseUrl}/a1.pdf`,
        page: 9,
        offset: 0,
        text: 'half-written chunk',
        vector: (await deps.embedder.embed(['half-written chunk']))[0] ?? new Float32Array(512),
      },
    ]);
    const summary = await run([A]);
    expect(summary.documents.indexed).toBe(1);
    expect(await chunkIds(A, '/a1.pdf')).toEqual(clean);
    expect((await deps.states.list({ projects: [A] }))[0]?.status).toBe('indexed');
  });

  it('processes every stored project with all: true, and nothing without projects', async () => {
    const downloader = createHttpDownloader({ policy: createUrlPolicy([server.hostPort]) });
    expect((await runIngest({ deps, logger, downloader, extractor })).documents.total).toBe(0);
    const summary = await runIngest({ deps, all: true, logger, downloader, extractor });
    expect(summary.projects).toBe(2);
    expect(summary.documents.unchanged).toBe(2);
  });

  it('stops with the store error when a store is gone (fatal, not a per-document failure)', async () => {
    const broken: IngestDeps = {
      ...deps,
      states: {
        ...deps.states,
        list: async () => {
          const { DependencyError } = await import('../../src/errors.js');
          throw new DependencyError('document state store', 'database is locked');
        },
      },
    };
    const downloader = createHttpDownloader({ policy: createUrlPolicy([server.hostPort]) });
    await expect(runIngest({ deps: broken, projects: [A], logger, downloader, extractor })).rejects.toThrow(/database is locked/);
  });
});
