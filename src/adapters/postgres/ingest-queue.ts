import PgBoss from 'pg-boss';
import { projectKey, type ProjectRef } from '../../domain/project-ref.js';
import type {
  ClaimedDocumentJob,
  DocumentJob,
  DocumentJobResult,
  EnqueueResult,
  IngestJobHandlers,
  IngestQueue,
  JobState,
  QueueStatus,
  WorkOptions,
} from '../../ports/ingest-queue.js';
import { createPgPool, migratePg, type PgClient, type PgMigration, type PgPool } from './database.js';

/**
 * The ingestion job queue on PostgreSQL, with pg-boss 10 (the last major for Node 20): jobs are claimed with
 * `FOR UPDATE SKIP LOCKED`, held under a lease (`expireInSeconds`) after which pg-boss's supervisor hands a dead
 * worker's job to the next, retried with exponential back-off up to a limit, and kept as `failed` with the reason.
 * The workers poll with boss.fetch() rather than boss.work(), whose handler timeout would fail a long document
 * that is still running; instead each worker renews its jobs' leases (a heartbeat on `started_on`).
 *
 * What this adapter adds on top:
 * - **One worker per document at a time, whatever the lease.** A worker holds a session advisory lock on the
 *   document while it runs it. A job whose lease expired while its first worker is still alive cannot start a second
 *   run beside it; a worker that dies (SIGKILL, a lost machine) drops its connection and so its lock.
 * - **Recorded claims** (`ingest_claims`): one row per attempt, with worker, start and end, so a run can be audited.
 * - **Enrichment once per project**: a job is settled (completed or failed) in a transaction that holds the project's
 *   advisory lock and then counts the project's unsettled document jobs; the worker that settles the last one queues
 *   the project's enrichment job. Settling and counting under one lock means two workers finishing a project's last
 *   two documents at once cannot both miss the end, nor both see it.
 */

export const DOCUMENT_QUEUE = 'ingest-document';
export const ENRICH_QUEUE = 'ingest-enrich';
const SCHEMA = 'pgboss';
/** Advisory-lock namespaces (the first key of the two-key form), kept clear of the migration locks' one-key form. */
export const DOCUMENT_LOCK = 0x43440001;
const PROJECT_LOCK = 0x43440002;

export interface PgIngestQueueOptions {
  connectionString: string;
  /**
   * Seconds after a worker's last heartbeat before its job goes to another worker. A live worker renews the lease of
   * its jobs every quarter lease, so a long document never expires; a dead one's job waits at most this long. @default 60
   */
  leaseSeconds?: number;
  /** Attempts after the first. @default 3 */
  retryLimit?: number;
  /** Seconds before the first retry; doubled each time (pg-boss retryBackoff, with jitter). @default 30 */
  retryDelaySeconds?: number;
  /** How often an idle worker asks for a job. @default 2 */
  pollingIntervalSeconds?: number;
  /** pg-boss errors that it recovers from itself (a poll that failed); logged by the caller. */
  onError?: (err: Error) => void;
}

/** A document job as stored in pg-boss's JSON: the project flattened, with its key for the end-of-project count. */
type DocumentJobData = Omit<DocumentJob, 'ref'> & { project: string; registry: string; projectId: number };

interface EnrichJobData {
  project: string;
  registry: string;
  projectId: number;
  changed: boolean;
  force: boolean;
}

const migrations: readonly PgMigration[] = [
  {
    name: '0001-ingest-claims',
    async up(client) {
      await client.query(`CREATE TABLE ingest_claims (
        id BIGSERIAL PRIMARY KEY,
        job_id UUID NOT NULL,
        project_key TEXT NOT NULL,
        document_id TEXT NOT NULL,
        worker TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        claimed_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
        finished_at TIMESTAMPTZ,
        outcome TEXT
      )`);
      await client.query('CREATE INDEX ingest_claims_document ON ingest_claims (project_key, document_id, claimed_at)');
      // Whether a document of the project was indexed since the project's last enrichment job was queued.
      await client.query(`CREATE TABLE ingest_project_changes (
        project_key TEXT PRIMARY KEY,
        changed BOOLEAN NOT NULL
      )`);
      // The end-of-project count looks up a project's unsettled jobs: an index scan at tens of thousands of jobs.
      await client.query(`CREATE INDEX ingest_job_project ON ${SCHEMA}.job ((data->>'project')) WHERE state < 'completed'`);
    },
  },
];

const STATES: readonly JobState[] = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'];

function emptyCounts(): Record<JobState, number> {
  return { created: 0, retry: 0, active: 0, completed: 0, cancelled: 0, failed: 0 };
}

