import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPgPool } from '../../src/adapters/postgres/database.js';
import { pgAvailability } from '../contract/store-backends.js';
import { makePdf } from '../ingest/support/make-pdf.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { startFakeQdrant, type FakeQdrant } from '../support/fake-qdrant.js';
import { createFreshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { runScript, startLogged, type LoggedProcess } from '../support/processes.js';
import { describeWithService } from '../support/services.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';

/**
 * The scale-out stack on one machine: the real PostgreSQL holds records, state and the job queue; `npm run ingest`
 * queues the documents; three `npm run worker` processes and two API processes share the vectors (the embedded
 * SQLite index in one DATA_DIR, then the loopback Qdrant server of the contract suite). One worker is killed with
 * SIGKILL while it holds a document; another finishes that document after the lease. Checked against a single-process
 * run (`--inline`) of the same records: the same chunks, each document processed once at a time (recorded claims, and
 * the file server's own count of concurrent downloads of a file), searches answered alike by both APIs, and the
 * /metrics of workers and APIs counting what happened.
 */

const CORPUS_DOCS = ['CDM_GFL-HFC23_validation_report.pdf', 'CDM_GFL-HFC23_registration_request_form.pdf'];
const PROJECTS = [9101, 9102, 9103];
const SLOW = 'slow.pdf';

const generated = new Map<string, Buffer>();
for (const p of PROJECTS) {
  for (let d = 1; d <= 3; d++) {
    const page = (n: number): string =>
      Array.from(
        { length: 5 },
        (_, i) =>
          `Project ${p} document ${d} page ${n} line ${i + 1}: the afforestation activity plants native species on ` +
          `${p + d * 10 + n} hectares of degraded land and monitors survival every year.`,
      ).join('\n');
    generated.set(`p${p}-d${d}.pdf`, makePdf([page(1), page(2)]));
  }
}
generated.set(
  SLOW,
  makePdf([
    'The slow document: its first download stalls so that the worker holding it can be killed mid-document.\n' +
      'Leakage is monitored by a survey of fuelwood collection in the villages next to the project area.',
  ]),
);

interface FileServer {
  server: StaticServer;
  /** Serve half of SLOW and then hold the response, once. */
  armStall(): void;
  stalled(): boolean;
  /** Most downloads of one path in flight at once, per path. */
  maxInFlight: Map<string, number>;
}

async function startFiles(): Promise<FileServer> {
  let stallArmed = false;
  let stalledNow = false;
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const handler = (req: IncomingMessage, res: ServerResponse): boolean => {
    const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    const body = generated.get(name) ?? (CORPUS_DOCS.includes(name) ? readFileSync(corpusPath('pdf', name)) : undefined);
    if (!body) return false;
    const n = (inFlight.get(name) ?? 0) + 1;
    inFlight.set(name, n);
    maxInFlight.set(name, Math.max(maxInFlight.get(name) ?? 0, n));
    res.once('close', () => inFlight.set(name, (inFlight.get(name) ?? 1) - 1));
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
    if (name === SLOW && stallArmed) {
      stallArmed = false;
      stalledNow = true;
      res.once('close', () => (stalledNow = false));
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      return true;
    }
    // A little latency, so that documents overlap across the workers.
    setTimeout(() => res.end(body), 100);
    return true;
  };
  const server = await startStaticServer({ handlers: [handler] });
  return { server, armStall: () => (stallArmed = true), stalled: () => stalledNow, maxInFlight };
}

function writeRecords(file: string, base: string): void {
  const docs = (p: number, i: number): { documentName: string; documentType: string; uploadDate: string; uri: string }[] => {
    const names = [...generated.keys()].filter((n) => n.startsWith(`p${p}-`));
    if (i === 0) names.push(SLOW);
    const corpus = CORPUS_DOCS[i];
    if (corpus !== undefined) names.push(corpus);
    return names.map((n) => ({
      documentName: n,
      documentType: 'Project Description',
      uploadDate: '2025-01-01T00:00:00.000Z',
      uri: `${base}/${n}`,
    }));
  };
  const lines = PROJECTS.map((p, i) =>
    JSON.stringify({
      registry: 'Verra',
      resourceIdentifier: String(p),
      resourceName: `Queue project ${p}`,
      documentGroups: [{ code: 'VCS_PIPELINE_DOCUMENTS', description: 'Pipeline', documents: docs(p, i) }],
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
}

const DOCUMENT_COUNT = PROJECTS.length * 3 + 1 + CORPUS_DOCS.length;

interface Chunk {
  id: string;
  documentId: string;
  page: number;
  offset: number;
  text: string;
}

function sqliteChunks(dataDir: string): Chunk[] {
  const db = new Database(path.join(dataDir, 'carbon-docs.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT id, document_id AS documentId, page, "offset", text FROM chunks ORDER BY id').all() as Chunk[];
  } finally {
    db.close();
  }
}

async function qdrantChunks(url: string): Promise<Chunk[]> {
  const out: Chunk[] = [];
  let offset: unknown = null;
  do {
    const res = await fetch(`${url}/collections/chunks/points/scroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 256, with_payload: true, with_vector: false, ...(offset !== null ? { offset } : {}) }),
    });
    const body = (await res.json()) as {
      result: { points: { payload: Record<string, unknown> }[]; next_page_offset: unknown };
    };
    for (const p of body.result.points) {
      const q = p.payload;
      out.push({
        id: String(q.chunkId),
        documentId: String(q.documentId),
        page: Number(q.page),
        offset: Number(q.offset),
        text: String(q.text),
      });
    }
    offset = body.result.next_page_offset ?? null;
  } while (offset !== null);
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function scrape(url: string): Promise<Map<string, number>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split('\n')) {
    const m = /^(carbon_docs_[^\s]+)\s+([\d.e+-]+)$/.exec(line);
    if (m?.[1] !== undefined) out.set(m[1], Number(m[2]));
  }
  return out;
}

const availability = corpusAvailable ? pgAvailability : { available: false, why: 'the shared corpus is not beside the repository' };

describeWithService('scale-out ingestion: 3 workers and 2 APIs on the job queue', availability, () => {
  let files: FileServer;
  let root: string;
  let records: string;
  let reference: Chunk[];
  let referenceEnrichment: Map<number, unknown>;
  const databases: FreshDatabase[] = [];
  const processes: LoggedProcess[] = [];
  const killRunning = (ps: LoggedProcess[]): void => {
    for (const p of ps) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  };

  const baseEnv = (db: FreshDatabase, dataDir: string, extra: Record<string, string> = {}): Record<string, string> => ({
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    DOWNLOAD_ALLOW_HOSTS: files.server.hostPort,
    DOWNLOAD_RETRIES: '0',
    DEMO_DATA: 'false',
    EMBEDDER: 'use',
    ...extra,
  });

  async function enrichment(db: FreshDatabase): Promise<Map<number, unknown>> {
    const pool = createPgPool(db.url, { max: 1 });
    try {
      const rows = await pool.query<{ project_id: string; enrichment_json: string }>('SELECT project_id, enrichment_json FROM projects');
      return new Map(rows.rows.map((r) => [Number(r.project_id), JSON.parse(r.enrichment_json) as unknown]));
    } finally {
      await pool.end();
    }
  }

  beforeAll(async () => {
    files = await startFiles();
    root = mkdtempSync(path.join(tmpdir(), 'queue-workers-'));
    records = path.join(root, 'records.jsonl');
    writeRecords(records, files.server.baseUrl);
    // The single-process run every queued run is compared with.
    const db = await createFreshDatabase('h2_queue_ref');
    databases.push(db);
    const dataDir = path.join(root, 'reference');
    const r = await runScript('ingest/main.ts', ['--records', records, '--inline', '--no-progress'], baseEnv(db, dataDir));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${DOCUMENT_COUNT} document(s): ${DOCUMENT_COUNT} indexed`);
    reference = sqliteChunks(dataDir);
    referenceEnrichment = await enrichment(db);
  }, 240_000);

  afterAll(async () => {
    killRunning(processes);
    await files?.server.close();
    for (const db of databases) await db.drop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  async function scenario(index: 'sqlite' | 'qdrant'): Promise<void> {
    let qdrant: FakeQdrant | null = null;
    if (index === 'qdrant') qdrant = await startFakeQdrant();
    const db = await createFreshDatabase('h2_queue_run');
    databases.push(db);
    const dataDir = path.join(root, index);
    const env = baseEnv(db, dataDir, {
      ...(qdrant ? { QDRANT_URL: qdrant.url } : {}),
      INGEST_JOB_LEASE_SECONDS: '4',
      INGEST_RETRY_DELAY_SECONDS: '0',
      INGEST_POLL_SECONDS: '0.5',
      WORKER_CONCURRENCY: '1',
      METRICS_PORT: '0',
      METRICS_PUBLIC: 'true',
      HOST: '127.0.0.1',
      PORT: '0',
    });
    const pool = createPgPool(db.url, { max: 2 });
    const startedBefore = processes.length;
    try {
      // The Qdrant run queues with --wait, beside the workers, and returns when they have settled every job.
      const waiting = index === 'qdrant' ? startLogged('ingest/main.ts', ['--records', records, '--no-progress', '--wait'], env) : null;
      if (waiting) await waiting.waitForLog((l) => l.msg === 'records imported');
      else {
        const queued = await runScript('ingest/main.ts', ['--records', records, '--no-progress'], env);
        expect(queued.code, queued.stderr).toBe(0);
        expect(queued.stderr).toContain(`${DOCUMENT_COUNT} queued`);
      }

      files.armStall();
      const apis = [0, 1].map(() => startLogged('src/main.ts', [], env));
      const workers = [0, 1, 2].map(() => startLogged('ingest/worker-main.ts', [], env));
      processes.push(...apis, ...workers);
      const apiUrls = await Promise.all(
        apis.map(async (a) => `http://127.0.0.1:${String((await a.waitForLog((l) => l.msg === 'listening')).port)}`),
      );
      const metricPorts = await Promise.all(
        workers.map(async (w) => Number((await w.waitForLog((l) => l.msg === 'worker ready')).metricsPort)),
      );

      // Kill the worker holding the slow document while its download is stalled.
      const slowClaim = async (): Promise<string | null> => {
        const r = await pool.query<{ worker: string }>(
          "SELECT c.worker FROM ingest_claims c WHERE c.finished_at IS NULL AND EXISTS (SELECT 1 FROM pgboss.job j WHERE j.id = c.job_id AND j.data->>'uri' LIKE $1)",
          [`%/${SLOW}`],
        );
        return r.rows[0]?.worker ?? null;
      };
      let holder: string | null = null;
      for (let i = 0; i < 600 && !(holder !== null && files.stalled()); i++) {
        holder = await slowClaim();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(holder, 'a worker claimed the slow document').not.toBeNull();
      const victim = workers.find((w) => holder?.endsWith(`:${w.pid}`));
      expect(victim, `the claim names one of our workers (${holder})`).toBeDefined();
      victim?.child.kill('SIGKILL');
      expect((await victim?.exited)?.signal).toBe('SIGKILL');

      // The others finish everything, the killed worker's document included, after its lease.
      const open = async (): Promise<number> =>
        Number((await pool.query<{ n: string }>("SELECT count(*) AS n FROM pgboss.job WHERE state < 'completed'")).rows[0]?.n);
      for (let i = 0; i < 1200 && (await open()) > 0; i++) await new Promise((r) => setTimeout(r, 250));
      expect(await open()).toBe(0);
      const jobs = await pool.query<{ name: string; state: string; n: string }>(
        'SELECT name, state, count(*) AS n FROM pgboss.job GROUP BY 1, 2',
      );
      expect(jobs.rows.map((r) => [r.name, r.state, Number(r.n)]).sort()).toEqual([
        ['ingest-document', 'completed', DOCUMENT_COUNT],
        ['ingest-enrich', 'completed', PROJECTS.length],
      ]);

      if (waiting) {
        const done = await waiting.exited;
        expect(done.code, waiting.stderr.join('')).toBe(0);
        expect(waiting.stderr.join('')).toContain(`${DOCUMENT_COUNT} queued`);
        expect(waiting.stderr.join('')).toContain(`queue: 0 waiting, 0 active, ${DOCUMENT_COUNT} completed, 0 failed`);
      }
      // --status: the queue's line first, then the documents.
      const status = await runScript('ingest/main.ts', ['--status', '--json'], env);
      expect(status.code, status.stderr).toBe(0);
      const [queueLine, ...documentLines] = status.stdout.trim().split('\n');
      expect(JSON.parse(queueLine ?? '{}')).toMatchObject({
        queue: {
          depth: 0,
          queues: { documents: { completed: DOCUMENT_COUNT, failed: 0 }, enrich: { completed: PROJECTS.length } },
          failed: [],
        },
      });
      expect(documentLines.map((l) => (JSON.parse(l) as { status: string }).status)).toEqual(Array(DOCUMENT_COUNT).fill('indexed'));

      // Exactly the chunks of the single-process run, every document indexed.
      const chunks = index === 'sqlite' ? sqliteChunks(dataDir) : await qdrantChunks(qdrant?.url ?? '');
      expect(chunks.length).toBe(reference.length);
      expect(chunks).toEqual(reference);
      const states = await pool.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM document_states GROUP BY status');
      expect(states.rows.map((r) => [r.status, Number(r.n)])).toEqual([['indexed', DOCUMENT_COUNT]]);
      // Enrichment ran once per project, as the single-process run's afterProject did.
      const derived = await enrichment(db);
      for (const p of PROJECTS) expect(derived.get(p), `project ${p}`).toEqual(referenceEnrichment.get(p));

      // Recorded claims: never two at once on a document; the killed worker's claim ended when another took over.
      const claims = await pool.query<{
        project_key: string;
        document_id: string;
        worker: string;
        claimed: Date;
        finished: Date | null;
        outcome: string | null;
      }>(
        'SELECT project_key, document_id, worker, claimed_at AS claimed, finished_at AS finished, outcome FROM ingest_claims ORDER BY claimed_at',
      );
      const byDocument = new Map<string, typeof claims.rows>();
      for (const c of claims.rows)
        byDocument.set(`${c.project_key}/${c.document_id}`, [...(byDocument.get(`${c.project_key}/${c.document_id}`) ?? []), c]);
      expect(byDocument.size).toBe(DOCUMENT_COUNT);
      for (const [key, list] of byDocument) {
        for (let i = 1; i < list.length; i++) {
          const before = list[i - 1];
          const after = list[i];
          expect(before?.finished, key).not.toBeNull();
          expect((before?.finished as Date).getTime(), key).toBeLessThanOrEqual((after?.claimed as Date).getTime());
        }
        expect(list.at(-1)?.outcome, key).toBe('indexed');
      }
      const slow = [...byDocument.values()].find((list) => list.some((c) => c.worker === holder && c.outcome === 'abandoned: worker gone'));
      expect(slow, 'the killed claim is recorded as abandoned').toBeDefined();
      expect(slow?.at(-1)?.worker, "another worker finished the killed worker's document").not.toBe(holder);
      expect(slow?.at(-1)?.outcome).toBe('indexed');
      expect(new Set(claims.rows.map((c) => c.worker)).size).toBeGreaterThanOrEqual(2);
      // The file server saw no file downloaded twice at once.
      expect(Math.max(...files.maxInFlight.values())).toBe(1);

      // Both APIs answer from the shared index, alike.
      const ask = async (base: string): Promise<{ citations: { documentId: string; page: number; text: string }[] }> => {
        const res = await fetch(`${base}/projects-documents/batch-search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            projectList: PROJECTS.map((p) => ({ project_id: p, registry: 'Verra' })),
            query: 'How is leakage monitored?',
            topK: 5,
          }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as { citations: { documentId: string; page: number; text: string }[] };
      };
      const [a, b] = await Promise.all(apiUrls.map(ask));
      expect(a?.citations.length).toBeGreaterThan(0);
      expect(a?.citations.some((c) => c.text.includes('fuelwood collection'))).toBe(true);
      expect(b?.citations.map((c) => [c.documentId, c.page])).toEqual(a?.citations.map((c) => [c.documentId, c.page]));

      // Metrics: the APIs counted the search; the surviving workers' documents add up to what they claimed.
      const api = await scrape(`${apiUrls[0]}/metrics`);
      expect(api.get('carbon_docs_http_requests_total{method="POST",route="/projects-documents/batch-search",status="200"}')).toBe(1);
      const survivors = workers.filter((w) => w !== victim);
      let indexedByMetrics = 0;
      let chunksByMetrics = 0;
      for (const w of survivors) {
        const port = metricPorts[workers.indexOf(w)];
        const m = await scrape(`http://127.0.0.1:${port}/metrics`);
        indexedByMetrics += m.get('carbon_docs_ingest_documents_total{outcome="indexed"}') ?? 0;
        chunksByMetrics += m.get('carbon_docs_ingest_chunks_embedded_total') ?? 0;
        expect(m.get('carbon_docs_ingest_jobs{queue="documents",state="completed"}')).toBe(DOCUMENT_COUNT);
        expect(m.get('carbon_docs_ingest_queue_depth')).toBe(0);
      }
      // The killed worker's counts died with it: compare with what the survivors' claims say they indexed.
      const bySurvivors = claims.rows.filter((c) => c.worker !== holder && c.outcome === 'indexed');
      const chunkCounts = await pool.query<{ document_id: string; chunks: number }>('SELECT document_id, chunks FROM document_states');
      const chunksOf = new Map(chunkCounts.rows.map((r) => [r.document_id, r.chunks]));
      expect(indexedByMetrics).toBe(bySurvivors.length);
      expect(chunksByMetrics).toBe(bySurvivors.reduce((n, c) => n + (chunksOf.get(c.document_id) ?? 0), 0));
      expect(indexedByMetrics).toBeGreaterThan(0);

      // A clean stop: SIGTERM, exit 0.
      for (const p of [...survivors, ...apis]) p.child.kill('SIGTERM');
      for (const w of survivors) expect((await w.exited).code).toBe(0);
      for (const p of apis) await p.exited;
    } finally {
      // A scenario that failed half-way must not leave its workers downloading from the shared file server into the next.
      killRunning(processes.slice(startedBefore));
      await pool.end();
      await qdrant?.close();
    }
  }

  it(
    "shares the embedded index on this machine: every document once, the killed worker's document finished by another",
    { timeout: 240_000 },
    () => scenario('sqlite'),
  );

  it('does the same with the vectors in the Qdrant server', { timeout: 240_000 }, () => scenario('qdrant'));

  it('retries a download that may pass up to the limit, fails a 404 at once, and keeps both reasons', { timeout: 120_000 }, async () => {
    const db = await createFreshDatabase('h2_queue_faults');
    databases.push(db);
    const faults = path.join(root, 'faults.jsonl');
    const doc = (name: string, uri: string): Record<string, string> => ({ documentName: name, documentType: 'Project Description', uri });
    writeFileSync(
      faults,
      `${JSON.stringify({
        registry: 'Verra',
        resourceIdentifier: '9201',
        resourceName: 'Faults',
        documentGroups: [
          {
            code: 'VCS_PIPELINE_DOCUMENTS',
            description: 'Pipeline',
            documents: [
              doc('missing', `${files.server.baseUrl}/missing.pdf`),
              // Nothing listens on the discard port: connection refused, a failure that may pass.
              doc('refused', 'http://127.0.0.1:9/refused.pdf'),
              doc('fine', `${files.server.baseUrl}/p9101-d1.pdf`),
            ],
          },
        ],
      })}\n`,
    );
    const env = baseEnv(db, path.join(root, 'faults'), {
      DOWNLOAD_ALLOW_HOSTS: `${files.server.hostPort},127.0.0.1:9`,
      INGEST_RETRY_LIMIT: '2',
      INGEST_RETRY_DELAY_SECONDS: '0',
      INGEST_POLL_SECONDS: '0.5',
      METRICS_PORT: '0',
      METRICS_PUBLIC: 'true',
    });
    const worker = startLogged('ingest/worker-main.ts', [], env);
    processes.push(worker);
    const port = Number((await worker.waitForLog((l) => l.msg === 'worker ready')).metricsPort);
    const run = await runScript('ingest/main.ts', ['--records', faults, '--no-progress', '--wait'], env);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('2 document job(s) failed (exit code 3)');

    const status = await runScript('ingest/main.ts', ['--status', '--json'], env);
    const [queueLine, ...documentLines] = status.stdout.trim().split('\n');
    const queue = (JSON.parse(queueLine ?? '{}') as { queue: QueueStatusJson }).queue;
    expect(queue.queues.documents).toMatchObject({ completed: 1, failed: 2 });
    expect(queue.queues.enrich).toMatchObject({ completed: 1 });
    const failed = new Map(queue.failed.map((f) => [f.uri.split('/').pop(), f]));
    expect(failed.get('missing.pdf')).toMatchObject({ attempts: 1, reason: expect.stringMatching(/^download: HTTP 404/) as unknown });
    expect(failed.get('refused.pdf')).toMatchObject({
      attempts: 3,
      reason: expect.stringMatching(/^download: network error: ECONNREFUSED/) as unknown,
    });
    const states = new Map(
      documentLines.map((l) => JSON.parse(l) as { title: string; status: string; reason: string | null }).map((d) => [d.title, d]),
    );
    expect(states.get('fine')?.status).toBe('indexed');
    expect(states.get('missing')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/HTTP 404/) as unknown });
    expect(states.get('refused')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/ECONNREFUSED/) as unknown });

    const m = await scrape(`http://127.0.0.1:${port}/metrics`);
    expect(m.get('carbon_docs_ingest_documents_total{outcome="retry"}')).toBe(2);
    expect(m.get('carbon_docs_ingest_documents_total{outcome="failed"}')).toBe(2);
    expect(m.get('carbon_docs_ingest_documents_total{outcome="indexed"}')).toBe(1);
    expect(m.get('carbon_docs_ingest_download_failures_total{reason="network"}')).toBe(3);
    expect(m.get('carbon_docs_ingest_download_failures_total{reason="http_404"}')).toBe(1);
    worker.child.kill('SIGTERM');
    expect((await worker.exited).code).toBe(0);
  });
});

interface QueueStatusJson {
  queues: Record<'documents' | 'enrich', Record<string, number>>;
  failed: { uri: string; attempts: number; reason: string }[];
}
