/**
 * Scale-out ingestion throughput: the corpus PDFs served over loopback HTTP, queued by `npm run ingest` on the real
 * PostgreSQL (one job per document), processed by 1, 2 and 3 `npm run worker` processes; beside it the embedder's raw
 * throughput on the very same chunk texts in this process (one model instance, batches queued as the embed stage
 * queues them). Time is measured from the first claim to the last settled document (ingest_claims), so model loading
 * and process start are left out.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/workers/main.ts \
 *     [--files 5] [--workers 1,2,3] [--embedder use] [--concurrency 2] [--group none|prefix] [--jobs document|project]
 *
 * Each worker count gets a fresh database (created and dropped on DATABASE_URL's server) and a fresh DATA_DIR: the
 * vectors go to the embedded index that the workers share.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import PQueue from 'p-queue';
import { chunkTokenBudget } from '../../ingest/stages/chunk.js';
import { BATCHES_IN_FLIGHT } from '../../ingest/stages/embed.js';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import { createPgPool } from '../../src/adapters/postgres/database.js';
import { loadConfig } from '../../src/config.js';
import { createEmbedder } from '../../src/deps.js';
import { chunkPages } from '../../src/domain/chunking.js';
import { evidenceSentences } from '../../src/domain/sentences.js';
import { createLogger } from '../../src/logger.js';
import { corpusPath } from '../../test/support/corpus.js';
import { createFreshDatabase } from '../../test/support/pg-database.js';
import { runScript, startLogged } from '../../test/support/processes.js';
import { startStaticServer } from '../../test/support/static-server.js';

/** One extraction pool for the whole run (its idle processes do not keep the benchmark alive). */
const extractor = createPdfExtractor();

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '5' },
    workers: { type: 'string', default: '1,2,3' },
    embedder: { type: 'string', default: 'use' },
    concurrency: { type: 'string', default: '2' },
    // `prefix`: PDFs of one project share a file-name prefix (CDM_GFL-HFC23_*, REGEN_C06-006_*), as in the corpus.
    group: { type: 'string', default: 'none' },
    // `project`: also measure one job per project (emulated: N slots, each runs the next project in-process).
    jobs: { type: 'string', default: 'document' },
  },
});
if (!process.env.DATABASE_URL) throw new Error('set DATABASE_URL to a PostgreSQL server where this user may CREATE DATABASE');
const modelsDir = path.resolve(process.env.MODELS_DIR ?? './models');
const counts = (values.workers ?? '1').split(',').map(Number);
const all = readdirSync(corpusPath('pdf'))
  .filter((f) => f.endsWith('.pdf'))
  .map((f) => ({ f, size: statSync(corpusPath('pdf', f)).size }))
  .sort((a, b) => a.size - b.size)
  .map((x) => x.f);
const files = all.slice(0, Number(values.files));

const server = await startStaticServer({ root: corpusPath('pdf'), mount: '/pdf' });
const root = mkdtempSync(path.join(tmpdir(), 'bench-workers-'));
// One project per PDF, or per file-name prefix (--group prefix: the corpus's projects).
const projectOf = (f: string): string => (values.group === 'prefix' ? f.split('_').slice(0, 2).join('_') : f);
const projects = [...new Set(files.map(projectOf))];
const records = path.join(root, 'records.jsonl');
writeFileSync(
  records,
  projects
    .map((p, i) =>
      JSON.stringify({
        registry: 'Verra',
        resourceIdentifier: String(950_001 + i),
        resourceName: `bench ${p}`,
        documentGroups: [
          {
            code: 'VCS_OTHER_DOCUMENTS',
            description: 'Other',
            documents: files
              .filter((f) => projectOf(f) === p)
              .map((f) => ({ documentName: f, documentType: 'Other', uri: `${server.baseUrl}/pdf/${f}` })),
          },
        ],
      }),
    )
    .join('\n') + '\n',
);

// Raw embedder throughput on the same texts, in this process, while nothing else runs.
const config = loadConfig({ ...process.env, EMBEDDER: values.embedder });
const logger = createLogger({ level: 'warn', name: 'bench-workers' });
const embedder = await createEmbedder(config.EMBEDDER, { modelsDir, allowRemoteModels: false, openai: {}, logger });
await embedder.embed(['warm up the model with a sentence of ordinary length about forests and carbon.'.repeat(4)]);
const texts: string[] = [];
let chunkCount = 0;
for (const f of files) {
  const r = await extractor.extract(readFileSync(corpusPath('pdf', f)));
  if (!r.ok) continue;
  for (const c of chunkPages(r.pages, { maxTokens: chunkTokenBudget(embedder.maxInputTokens) })) {
    texts.push(c.text, ...(config.SENTENCE_VECTORS ? evidenceSentences(c.text) : []));
    chunkCount++;
  }
}
const t0 = performance.now();
const queue = new PQueue({ concurrency: BATCHES_IN_FLIGHT });
const batches: Promise<unknown>[] = [];
for (let i = 0; i < texts.length; i += embedder.maxBatchSize)
  batches.push(queue.add(() => embedder.embed(texts.slice(i, i + embedder.maxBatchSize), 'document')));
await Promise.all(batches);
const rawSeconds = (performance.now() - t0) / 1000;
await embedder.close();
console.log(
  `raw embedder ${embedder.id}: ${chunkCount} chunks in ${rawSeconds.toFixed(1)} s = ${(chunkCount / rawSeconds).toFixed(2)} chunks/s`,
);