/** pg-boss runs a statement through this when given `{ db }`: here, the transaction holding the project's lock. */
function txDb(client: PgClient): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const res = await client.query(text, values);
      return { rows: res.rows as unknown[] as never[] };
    },
  };
}

function refOf(data: { registry: string; projectId: number }): ProjectRef {
  return { registry: data.registry, projectId: data.projectId };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function createPgIngestQueue(opts: PgIngestQueueOptions): Promise<IngestQueue> {
  const leaseSeconds = opts.leaseSeconds ?? 60;
  const heartbeatMs = Math.max(250, (leaseSeconds * 1000) / 4);
  const retryLimit = opts.retryLimit ?? 3;
  const retryDelay = opts.retryDelaySeconds ?? 30;
  for (const [name, v, min] of [
    ['leaseSeconds', leaseSeconds, 1],
    ['retryLimit', retryLimit, 0],
    ['retryDelaySeconds', retryDelay, 0],
  ] as const) {
    if (!(Number.isInteger(v) && v >= min)) throw new RangeError(`ingest queue: ${name} must be an integer >= ${min}, got ${v}`);
  }

  const boss = new PgBoss({
    connectionString: opts.connectionString,
    schema: SCHEMA,
    application_name: 'carbon-docs-ingest',
    // The supervisor that hands expired leases on runs every quarter lease (once a minute at most).
    maintenanceIntervalSeconds: Math.max(1, Math.min(60, Math.floor(leaseSeconds / 4))),
    // Failed jobs stay visible to `--status` for a week; completed ones for a day.
    archiveCompletedAfterSeconds: 24 * 3600,
    archiveFailedAfterSeconds: 7 * 24 * 3600,
    max: 4,
  });
  boss.on('error', (err: Error) => opts.onError?.(err));
  // A document in flight holds a connection (its lock) while settling takes another: room for the largest
  // WORKER_CONCURRENCY (64) and a few more. pg opens connections only as they are needed.
  const pool: PgPool = createPgPool(opts.connectionString, { max: 70 });
  try {
    await boss.start();
    const queueOptions = { retryLimit, retryDelay, retryBackoff: true, expireInSeconds: leaseSeconds };
    // `short`: at most one waiting job per document (singletonKey); a document being processed may get one more.
    for (const name of [DOCUMENT_QUEUE, ENRICH_QUEUE]) {
      await boss.createQueue(name, { name, policy: 'short', ...queueOptions });
      await boss.updateQueue(name, { name, policy: 'short', ...queueOptions });
    }
    // After boss.start: the migration indexes pg-boss's job table.
    await migratePg(pool, 'ingest-queue', migrations);
  } catch (err) {
    await boss.stop({ graceful: false }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw err;
  }

  let stopping: Promise<void> | null = null;

  /** Settles the job and, if it was its project's last unsettled one, queues the project's enrichment. */
  async function settle(data: DocumentJobData, jobId: string, result: DocumentJobResult, failFinal: boolean): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [PROJECT_LOCK, data.project]);
      const db = txDb(client);
      if (result.status === 'done' && !result.failed) {
        await boss.complete(
          DOCUMENT_QUEUE,
          jobId,
          { outcome: result.outcome, ...(result.reason ? { reason: result.reason } : {}) },
          { db },
        );
      } else {
        const reason = result.status === 'retry' ? result.reason : (result.reason ?? result.outcome);
        // A failure another attempt cannot mend ends the job now instead of after its retries.
        if (failFinal) {
          await client.query(`UPDATE ${SCHEMA}.job SET retry_limit = retry_count WHERE name = $1 AND id = $2`, [DOCUMENT_QUEUE, jobId]);
        }
        await boss.fail(DOCUMENT_QUEUE, jobId, { reason }, { db });
      }
      if (result.status === 'done' && result.indexed) {
        await client.query(
          `INSERT INTO ingest_project_changes (project_key, changed) VALUES ($1, true)
           ON CONFLICT (project_key) DO UPDATE SET changed = true`,
          [data.project],
        );
      }
      const open = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${SCHEMA}.job WHERE name = $1 AND state < 'completed' AND data->>'project' = $2`,
        [DOCUMENT_QUEUE, data.project],
      );
      if (Number(open.rows[0]?.n ?? 0) === 0) {
        const changes = await client.query<{ changed: boolean }>(
          'DELETE FROM ingest_project_changes WHERE project_key = $1 RETURNING changed',
          [data.project],
        );
        const enrich: EnrichJobData = {
          project: data.project,
          registry: data.registry,
          projectId: data.projectId,
          changed: changes.rows[0]?.changed ?? false,
          force: data.force,
        };
        const sent = await boss.send(ENRICH_QUEUE, enrich, { singletonKey: data.project, db });
        if (sent === null) {
          // The project's enrichment from an earlier run still waits: it now also covers this run's changes.
          await client.query(
            `UPDATE ${SCHEMA}.job SET data = data || jsonb_build_object(
               'changed', coalesce((data->>'changed')::boolean, false) OR $3::boolean,
               'force', coalesce((data->>'force')::boolean, false) OR $4::boolean)
             WHERE name = $1 AND singleton_key = $2 AND state = 'created'`,
            [ENRICH_QUEUE, data.project, enrich.changed, enrich.force],
          );
        }
      }
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async function runDocumentJob(
    job: PgBoss.JobWithMetadata<DocumentJobData>,
    handlers: IngestJobHandlers,
    work: WorkOptions,
  ): Promise<void> {
    const data = job.data;
    const lockClient = await pool.connect();
    let locked = false;
    try {
      const got = await lockClient.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [
        DOCUMENT_LOCK,
        `${data.project}/${data.documentId}`,
      ]);
      locked = got.rows[0]?.ok === true;
      if (!locked) {
        // Its lease expired while another live worker still runs it (INGEST_JOB_LEASE_SECONDS is too short for it).
        await settle(
          data,
          job.id,
          { status: 'retry', reason: 'another worker is still processing this document (lease expired early)' },
          false,
        );
        return;
      }
      // Holding the lock proves an earlier claim's worker is gone: its claim ends here.
      await lockClient.query(
        `UPDATE ingest_claims SET finished_at = clock_timestamp(), outcome = 'abandoned: worker gone'
         WHERE project_key = $1 AND document_id = $2 AND finished_at IS NULL`,
        [data.project, data.documentId],
      );
      const attempt = job.retryCount + 1;
      const claim = await lockClient.query<{ id: string }>(
        `INSERT INTO ingest_claims (job_id, project_key, document_id, worker, attempt) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
        [job.id, data.project, data.documentId, work.workerName, attempt],
      );
      const { project: _project, registry: _registry, projectId: _projectId, ...document } = data;
      const claimed: ClaimedDocumentJob = {
        ...document,
        ref: refOf(data),
        jobId: job.id,
        attempt,
        lastAttempt: job.retryCount >= job.retryLimit,
      };
      handlers.onClaim?.(claimed);
      let result: DocumentJobResult;
      try {
        result = await handlers.document(claimed);
      } catch (err) {
        result = { status: 'retry', reason: `internal: ${errorMessage(err)}` };
      }
      const outcome = result.status === 'retry' ? `retry: ${result.reason}` : result.outcome;
      await lockClient.query('UPDATE ingest_claims SET finished_at = clock_timestamp(), outcome = $2 WHERE id = $1', [
        claim.rows[0]?.id,
        outcome,
      ]);
      await settle(data, job.id, result, result.status === 'done' && result.failed);
    } finally {
      if (locked) {
        await lockClient
          .query('SELECT pg_advisory_unlock($1, hashtext($2))', [DOCUMENT_LOCK, `${data.project}/${data.documentId}`])
          .catch(() => undefined);
      }
      lockClient.release();
    }
  }

  return {
    async enqueueDocuments(jobs: readonly DocumentJob[]): Promise<EnqueueResult> {
      let queued = 0;
      let alreadyWaiting = 0;
      for (const j of jobs) {
        const { ref, ...rest } = j;
        const data: DocumentJobData = { ...rest, project: projectKey(ref), registry: ref.registry, projectId: ref.projectId };
        const id = await boss.send(DOCUMENT_QUEUE, data, { singletonKey: `${data.project}/${data.documentId}` });
        if (id === null) alreadyWaiting++;
        else queued++;
      }
      return { queued, alreadyWaiting };
    },

    async enqueueEnrich(ref: ProjectRef, o: { force: boolean }): Promise<void> {
      const project = projectKey(ref);
      const enrich: EnrichJobData = { project, registry: ref.registry, projectId: ref.projectId, changed: false, force: o.force };
      await boss.send(ENRICH_QUEUE, enrich, { singletonKey: project });
    },

    async work(handlers: IngestJobHandlers, work: WorkOptions): Promise<void> {
      if (!(Number.isInteger(work.concurrency) && work.concurrency >= 1)) {
        throw new RangeError(`ingest queue: concurrency must be a positive integer, got ${work.concurrency}`);
      }
      const pollMs = (opts.pollingIntervalSeconds ?? 2) * 1000;
      // Jobs this process runs, by id: their lease is renewed until they settle.
      const running = new Map<string, string>();
      const heartbeat = setInterval(() => {
        if (running.size === 0) return;
        // pg-boss 10 has no heartbeat; its supervisor expires a job when started_on + expire_in has passed.
        pool
          .query(`UPDATE ${SCHEMA}.job SET started_on = now() WHERE name = ANY($1) AND id = ANY($2::uuid[]) AND state = 'active'`, [
            [DOCUMENT_QUEUE, ENRICH_QUEUE],
            [...running.keys()],
          ])
          .catch((err: unknown) => opts.onError?.(err instanceof Error ? err : new Error(String(err))));
      }, heartbeatMs);

      async function loop<T>(name: string, run: (job: PgBoss.JobWithMetadata<T>) => Promise<void>): Promise<void> {
        while (!work.signal.aborted) {
          let job: PgBoss.JobWithMetadata<T> | undefined;
          try {
            [job] = await boss.fetch<T>(name, { includeMetadata: true, batchSize: 1 });
          } catch (err) {
            opts.onError?.(err instanceof Error ? err : new Error(String(err)));
          }
          if (!job) {
            await pause(pollMs, work.signal);
            continue;
          }
          running.set(job.id, name);
          try {
            await run(job);
          } catch (err) {
            // Settling failed (PostgreSQL unreachable): the lease runs out and the job goes to another attempt.
            opts.onError?.(err instanceof Error ? err : new Error(String(err)));
            await pause(pollMs, work.signal);
          } finally {
            running.delete(job.id);
          }
        }
      }

      const runEnrich = async (job: PgBoss.JobWithMetadata<EnrichJobData>): Promise<void> => {
        try {
          await handlers.enrich({ ref: refOf(job.data), changed: job.data.changed, force: job.data.force });
        } catch (err) {
          await boss.fail(ENRICH_QUEUE, job.id, { reason: errorMessage(err) });
          return;
        }
        await boss.complete(ENRICH_QUEUE, job.id);
      };
      try {
        await Promise.all([
          ...Array.from({ length: work.concurrency }, () =>
            loop<DocumentJobData>(DOCUMENT_QUEUE, (job) => runDocumentJob(job, handlers, work)),
          ),
          loop<EnrichJobData>(ENRICH_QUEUE, runEnrich),
        ]);
      } finally {
        clearInterval(heartbeat);
      }
    },

    async status(): Promise<QueueStatus> {
      const counts = await pool.query<{ name: string; state: JobState; n: string }>(
        `SELECT name, state, count(*) AS n FROM ${SCHEMA}.job WHERE name = ANY($1) GROUP BY name, state`,
        [[DOCUMENT_QUEUE, ENRICH_QUEUE]],
      );
      const queues = { documents: emptyCounts(), enrich: emptyCounts() };
      for (const row of counts.rows) {
        if (!STATES.includes(row.state)) continue;
        (row.name === DOCUMENT_QUEUE ? queues.documents : queues.enrich)[row.state] = Number(row.n);
      }
      const failedRows = await pool.query<{ data: DocumentJobData; retry_count: number; output: unknown; completed_on: Date }>(
        `SELECT data, retry_count, output, completed_on FROM ${SCHEMA}.job
         WHERE name = $1 AND state = 'failed' ORDER BY completed_on DESC LIMIT 50`,
        [DOCUMENT_QUEUE],
      );
      return {
        queues,
        depth: queues.documents.created + queues.documents.retry + queues.enrich.created + queues.enrich.retry,
        failed: failedRows.rows.map((r) => ({
          project: r.data.project,
          documentId: r.data.documentId,
          uri: r.data.uri,
          attempts: r.retry_count + 1,
          reason: failureReason(r.output),
          failedAt: r.completed_on.toISOString(),
        })),
      };
    },

    async close(): Promise<void> {
      stopping ??= (async () => {
        // work() has returned by now (its jobs settled); nothing of pg-boss's own runs a handler.
        await boss.stop({ graceful: false });
        await pool.end();
      })();
      return stopping;
    },
  };
}

/** The reason pg-boss kept: ours (`{ reason }`), a thrown error's message, or its own (a lease that timed out). */
function failureReason(output: unknown): string {
  if (output && typeof output === 'object') {
    const o = output as Record<string, unknown>;
    if (typeof o.reason === 'string') return o.reason;
    if (typeof o.message === 'string') return o.message;
    const value = o.value;
    if (value && typeof value === 'object' && typeof (value as Record<string, unknown>).message === 'string') {
      return (value as Record<string, string>).message ?? 'unknown';
    }
  }
  return typeof output === 'string' ? output : 'unknown';
}
