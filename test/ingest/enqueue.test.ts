import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { enqueueIngest, formatEnqueueSummary } from '../../ingest/enqueue.js';
import type { IngestDeps } from '../../ingest/types.js';
import { createPgIngestQueue } from '../../src/adapters/postgres/ingest-queue.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../src/adapters/sqlite/vector-index.js';
import { createEmbedder } from '../../src/deps.js';
import { documentIdFor } from '../../src/domain/chunking.js';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import { createLogger } from '../../src/logger.js';
import type { Embedder } from '../../src/ports/embedder.js';
import type { IngestQueue } from '../../src/ports/ingest-queue.js';
import { pgAvailability } from '../contract/store-backends.js';
import { createFreshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { describeWithService } from '../support/services.js';

/**
 * `npm run ingest` with DATABASE_URL: the projects' documents discovered and queued on the real pg-boss queue in
 * PostgreSQL, beside SQLite stores and the USE embedder (whose id the index is checked against first).
 */

const logger = createLogger({ level: 'silent', name: 'test' });
const A: ProjectRef = { registry: 'Verra', projectId: 8101 };
const B: ProjectRef = { registry: 'Verra', projectId: 8102 };
const BASE = 'https://registry.verra.org/app/document';

function record(ref: ProjectRef, docs: { name: string; type: string }[]) {
  return {
    ref,
    format: 'registry-json' as const,
    raw: {
      registry: ref.registry,
      resourceIdentifier: String(ref.projectId),
      resourceName: `Project ${ref.projectId}`,
      documentGroups: [
        {
          code: 'VCS_PIPELINE_DOCUMENTS',
          description: 'Pipeline',
          documents: docs.map((d) => ({
            documentName: d.name,
            documentType: d.type,
            uploadDate: null,
            uri: `${BASE}/${ref.projectId}/${d.name}`,
          })),
        },
      ],
    },
  };
}

describeWithService('enqueueIngest', pgAvailability, () => {
  let embedder: Embedder;
  let pg: FreshDatabase;
  let queue: IngestQueue;
  let db: SqliteDatabase;
  let deps: IngestDeps;

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'use' }, { modelsDir: './models', allowRemoteModels: false, openai: {} });
  }, 120_000);
  afterAll(async () => {
    await embedder?.close();
  });

  beforeEach(async () => {
    pg = await createFreshDatabase('h2_enqueue');
    queue = await createPgIngestQueue({ connectionString: pg.url, retryDelaySeconds: 0, pollingIntervalSeconds: 0.5 });
    db = openSqlite({ dataDir: ':memory:' });
    deps = {
      records: await createSqliteRecordStore({ db }),
      states: await createSqliteDocumentStateStore({ db }),
      texts: await createSqliteDocumentTextStore({ db }),
      index: await createSqliteVectorIndex({ db }),
      embedder,
    };
    await deps.records.upsert([
      record(A, [
        { name: 'pd.pdf', type: 'Project Description' },
        { name: 'vr.pdf', type: 'Validation Report' },
        { name: 'area.kml', type: 'KML File' },
      ]),
      record(B, [{ name: 'boundary.kml', type: 'KML File' }]),
    ]);
  });
  afterEach(async () => {
    await queue.close();
    db.close();
    await pg.drop();
  });

  it('queues one job per PDF, records the other files at once, and never queues a waiting document twice', async () => {
    const summary = await enqueueIngest({ deps, queue, projects: [A, B, A], force: false, logger });
    expect(summary).toEqual({ projects: 2, documents: 4, queued: 2, alreadyWaiting: 0, skipped: 2, removed: 0 });
    expect(formatEnqueueSummary(summary)).toBe(
      '2 project(s), 4 document(s): 2 queued, 0 already waiting, 2 skipped (not a PDF), 0 removed',
    );
    const status = await queue.status();
    expect(status.queues.documents.created).toBe(2);
    // B has nothing to queue, so its enrichment is queued at once; A's follows its last document job.
    expect(status.queues.enrich.created).toBe(1);
    expect(await deps.states.get(A, documentIdFor(`${BASE}/${A.projectId}/area.kml`))).toMatchObject({ status: 'skipped' });
    expect(await deps.states.get(A, documentIdFor(`${BASE}/${A.projectId}/pd.pdf`))).toMatchObject({ status: 'pending' });

    const again = await enqueueIngest({ deps, queue, all: true, force: false, logger });
    expect(again).toMatchObject({ projects: 2, queued: 0, alreadyWaiting: 2 });
    expect((await queue.status()).queues.documents.created).toBe(2);
  }, 60_000);

  it('queues nothing when the index was built by another embedder', async () => {
    await deps.index.open({ embedderId: 'another-model', dimensions: embedder.dimensions });
    await expect(enqueueIngest({ deps, queue, projects: [A], force: false, logger })).rejects.toThrow(/another-model/);
    expect((await queue.status()).depth).toBe(0);
  }, 60_000);
});
