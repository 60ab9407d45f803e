/**
 * Embedder throughput per core: K model instances side by side (each as a worker process would hold one), each with T
 * compute threads, embedding the same chunk texts of the smallest corpus PDFs; aggregate chunks/s. Chooses how many
 * worker processes a machine should run and EMBED_THREADS for each.
 *
 *   npx tsx bench/threads/main.ts [--files 2] [--configs use:1x0,use:2x0,onnx:1x0,onnx:1x1,onnx:2x1,onnx:2x2]
 *
 * A config is <embedder>:<instances>x<threads>; `onnx` is Xenova/all-MiniLM-L6-v2 from MODELS_DIR; threads 0 is the
 * runtime's default (onnxruntime: one per core; USE lite: always one, it computes in JavaScript).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chunkTokenBudget } from '../../ingest/stages/chunk.js';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import type { EmbedderSpec } from '../../src/config.js';
import { createEmbedder } from '../../src/deps.js';
import { chunkPages } from '../../src/domain/chunking.js';
import type { Embedder } from '../../src/ports/embedder.js';
import { corpusPath } from '../../test/support/corpus.js';

/** One extraction pool for the whole run (its idle processes do not keep the benchmark alive). */
const extractor = createPdfExtractor();

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '2' },
    configs: { type: 'string', default: 'use:1x0,use:2x0,onnx:1x0,onnx:1x1,onnx:2x1,onnx:2x2' },
  },
});
const modelsDir = path.resolve(process.env.MODELS_DIR ?? './models');
const files = readdirSync(corpusPath('pdf'))
  .filter((f) => f.endsWith('.pdf'))
  .map((f) => ({ f, size: statSync(corpusPath('pdf', f)).size }))
  .sort((a, b) => a.size - b.size)
  .slice(0, Number(values.files))
  .map((x) => x.f);
const pages: string[][] = [];
for (const f of files) {
  const r = await extractor.extract(readFileSync(corpusPath('pdf', f)));
  if (r.ok) pages.push(r.pages);
}

const rows: string[] = [];
for (const config of (values.configs ?? '').split(',').filter(Boolean)) {
  const m = /^(use|onnx):(\d+)x(\d+)$/.exec(config.trim());
  if (!m) throw new Error(`bad config ${config}: expected <use|onnx>:<instances>x<threads>`);
  const spec: EmbedderSpec = m[1] === 'use' ? { kind: 'use' } : { kind: 'onnx', modelId: 'Xenova/all-MiniLM-L6-v2' };
  const instances = Number(m[2]);
  const threads = Number(m[3]);
  const embedders: Embedder[] = [];
  for (let i = 0; i < instances; i++)
    embedders.push(await createEmbedder(spec, { modelsDir, allowRemoteModels: false, threads, openai: {} }));
  const first = embedders[0] as Embedder;
  const texts = pages.flatMap((p) => chunkPages(p, { maxTokens: chunkTokenBudget(first.maxInputTokens) }).map((c) => c.text));
  const run = async (e: Embedder): Promise<void> => {
    for (let i = 0; i < texts.length; i += e.maxBatchSize) await e.embed(texts.slice(i, i + e.maxBatchSize), 'document');
  };
  await Promise.all(embedders.map((e) => e.embed(['warm up with a sentence about forests and carbon.'])));
  const t0 = performance.now();
  await Promise.all(embedders.map(run));
  const seconds = (performance.now() - t0) / 1000;
  const cps = (instances * texts.length) / seconds;
  rows.push(
    `| ${first.id} | ${instances} | ${threads === 0 ? 'default' : threads} | ${instances * texts.length} | ${seconds.toFixed(1)} | ${cps.toFixed(2)} | ${(cps / os.availableParallelism()).toFixed(2)} |`,
  );
  console.log(rows.at(-1));
  for (const e of embedders) await e.close();
}
console.log(`\n${files.length} PDFs, ${os.availableParallelism()} cores`);
console.log('| embedder | instances (processes) | threads each | chunks | s | chunks/s | chunks/s per core |');
console.log('|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
process.exit(0);
