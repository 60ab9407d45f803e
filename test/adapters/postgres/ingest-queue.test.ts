import { afterEach, beforeEach, expect, it } from 'vitest';
import { createPgPool, type PgPool } from '../../../src/adapters/postgres/database.js';
import { createPgIngestQueue, DOCUMENT_LOCK, type PgIngestQueueOptions } from '../../../src/adapters/postgres/ingest-queue.js';
import type {
  ClaimedDocumentJob,
  DocumentJob,
  DocumentJobResult,
  EnrichJob,
  IngestJobHandlers,
  IngestQueue,
} from '../../../src/ports/ingest-queue.js';
import { pgAvailability } from '../../contract/store-backends.js';
import { createFreshDatabase, type FreshDatabase } from '../../support/pg-database.js';
import { describeWithService } from '../../support/services.js';

/**
 * The pg-boss job queue on the real PostgreSQL: de-duplicated enqueueing, retries with a limit and the reason kept,
 * failures that end at once, enrichment queued once per project after its last document, lease renewal for a long
 * document, and the per-document lock that keeps a second worker off a document a live worker still holds.
 */

const doc = (projectId: number, documentId: string): DocumentJob => ({
  ref: { registry: 'Verra', projectId },
  documentId,
  uri: `http://127.0.0.1:9/${documentId}.pdf`,
  title: documentId,
  documentType: 'Project Description',
  uploadDate: null,
  force: false,
});

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describeWithService('PostgreSQL ingest queue (pg-boss)', pgAvailability, () => {
  let db: FreshDatabase;
  let pool: PgPool;
  const queues: IngestQueue[] = [];
  const stops: AbortController[] = [];

  beforeEach(async () => {
    db = await createFreshDatabase('h2_queue');
    pool = createPgPool(db.url, { max: 2 });
  });

  afterEach(async () => {
    for (const s of stops.splice(0)) s.abort();
    for (const q of queues.splice(0)) await q.close();
    await pool.end();
    await db.drop();
  });

  async function open(over: Partial<PgIngestQueueOptions> = {}): Promise<IngestQueue> {
    const q = await createPgIngestQueue({ connectionString: db.url, retryDelaySeconds: 0, pollingIntervalSeconds: 0.5, ...over });
    queues.push(q);
    return q;
  }

  /** Starts a worker loop on `q`; returns the promise of work() (it resolves after the stop). */
  function work(q: IngestQueue, handlers: IngestJobHandlers, name = 'test-worker', concurrency = 2): Promise<void> {
    const stop = new AbortController();
    stops.push(stop);
    return q.work(handlers, { concurrency, workerName: name, signal: stop.signal });
  }

  it('queues a waiting document once, runs each job, and enriches each project once after its last document', async () => {
    const q = await open();
    const first = await q.enqueueDocuments([doc(1, 'a'), doc(1, 'b'), doc(2, 'c')]);
    expect(first).toEqual({ queued: 3, alreadyWaiting: 0 });
    expect(await q.enqueueDocuments([doc(1, 'a')])).toEqual({ queued: 0, alreadyWaiting: 1 });
    expect((await q.status()).depth).toBe(3);

    const ran: string[] = [];
    const enriched: EnrichJob[] = [];
    void work(q, {
      async document(job) {
        ran.push(`${job.ref.projectId}/${job.documentId}`);
        await new Promise((r) => setTimeout(r, 50));
        const indexed = job.documentId !== 'b';
        return { status: 'done', outcome: indexed ? 'indexed' : 'unchanged', indexed, failed: false };
      },
      async enrich(job) {
        enriched.push(job);
      },
    });
    await until(async () => (await q.status()).queues.enrich.completed === 2);
    expect(ran.sort()).toEqual(['1/a', '1/b', '2/c']);
    expect(enriched.map((e) => [e.ref.projectId, e.changed]).sort()).toEqual([
      [1, true],
      [2, true],
    ]);
    const status = await q.status();
    expect(status.queues.documents).toMatchObject({ created: 0, retry: 0, active: 0, completed: 3, failed: 0 });
    expect(status.depth).toBe(0);
    const claims = await pool.query('SELECT document_id, worker, attempt, outcome, finished_at FROM ingest_claims ORDER BY document_id');
    expect(claims.rows.map((r: { document_id: string; outcome: string }) => [r.document_id, r.outcome])).toEqual([
      ['a', 'indexed'],
      ['b', 'unchanged'],
      ['c', 'indexed'],
    ]);
    expect(
      claims.rows.every((r: { finished_at: Date | null; worker: string }) => r.finished_at !== null && r.worker === 'test-worker'),
    ).toBe(true);
  });

  it("a project enrichment still waiting takes over a later run's change instead of being queued twice", async () => {
    const q = await open();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const enriched: EnrichJob[] = [];
    let indexNext = false;
    void work(q, {
      async document() {
        const indexed = indexNext;
        return { status: 'done', outcome: indexed ? 'indexed' : 'unchanged', indexed, failed: false };
      },
      async enrich(job) {
        // Project 8's enrichment holds the one enrichment loop, so project 9's waits in the queue meanwhile.
        if (job.ref.projectId === 8) await gate;
        enriched.push(job);
      },
    });
    await q.enqueueDocuments([doc(8, 'x')]);
    await until(async () => (await q.status()).queues.enrich.active === 1);
    await q.enqueueDocuments([doc(9, 'a')]);
    await until(async () => (await q.status()).queues.enrich.created === 1);
    indexNext = true;
    await q.enqueueDocuments([doc(9, 'b')]);
    await until(async () => (await q.status()).queues.documents.completed === 3);
    expect((await q.status()).queues.enrich.created).toBe(1);
    release();
    await until(async () => (await q.status()).queues.enrich.completed === 2);
    expect(enriched.map((e) => [e.ref.projectId, e.changed])).toEqual([
      [8, false],
      [9, true],
    ]);
  });

  it('retries a mendable failure with the attempt number, then ends failed with the reason after the limit', async () => {
    const q = await open({ retryLimit: 2 });
    await q.enqueueDocuments([doc(3, 'flaky')]);
    const attempts: { attempt: number; lastAttempt: boolean }[] = [];
    void work(q, {
      async document(job): Promise<DocumentJobResult> {
        attempts.push({ attempt: job.attempt, lastAttempt: job.lastAttempt });
        return { status: 'retry', reason: `download: HTTP 503 Service Unavailable (try ${job.attempt})` };
      },
      async enrich() {},
    });
    await until(async () => (await q.status()).queues.documents.failed === 1);
    expect(attempts).toEqual([
      { attempt: 1, lastAttempt: false },
      { attempt: 2, lastAttempt: false },
      { attempt: 3, lastAttempt: true },
    ]);
    const status = await q.status();
    expect(status.failed).toHaveLength(1);
    expect(status.failed[0]).toMatchObject({ project: 'Verra:3', documentId: 'flaky', attempts: 3 });
    expect(status.failed[0]?.reason).toBe('download: HTTP 503 Service Unavailable (try 3)');
    // The project's last job settled (as failed): its enrichment still runs once.
    await until(async () => (await q.status()).queues.enrich.completed === 1);
  });

  it('ends a failure that another attempt cannot mend at once, with its reason', async () => {
    const q = await open({ retryLimit: 3 });
    await q.enqueueDocuments([doc(4, 'gone')]);
    let calls = 0;
    void work(q, {
      async document() {
        calls++;
        return { status: 'done', outcome: 'failed', reason: 'download: HTTP 404 Not Found', indexed: false, failed: true };
      },
      async enrich() {},
    });
    await until(async () => (await q.status()).queues.documents.failed === 1);
    expect(calls).toBe(1);
    expect((await q.status()).failed[0]).toMatchObject({ attempts: 1, reason: 'download: HTTP 404 Not Found' });
  });

  it('a handler that throws is retried, its error kept as the reason', async () => {
    const q = await open({ retryLimit: 1 });
    await q.enqueueDocuments([doc(5, 'bug')]);
    void work(q, {
      async document() {
        throw new Error('something unexpected');
      },
      async enrich() {},
    });
    await until(async () => (await q.status()).queues.documents.failed === 1);
    expect((await q.status()).failed[0]).toMatchObject({ attempts: 2, reason: 'internal: something unexpected' });
  });

  it('renews the lease of a document that takes longer than the lease: no other worker takes it', async () => {
    const q1 = await open({ leaseSeconds: 4 });
    const q2 = await open({ leaseSeconds: 4 });
    await q1.enqueueDocuments([doc(6, 'long')]);
    const seen: string[] = [];
    const slow = (who: string): IngestJobHandlers => ({
      async document(job: ClaimedDocumentJob) {
        seen.push(`${who}:${job.attempt}`);
        await new Promise((r) => setTimeout(r, 9_000));
        return { status: 'done', outcome: 'indexed', indexed: true, failed: false };
      },
      async enrich() {},
    });
    void work(q1, slow('w1'), 'w1', 1);
    await until(() => seen.length === 1);
    void work(q2, slow('w2'), 'w2', 1);
    await until(async () => (await q1.status()).queues.documents.completed === 1, 20_000);
    expect(seen).toEqual(['w1:1']);
  }, 30_000);

  it('keeps a second worker off a document whose lock a live worker holds, and retries it later', async () => {
    const q = await open({ retryLimit: 3 });
    await q.enqueueDocuments([doc(7, 'held')]);
    // Another process holds the document (as a worker whose lease expired early would).
    const holder = await pool.connect();
    await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [DOCUMENT_LOCK, 'Verra:7/held']);
    const ran: number[] = [];
    void work(q, {
      async document(job) {
        ran.push(job.attempt);
        return { status: 'done', outcome: 'indexed', indexed: true, failed: false };
      },
      async enrich() {},
    });
    await until(async () => (await pool.query("SELECT 1 FROM pgboss.job WHERE state = 'retry'")).rowCount === 1);
    expect(ran).toEqual([]);
    await holder.query('SELECT pg_advisory_unlock($1, hashtext($2))', [DOCUMENT_LOCK, 'Verra:7/held']);
    holder.release();
    await until(async () => (await q.status()).queues.documents.completed === 1);
    expect(ran).toEqual([2]);
  });
});