const rows: string[] = [];
for (const n of counts) {
  const db = await createFreshDatabase('bench_workers');
  const dataDir = path.join(root, `w${n}`);
  const env = {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    MODELS_DIR: modelsDir,
    EMBEDDER: values.embedder ?? 'use',
    DOWNLOAD_ALLOW_HOSTS: server.hostPort,
    WORKER_CONCURRENCY: values.concurrency ?? '2',
    INGEST_POLL_SECONDS: '0.5',
    LOG_LEVEL: 'warn',
  };
  const queued = await runScript('ingest/main.ts', ['--records', records, '--no-progress'], env);
  if (queued.code !== 0) throw new Error(`enqueue failed: ${queued.stderr}`);
  const workers = Array.from({ length: n }, () => startLogged('ingest/worker-main.ts', [], env));
  const pool = createPgPool(db.url, { max: 1 });
  try {
    for (;;) {
      const open = await pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM pgboss.job WHERE name = 'ingest-document' AND state < 'completed'",
      );
      if (Number(open.rows[0]?.n) === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const span = await pool.query<{ seconds: number; workers: string }>(
      'SELECT EXTRACT(EPOCH FROM max(finished_at) - min(claimed_at))::float AS seconds, count(DISTINCT worker) AS workers FROM ingest_claims',
    );
    const totals = await pool.query<{ docs: string; pages: string; chunks: string }>(
      "SELECT count(*) AS docs, sum(pages) AS pages, sum(chunks) AS chunks FROM document_states WHERE status = 'indexed'",
    );
    const seconds = span.rows[0]?.seconds ?? NaN;
    const docs = Number(totals.rows[0]?.docs);
    const pages = Number(totals.rows[0]?.pages);
    const chunks = Number(totals.rows[0]?.chunks);
    rows.push(
      `| ${n} | ${values.concurrency} | ${span.rows[0]?.workers} | ${docs}/${files.length} | ${pages} | ${chunks} | ${seconds.toFixed(1)} | ` +
        `${(docs / seconds).toFixed(3)} | ${(chunks / seconds).toFixed(2)} | ${(chunkCount / rawSeconds).toFixed(2)} | ${((100 * chunks) / seconds / (chunkCount / rawSeconds)).toFixed(0)}% |`,
    );
    console.log(rows.at(-1));
  } finally {
    await pool.end();
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    await db.drop();
  }
}
/**
 * One job per project, emulated with the real in-process pipeline: `n` slots, each running the next project
 * (`npm run ingest -- --inline --projects <one>`) when free, as n workers claiming project jobs would. The time
 * counted is each run's own pipeline time (its summary line), so model loading is left out as above; a slot's time is
 * the sum of its projects', the run's time the longest slot's.
 */
const projectRows: string[] = [];
if (values.jobs === 'project') {
  for (const n of counts) {
    const db = await createFreshDatabase('bench_workers');
    const env = {
      DATABASE_URL: db.url,
      DATA_DIR: path.join(root, `p${n}`),
      MODELS_DIR: modelsDir,
      EMBEDDER: values.embedder ?? 'use',
      DOWNLOAD_ALLOW_HOSTS: server.hostPort,
      LOG_LEVEL: 'warn',
    };
    try {
      const imported = await runScript('ingest/main.ts', ['--records', records, '--no-documents'], env);
      if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
      const next = projects.map((_, i) => `Verra:${950_001 + i}`);
      const slotSeconds = Array.from({ length: n }, () => 0);
      let chunks = 0;
      await Promise.all(
        slotSeconds.map(async (_, slot) => {
          for (let ref = next.shift(); ref !== undefined; ref = next.shift()) {
            const r = await runScript('ingest/main.ts', ['--projects', ref, '--inline', '--no-progress'], env);
            const m = / (\d+) chunks in ([\d.]+) s/.exec(r.stderr);
            if (r.code !== 0 || !m) throw new Error(`project run failed: ${r.stderr}`);
            chunks += Number(m[1]);
            slotSeconds[slot] = (slotSeconds[slot] ?? 0) + Number(m[2]);
          }
        }),
      );
      const seconds = Math.max(...slotSeconds);
      projectRows.push(
        `| ${n} | ${projects.length} | ${slotSeconds.map((x) => x.toFixed(1)).join(' / ')} | ${seconds.toFixed(1)} | ${(chunks / seconds).toFixed(2)} |`,
      );
      console.log(projectRows.at(-1));
    } finally {
      await db.drop();
    }
  }
}

await server.close();
rmSync(root, { recursive: true, force: true });
console.log(
  `\n${values.embedder}, ${files.length} PDFs in ${projects.length} projects (${chunkCount} chunks), WORKER_CONCURRENCY=${values.concurrency}`,
);
console.log(
  '| workers | concurrency | workers that claimed | documents | pages | chunks | s | documents/s | chunks/s | raw embedder chunks/s (1 process) | vs raw |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
if (projectRows.length > 0) {
  console.log('\nOne job per project (emulated, see above):');
  console.log('| workers | projects | pipeline s per slot | s | chunks/s |');
  console.log('|---|---|---|---|---|');
  for (const r of projectRows) console.log(r);
}
process.exit(0);
