/**
 * Ingest throughput: the whole pipeline (HTTP download from a local server, pdf-parse extraction, chunking,
 * embedding, SQLite writes) on the corpus PDFs, beside the raw embedder throughput on the very same texts (each chunk
 * and, when SENTENCE_VECTORS is on for the embedder, its sentences, as the embed stage sends them; counted in chunks) in the same process (before and after the
 * pipeline run, averaged). Goal: pipeline chunks/s >= 90% of raw embedder chunks/s.
 *
 *   npx tsx bench/ingest/main.ts [--files <n>] [--embedders use,onnx:Xenova/all-MiniLM-L6-v2]
 *
 * --files limits the run to the n smallest PDFs (default: all 17). MiniLM is skipped with a message when MODELS_DIR
 * (default ./models) does not hold it (scripts/fetch-models.sh provisions it).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runIngest } from '../../ingest/pipeline.js';
import { chunkTokenBudget } from '../../ingest/stages/chunk.js';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import { createEmbedder } from '../../src/deps.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../src/adapters/sqlite/vector-index.js';
import { loadConfig } from '../../src/config.js';
import { chunkPages } from '../../src/domain/chunking.js';
import { evidenceSentences } from '../../src/domain/sentences.js';
import { createHttpDownloader } from '../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../src/adapters/download/url-policy.js';
import { createLogger } from '../../src/logger.js';
import { corpusPath } from '../../test/support/corpus.js';
import { startStaticServer } from '../../test/support/static-server.js';
import PQueue from 'p-queue';
import { BATCHES_IN_FLIGHT } from '../../ingest/stages/embed.js';

/** One extraction pool for the whole run (its idle processes do not keep the benchmark alive). */
const extractor = createPdfExtractor();

const { values } = parseArgs({
  options: {
    files: { type: 'string' },
    embedders: { type: 'string', default: 'use,onnx:Xenova/all-MiniLM-L6-v2' },
  },
});

const modelsDir = process.env.MODELS_DIR ?? './models';
const logger = createLogger({ level: 'warn', name: 'bench-ingest' });
const all = readdirSync(corpusPath('pdf'))
  .filter((f) => f.endsWith('.pdf'))
  .map((f) => ({ f, size: statSync(corpusPath('pdf', f)).size }))
  .sort((a, b) => a.size - b.size)
  .map((x) => x.f);
const limit = values.files === undefined ? all.length : Number(values.files);
if (!Number.isInteger(limit) || limit < 1) throw new Error(`--files must be a positive integer, got ${values.files}`);
const files = all.slice(0, limit);

const server = await startStaticServer({ root: corpusPath('pdf'), mount: '/pdf' });
const rows: string[] = [];

for (const spec of (values.embedders ?? 'use')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)) {
  // As the worker would run this embedder (SENTENCE_VECTORS, `auto` by default: on for onnx models).
  const config = loadConfig({ ...process.env, EMBEDDER: spec });
  const sentenceVectors = config.SENTENCE_VECTORS;
  let embedder;
  try {
    embedder = await createEmbedder(config.EMBEDDER, { modelsDir, allowRemoteModels: false, openai: {}, logger });
  } catch (err) {
    console.log(`${spec}: skipped (${err instanceof Error ? err.message : String(err)})`);
    continue;
  }
  // Warm-up: the first calls compile kernels / allocate; neither measurement should pay for that.
  await embedder.embed(['warm up the model with a sentence of ordinary length about forests and carbon.'.repeat(4)]);

  const db = openSqlite({ dataDir: ':memory:' });
  const deps = {
    records: await createSqliteRecordStore({ db }),
    states: await createSqliteDocumentStateStore({ db }),
    texts: await createSqliteDocumentTextStore({ db }),
    index: await createSqliteVectorIndex({ db }),
    embedder,
  };
  const ref = { registry: 'Verra', projectId: 900_000 };
  await deps.records.upsert([
    {
      ref,
      format: 'registry-json',
      raw: {
        registry: 'Verra',
        resourceIdentifier: String(ref.projectId),
        resourceName: 'bench',
        documentGroups: [
          {
            code: 'VCS_OTHER_DOCUMENTS',
            description: 'Other',
            documents: files.map((f) => ({ documentName: f, documentType: 'Other', uploadDate: null, uri: `${server.baseUrl}/pdf/${f}` })),
          },
        ],
      },
    },
  ]);

  // The same texts the pipeline will embed (same extraction, same budget: each chunk and its sentences), embedded
  // back to back before and after the pipeline run; the mean of the two evens out drift in machine load.
  const budget = chunkTokenBudget(embedder.maxInputTokens);
  const texts: string[] = [];
  let chunkCount = 0;
  for (const f of files) {
    const r = await extractor.extract(readFileSync(corpusPath('pdf', f)));
    if (!r.ok) continue;
    for (const c of chunkPages(r.pages, { maxTokens: budget })) {
      texts.push(c.text, ...(sentenceVectors ? evidenceSentences(c.text) : []));
      chunkCount++;
    }
  }
  const rawRun = async (): Promise<number> => {
    const t0 = performance.now();
    // As many batches queued at the embedder as the embed stage keeps, so both sides measure a saturated embedder.
    const queue = new PQueue({ concurrency: BATCHES_IN_FLIGHT });
    const batches: Promise<unknown>[] = [];
    for (let i = 0; i < texts.length; i += embedder.maxBatchSize) {
      batches.push(queue.add(() => embedder.embed(texts.slice(i, i + embedder.maxBatchSize), 'document')));
    }
    await Promise.all(batches);
    return (performance.now() - t0) / 1000;
  };
  const rawBefore = await rawRun();

  const summary = await runIngest({
    deps,
    projects: [ref],
    logger,
    downloader: createHttpDownloader({ policy: createUrlPolicy([server.hostPort]) }),
    extractor,
    sentenceVectors,
  });
  if (summary.documents.failed > 0) console.log('failures:', summary.failures);

  const rawAfter = await rawRun();
  const rawSeconds = (rawBefore + rawAfter) / 2;

  const pipeSeconds = summary.durationMs / 1000;
  const pipeCps = summary.chunks / pipeSeconds;
  const rawCps = chunkCount / rawSeconds;
  rows.push(
    `| ${embedder.id} | ${summary.documents.indexed}/${files.length} | ${summary.pages} | ${summary.chunks} | ` +
      `${pipeSeconds.toFixed(1)} | ${(summary.pages / pipeSeconds).toFixed(2)} | ${pipeCps.toFixed(2)} | ` +
      `${rawCps.toFixed(2)} (${(chunkCount / rawBefore).toFixed(2)} / ${(chunkCount / rawAfter).toFixed(2)}) | ` +
      `${((100 * pipeCps) / rawCps).toFixed(0)}% | ${((100 * summary.embedSeconds) / pipeSeconds).toFixed(0)}% |`,
  );
  console.log(rows[rows.length - 1]);
  await embedder.close();
  db.close();
}

await server.close();
console.log(
  '\n| embedder | documents | pages | chunks | pipeline s | pages/s | pipeline chunks/s | raw embedder chunks/s (before / after) | pipeline / raw | embedder busy |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
process.exit(0);
