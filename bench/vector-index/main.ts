/**
 * Vector index benchmark: N chunks of D dims over P projects, queries filtered to F projects, top-K.
 * Each chunk has 0 to 2 x `--sentences` sentence vectors (scored as the port says: the mean of the chunk's and its
 * best sentence's cosine). Reports inserts/s, p50/p99 of vector, text and both (vector then text, as hybrid search
 * does), recall@K of the vector search against brute force, RSS and file size. Also times a vector search whose query is still pending, as
 * the search service runs it while the query embeds (the read at the call, and what remains once the vector
 * arrives), and two rejected alternatives on the same data: text ranked over every FTS5 match then filtered (why the
 * scope column is there), and vector search in one phase, carrying each candidate's text through the sort (why the
 * adapter ranks rowids first; it scores the chunks' own vectors only).
 *
 *   npx tsx bench/vector-index/main.ts [--chunks 100000] [--projects 1000] [--dims 384] [--filter 5] [--top 10]
 *                                      [--queries 200] [--sentences 3]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteVectorIndex, ftsTextExpression } from '../../src/adapters/sqlite/vector-index.js';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import type { ChunkWithVector } from '../../src/ports/vector-index.js';
import { rng } from '../../test/support/rng.js';

const { values: args } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    projects: { type: 'string', default: '1000' },
    dims: { type: 'string', default: '384' },
    filter: { type: 'string', default: '5' },
    top: { type: 'string', default: '10' },
    queries: { type: 'string', default: '200' },
    // Sentence vectors per chunk on average (uniform 0..2x); the corpus has 3.1 a chunk.
    sentences: { type: 'string', default: '3' },
  },
});
const N = Number(args.chunks);
const P = Number(args.projects);
const D = Number(args.dims);
const F = Number(args.filter);
const K = Number(args.top);
const Q = Number(args.queries);
const S = Number(args.sentences);

const rand = rng(42);

function unitVector(into: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < into.length; i++) {
    const x = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    into[i] = x;
    n += x * x;
  }
  const norm = Math.sqrt(n);
  for (let i = 0; i < into.length; i++) into[i] = (into[i] ?? 0) / norm;
  return into;
}

// Zipf-distributed synthetic vocabulary, so term frequencies look like prose (a few very common, a long tail).
const VOCAB = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`);
const zipfCdf: number[] = [];
{
  let s = 0;
  for (let i = 0; i < VOCAB.length; i++) zipfCdf.push((s += 1 / (i + 1)));
  for (let i = 0; i < zipfCdf.length; i++) zipfCdf[i] = (zipfCdf[i] ?? 0) / s;
}
function zipfWord(): string {
  const r = rand();
  let lo = 0;
  let hi = zipfCdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((zipfCdf[mid] ?? 1) < r) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo] ?? 'w0x';
}
function chunkText(): string {
  const words: string[] = [];
  for (let i = 0; i < 180; i++) words.push(zipfWord());
  if (rand() < 0.05) words.push(`VM00${String(Math.floor(rand() * 50)).padStart(2, '0')}`);
  if (rand() < 0.05) words.push(`${Math.floor(rand() * 900) + 100},${String(Math.floor(rand() * 1000)).padStart(3, '0')}`);
  return words.join(' ');
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const ms = (x: number) => `${x.toFixed(2)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-vector-index-'));
  const db = openSqlite({ dataDir: dir });
  try {
    const index = await createSqliteVectorIndex({ db });
    await index.open({ embedderId: 'bench', dimensions: D });
    const vectors = new Float32Array(N * D);
    const projectOf = new Int32Array(N);
    // Sentence vectors of chunk i: rows [firstSentence[i], firstSentence[i + 1]) of `sentences`.
    const firstSentence = new Uint32Array(N + 1);
    for (let i = 0; i < N; i++) firstSentence[i + 1] = (firstSentence[i] ?? 0) + Math.floor(rand() * (2 * S + 1));
    const sentences = new Float32Array((firstSentence[N] ?? 0) * D);
    const batch = 1000;
    let insertMs = 0;
    for (let start = 0; start < N; start += batch) {
      const chunks: ChunkWithVector[] = [];
      for (let i = start; i < Math.min(N, start + batch); i++) {
        const projectId = (i % P) + 1;
        projectOf[i] = projectId;
        const vector = unitVector(vectors.subarray(i * D, (i + 1) * D));
        const sentenceVectors: Float32Array[] = [];
        for (let k = firstSentence[i] ?? 0; k < (firstSentence[i + 1] ?? 0); k++) {
          sentenceVectors.push(unitVector(sentences.subarray(k * D, (k + 1) * D)));
        }
        chunks.push({
          id: `Verra:${projectId}:doc${i % 7}:${i}`,
          registry: 'Verra',
          projectId,
          documentId: `doc${i % 7}`,
          documentTitle: `Document ${i % 7}.pdf`,
          documentType: 'Project Description',
          uri: `https://registry.example/${projectId}/${i % 7}.pdf`,
          page: 1 + (i % 40),
          offset: 0,
          text: chunkText(),
          vector,
          sentenceVectors,
        });
      }
      const t0 = performance.now();
      await index.upsert(chunks);
      insertMs += performance.now() - t0;
    }
    const rssAfterLoad = process.memoryUsage().rss;

    const vectorTimes: number[] = [];
    const textTimes: number[] = [];
    const bothTimes: number[] = [];
    const altTextTimes: number[] = [];
    let recallSum = 0;
    let textHits = 0;
    const altText = db.prepare(`
      SELECT c.id, -bm25(chunks_fts, 1.0, 0.0) AS score FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid
      WHERE chunks_fts MATCH ? AND EXISTS (SELECT 1 FROM json_each(?) j WHERE j.value ->> 0 = c.registry
        AND j.value ->> 1 = c.project_id)
      ORDER BY score DESC LIMIT ?`);
    const altVectorTimes: number[] = [];
    const pendingReadTimes: number[] = [];
    const pendingAfterTimes: number[] = [];
    const altVector = db.prepare(`
      SELECT c.id, c.text, 1.0 - vec_distance_cosine(c.embedding, ?) AS score FROM json_each(?) AS j
      CROSS JOIN chunks AS c ON c.registry = j.value ->> 0 AND c.project_id = j.value ->> 1
      ORDER BY score DESC LIMIT ?`);
    const query = new Float32Array(D);
    for (let q = 0; q < Q; q++) {
      const projects: ProjectRef[] = [];
      const ids = new Set<number>();
      while (ids.size < F) ids.add(1 + Math.floor(rand() * P));
      for (const id of ids) projects.push({ registry: 'Verra', projectId: id });
      unitVector(query);
      // Mid-frequency words plus, every other query, a methodology code.
      const words = [VOCAB[50 + Math.floor(rand() * 500)], VOCAB[600 + Math.floor(rand() * 3000)]];
      if (q % 2 === 0) words.push(`VM00${String(Math.floor(rand() * 50)).padStart(2, '0')}`);
      const text = words.join(' ');

      let t0 = performance.now();
      const got = await index.searchVector(query, projects, K);
      const tv = performance.now() - t0;
      vectorTimes.push(tv);
      t0 = performance.now();
      const hits = await index.searchText(text, projects, K);
      const tt = performance.now() - t0;
      textTimes.push(tt);
      textHits += hits.length;
      // The alternatives get projects of their own: rows another query just read would be cached and skew timing.
      const altPairs: [string, number][] = [];
      while (altPairs.length < F) altPairs.push(['Verra', 1 + Math.floor(rand() * P)]);
      const bothProjects: ProjectRef[] = [];
      while (bothProjects.length < F) bothProjects.push({ registry: 'Verra', projectId: 1 + Math.floor(rand() * P) });
      t0 = performance.now();
      await Promise.all([index.searchVector(query, bothProjects, K), index.searchText(text, bothProjects, K)]);
      bothTimes.push(performance.now() - t0);

      // As the search service runs it: the query vector still pending (being embedded). The vectors are read at the
      // call, during the embedding; scoring and the top rows' text follow the vector.
      const pendingProjects: ProjectRef[] = [];
      while (pendingProjects.length < F) pendingProjects.push({ registry: 'Verra', projectId: 1 + Math.floor(rand() * P) });
      let release: (v: Float32Array) => void = () => undefined;
      t0 = performance.now();
      const pendingSearch = index.searchVector(new Promise<Float32Array>((r) => (release = r)), pendingProjects, K);
      pendingReadTimes.push(performance.now() - t0);
      t0 = performance.now();
      release(query);
      await pendingSearch;
      pendingAfterTimes.push(performance.now() - t0);

      t0 = performance.now();
      altVector.all(Buffer.from(query.buffer, query.byteOffset, query.byteLength), JSON.stringify(altPairs), K);
      altVectorTimes.push(performance.now() - t0);

      const expr = ftsTextExpression(text) ?? '""';
      t0 = performance.now();
      altText.all(expr, JSON.stringify(altPairs), K);
      altTextTimes.push(performance.now() - t0);

      // Brute force over the same filtered rows, in JS: the mean of the chunk's cosine and its best sentence's.
      const dot = (m: Float32Array, row: number): number => {
        let s = 0;
        const off = row * D;
        for (let d = 0; d < D; d++) s += (m[off + d] ?? 0) * (query[d] ?? 0);
        return s;
      };
      const scored: { i: number; s: number }[] = [];
      for (let i = 0; i < N; i++) {
        if (!ids.has(projectOf[i] ?? 0)) continue;
        const own = dot(vectors, i);
        let best = -Infinity;
        for (let k = firstSentence[i] ?? 0; k < (firstSentence[i + 1] ?? 0); k++) best = Math.max(best, dot(sentences, k));
        scored.push({ i, s: best === -Infinity ? own : (own + best) / 2 });
      }
      scored.sort((a, b) => b.s - a.s);
      const truth = new Set(scored.slice(0, K).map((x) => `doc${x.i % 7}:${x.i}`));
      recallSum += got.filter((g) => truth.has(g.id.split(':').slice(2).join(':'))).length / Math.max(1, truth.size);
    }
    const fileBytes = ['carbon-docs.sqlite', 'carbon-docs.sqlite-wal']
      .map((f) => {
        try {
          return statSync(path.join(dir, f)).size;
        } catch {
          return 0;
        }
      })
      .reduce((a, b) => a + b, 0);
    const out = {
      setup: `${N} chunks x ${D} dims, ${firstSentence[N]} sentence vectors, ${P} projects, filter ${F} projects, top-${K}, ${Q} queries`,
      insertsPerSecond: Math.round(N / (insertMs / 1000)),
      vector: { p50: ms(pct(vectorTimes, 50)), p99: ms(pct(vectorTimes, 99)) },
      vectorPendingQuery: {
        readAheadP50: ms(pct(pendingReadTimes, 50)),
        afterVectorP50: ms(pct(pendingAfterTimes, 50)),
        afterVectorP99: ms(pct(pendingAfterTimes, 99)),
      },
      text: { p50: ms(pct(textTimes, 50)), p99: ms(pct(textTimes, 99)), meanHits: (textHits / Q).toFixed(1) },
      both: { p50: ms(pct(bothTimes, 50)), p99: ms(pct(bothTimes, 99)) },
      vectorOnePhase: { p50: ms(pct(altVectorTimes, 50)), p99: ms(pct(altVectorTimes, 99)) },
      textRankAllThenFilter: { p50: ms(pct(altTextTimes, 50)), p99: ms(pct(altTextTimes, 99)) },
      recallAt10: (recallSum / Q).toFixed(3),
      // Includes the benchmark's own copy of every vector (N x D x 4 bytes) kept for the brute-force check.
      rssAfterLoad: mb(rssAfterLoad),
      bruteForceCopy: mb((N + (firstSentence[N] ?? 0)) * D * 4),
      rssAfterQueries: mb(process.memoryUsage().rss),
      databaseFile: mb(fileBytes),
    };
    console.log(JSON.stringify(out, null, 2));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
