/**
 * Throughput of the embedders on chunk-sized text from the corpus: load time, texts/s, memory.
 *
 *   npx tsx bench/embedders/main.ts [--embedders use,onnx:Xenova/all-MiniLM-L6-v2] [--texts 200] [--words 200]
 *
 * Numbers, not pass/fail. USE runs in a worker thread (its memory shows in this process's RSS); ONNX runs in a
 * child process, whose RSS is read from /proc.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PDFParse } from 'pdf-parse';
import { parseEmbedderSetting } from '../../src/config.js';
import { createEmbedder } from '../../src/deps.js';
import { corpusPath, repoRoot } from '../../test/support/corpus.js';

const { values } = parseArgs({
  options: {
    embedders: { type: 'string', default: 'use,onnx:Xenova/all-MiniLM-L6-v2' },
    texts: { type: 'string', default: '200' },
    words: { type: 'string', default: '200' },
  },
});
const nTexts = Number(values.texts);
const nWords = Number(values.words);

async function corpusChunks(): Promise<string[]> {
  const words: string[] = [];
  for (const f of ['VCS5533_project_description.pdf', 'CDM9199_colombia_forestry_validation_report.pdf']) {
    const parser = new PDFParse({ data: readFileSync(corpusPath('pdf', f)) });
    const r = await parser.getText();
    await parser.destroy();
    words.push(...r.text.split(/\s+/).filter((w) => w.length > 0));
  }
  const out: string[] = [];
  for (let i = 0; out.length < nTexts; i = (i + nWords) % Math.max(1, words.length - nWords)) {
    out.push(words.slice(i, i + nWords).join(' '));
  }
  return out;
}

/** RSS (MB) and CPU time (s) of this process's child processes (the ONNX worker), `ps` itself excluded. */
function children(): { rssMb: number; cpuS: number } {
  try {
    const out = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'rss=,times=,comm='], { encoding: 'utf8' });
    let rssMb = 0;
    let cpuS = 0;
    for (const line of out.split('\n')) {
      const [rss, times, comm] = line.trim().split(/\s+/);
      if (!rss || comm === 'ps') continue;
      rssMb += Number(rss) / 1024;
      cpuS += Number(times);
    }
    return { rssMb, cpuS };
  } catch {
    return { rssMb: 0, cpuS: 0 };
  }
}

/** CPU seconds used so far by this process (all its threads) and its children. */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6 + children().cpuS;
}

const mb = (n: number) => Math.round(n / 1024 / 1024);
const texts = await corpusChunks();
console.log(
  `${texts.length} texts of ${nWords} words; node ${process.version}; ${os.cpus().length} CPUs; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

for (const spec of (values.embedders ?? '').split(',').filter(Boolean)) {
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const e = await createEmbedder(parseEmbedderSetting(spec), {
    modelsDir: process.env.MODELS_DIR ?? path.join(repoRoot, 'models'),
    allowRemoteModels: false,
    openai: {},
  });
  const loadMs = performance.now() - t0;
  await e.embed(texts.slice(0, 2)); // warm-up
  const cpu0 = cpuSeconds();
  const t1 = performance.now();
  await e.embed(texts);
  const secs = (performance.now() - t1) / 1000;
  const cpu = cpuSeconds() - cpu0;
  // Texts per CPU-second stays comparable when other work shares the machine; wall-clock texts/s does not.
  console.log(
    `${e.id.padEnd(30)} load ${Math.round(loadMs)} ms  ${(texts.length / secs).toFixed(1)} texts/s wall ` +
      `(${secs.toFixed(1)} s, batch ${e.maxBatchSize}), ${(texts.length / cpu).toFixed(1)} texts per CPU-second  ` +
      `RSS this process ${mb(process.memoryUsage().rss)} MB (+${mb(process.memoryUsage().rss - rssBefore)}), ` +
      `worker process ${Math.round(children().rssMb)} MB`,
  );
  await e.close();
}
