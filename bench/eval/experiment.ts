/**
 * Fast retrieval experiments on a corpus's cached evaluation index, without re-ingesting: copies the cached DATA_DIR
 * of one embedder (see main.ts) to a scratch folder, embeds each question once, and runs the search service
 * in-process over several settings (fusion weights, page aggregation bonus, full-text context weight).
 *
 *   npx tsx bench/eval/experiment.ts [--corpus ../shared/corpus] [--embedder use] [--qa file.jsonl]
 *     [--variants '[{"name":"text 0.8","textWeight":0.8,"vectorWeight":0.2}]'] (search service
 *       options each beside the default settings)
 *     [--context-weights 1,0.5] [--modes hybrid,text,vector] [--depth 10] (citations asked for)
 *     [--rm3 "10,10,0.5;5,10,0.7"] (RM3 feedback settings fbDocs,fbTerms,origWeight, each beside the plain run)
 *     [--project-context] (every chunk's context rewritten from the stored records) [--embed-header] (every chunk
 *       re-embedded as "context + text", ~10 min) [--strip-running-headers] (running lines moved to the context)
 *     [--misses] (the ids of the questions without the gold page in the top 5: development only)
 *
 * For comparing settings only: the published numbers come from main.ts, through the real API.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEmbedder } from '../../ingest/deps.js';
import { createPassThroughReranker } from '../../src/adapters/rerankers/none.js';
import { createExtractiveSummarizer } from '../../src/adapters/summarizers/extractive.js';
import { createExtractiveReader } from '../../src/adapters/readers/extractive.js';
import { migrateSqlite, openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import { projectSearchContext } from '../../src/domain/search-context.js';
import { indexedContext } from '../../src/adapters/full-text/chunk-context.js';
import { VECTOR_MIGRATIONS, createSqliteVectorIndex } from '../../src/adapters/sqlite/vector-index.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { Embedder } from '../../src/ports/embedder.js';
import { createSearchService, type SearchMode, type SearchServiceOptions } from '../../src/services/search.js';
import { hitRank, readQuestions } from './questions.js';
import type { ScoredChunk, VectorIndex } from '../../src/ports/vector-index.js';
import { contentWords, tokenize, isQueryStopword } from '../../src/domain/query.js';
import { projectKey } from '../../src/domain/project-ref.js';
import { corpusLayout } from './corpus.js';
import { arg, evalDataDir, flag } from './harness.js';

/**
 * RM3 pseudo-relevance feedback for the full-text side (Lavrenko & Croft 2001; Abdul-Jaleel et al. 2004, as in
 * Anserini): a first BM25 pass; a relevance model P(w|R) from its top fbDocs passages (each word's share of a passage
 * times the passage's share of the top scores); the query re-scored as origWeight x its own terms (uniform) plus
 * (1 - origWeight) x the top fbTerms words by P(w|R). BM25 is a sum over terms, so each term is searched alone and
 * the weighted sum is exact over the union of candidates (a chunk outside a term's list scores 0 for it).
 */
function withRm3(index: VectorIndex, p: { fbDocs: number; fbTerms: number; origWeight: number }): VectorIndex {
  const termList = async (term: string, refs: Parameters<VectorIndex['searchText']>[1]) =>
    new Map((await index.searchText(term, refs, 400)).map((c) => [c.id, c] as const));
  return {
    ...index,
    async searchText(query, refs, topK) {
      const qTerms = [...new Set(contentWords(query).map((w) => w.toLowerCase()))];
      const first = await index.searchText(query, refs, Math.max(topK, p.fbDocs));
      if (first.length === 0 || qTerms.length === 0) return first.slice(0, topK);
      const top = first.slice(0, p.fbDocs);
      const total = top.reduce((s, c) => s + c.score, 0) || 1;
      const rel = new Map<string, number>();
      for (const c of top) {
        const words = tokenize(c.text)
          .map((w) => w.toLowerCase())
          .filter((w) => w.length >= 3 && /\p{L}/u.test(w) && !isQueryStopword(w));
        const tf = new Map<string, number>();
        for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
        for (const [w, n] of tf) rel.set(w, (rel.get(w) ?? 0) + (n / words.length) * (c.score / total));
      }
      const qSet = new Set(qTerms);
      const fb = [...rel]
        .filter(([w]) => !qSet.has(w))
        .sort((a, b) => b[1] - a[1])
        .slice(0, p.fbTerms);
      const fbTotal = fb.reduce((s, [, x]) => s + x, 0) || 1;
      const weighted: [string, number][] = [
        ...qTerms.map((t) => [t, p.origWeight / qTerms.length] as [string, number]),
        ...fb.map(([w, x]) => [w, ((1 - p.origWeight) * x) / fbTotal] as [string, number]),
      ];
      const scores = new Map<string, { chunk: ScoredChunk; score: number }>();
      for (const [term, w] of weighted) {
        for (const [id, c] of await termList(term, refs)) {
          const cur = scores.get(id) ?? { chunk: c, score: 0 };
          cur.score += w * c.score;
          scores.set(id, cur);
        }
      }
      return [...scores.values()]
        .sort((a, b) => b.score - a.score || (a.chunk.id < b.chunk.id ? -1 : 1))
        .slice(0, topK)
        .map((s) => ({ ...s.chunk, score: s.score }));
    },
  };
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Writes the rewritten rows' indexed text and context into chunks; the full-text table follows through its triggers
 * (SQLite adapter, migration 0003), which take the old values out of BM25's statistics, so a simulation ranks with
 * the statistics a fresh index of the rewritten rows would have.
 */
function rewriteFullText(db: ReturnType<typeof openSqlite>, changed: Map<number, { text: string; context: string }>): void {
  const update = db.prepare('UPDATE chunks SET text = ?, context = ? WHERE rowid = ?');
  db.transaction(() => {
    for (const [rowid, c] of changed) update.run(c.text, c.context, rowid);
  })();
}

async function main(): Promise<void> {
  const embedderId = arg('embedder') ?? 'use';
  const corpus = corpusLayout(arg('corpus') ?? path.join(repoRoot, '../shared/corpus'));
  // The judge's questions are read by their totals only (bench/README.md "answers").
  if (flag('misses') && corpus.name.includes('validation')) throw new Error('--misses is for the development corpus only');
  const questions = readQuestions(path.resolve(arg('qa') ?? corpus.questions));
  const cachedDir = evalDataDir(embedderId, corpus.name);
  const cached = path.join(cachedDir, 'carbon-docs.sqlite');
  if (!existsSync(cached)) throw new Error(`no cached index at ${cached}: run bench/eval/main.ts first`);
  // --tag keeps concurrent runs on the same embedder apart.
  const scratch = path.join(tmpdir(), 'carbon-docs-experiment', `${path.basename(cachedDir)}${arg('tag') ? `-${arg('tag')}` : ''}`);
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  copyFileSync(cached, path.join(scratch, 'carbon-docs.sqlite'));

  const logger = createLogger({ level: 'warn', name: 'experiment' });
  const config = loadConfig({ ...process.env, DATA_DIR: scratch, EMBEDDER: embedderId, MODELS_DIR: path.join(repoRoot, 'models') });
  const db = openSqlite({ dataDir: scratch });
  // The options below rewrite chunks in the current layout (an index cached by an older version is upgraded first).
  await migrateSqlite(db, 'vectors', VECTOR_MIGRATIONS);
  const documents = await createSqliteDocumentStateStore({ db });
  const real = await buildEmbedder(config, logger);
  const vectors = new Map<string, Float32Array>();
  // Query vectors computed once per text: every setting below sees the same query embeddings.
  const embedder: Embedder = {
    ...real,
    id: real.id,
    dimensions: real.dimensions,
    async embed(texts, kind) {
      const out: Float32Array[] = [];
      for (const t of texts) {
        let v = vectors.get(t);
        if (!v) {
          [v] = await real.embed([t], kind);
          if (!v) throw new Error(`no vector for ${t}`);
          vectors.set(t, v);
        }
        out.push(v);
      }
      return out;
    },
  };
  // Full-text rows the options below rewrite, applied at the end by rewriteFullText (rowid -> indexed text, context).
  const fullText = new Map<number, { text: string; context: string }>();
  if (flag('project-context')) {
    // What ingest's chunk context (domain/search-context.ts: the project record) gives, without
    // a re-ingest: the context column of every chunk in the scratch copy rewritten from the stored records and text.
    const recordStore = await createSqliteRecordStore({ db });
    const countries = createCountryLookup();
    const docs = db.prepare('SELECT DISTINCT registry, project_id, document_id FROM chunks').all() as {
      registry: string;
      project_id: number;
      document_id: string;
    }[];
    const contextOf = new Map<string, string>();
    for (const d of docs) {
      const ref = { registry: d.registry, projectId: d.project_id };
      const stored = await recordStore.get(ref);
      const project = stored ? projectSearchContext(deriveCleaned(stored, { requestedRegistry: ref.registry, countries })) : '';
      contextOf.set(`${d.registry}:${d.project_id}:${d.document_id}`, project);
    }
    const rows = db.prepare('SELECT rowid, registry, project_id, document_id, document_title, document_type, text FROM chunks').all() as {
      rowid: number;
      registry: string;
      project_id: number;
      document_id: string;
      document_title: string;
      document_type: string;
      text: string;
    }[];
    for (const r of rows) {
      const ctx = contextOf.get(`${r.registry}:${r.project_id}:${r.document_id}`) ?? '';
      fullText.set(r.rowid, { text: r.text, context: indexedContext(r.document_title, r.document_type, ctx) });
    }
    process.stderr.write(`context rewritten for ${rows.length} chunks of ${docs.length} documents\n`);
    if (flag('show-context')) for (const [k, v] of contextOf) process.stderr.write(`--- ${k}\n${v}\n`);
  }
  if (flag('embed-header')) {
    // What contextual embedding input would give, without a re-ingest: every chunk re-embedded in the scratch copy
    // as "<indexed context: document title and type, project>\n<text>" (the citation text is unchanged), with the
    // context --project-context wrote when given.
    const rows = db.prepare('SELECT rowid, context, text FROM chunks ORDER BY rowid').all() as {
      rowid: number;
      context: string;
      text: string;
    }[];
    const update = db.prepare('UPDATE chunks SET embedding = ? WHERE rowid = ?');
    const started = performance.now();
    for (let i = 0; i < rows.length; i += real.maxBatchSize) {
      const batch = rows.slice(i, i + real.maxBatchSize);
      const out = await real.embed(
        batch.map((r) => `${fullText.get(r.rowid)?.context ?? r.context}\n${r.text}`),
        'document',
      );
      batch.forEach((r, j) => {
        const v = out[j];
        if (v) update.run(Buffer.from(v.buffer, v.byteOffset, v.byteLength), r.rowid);
      });
      if (i % (real.maxBatchSize * 20) === 0)
        process.stderr.write(`re-embedded ${i}/${rows.length} in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
    }
  }
  if (flag('strip-running-headers')) {
    // What moving running headers/footers out of the indexed text into the context would give (full text only):
    // a line (digits masked) on at least half of a document's pages, and on 3 or more, is a running line.
    const rows = db.prepare('SELECT rowid, registry, project_id, document_id, page, context, text FROM chunks').all() as {
      rowid: number;
      registry: string;
      project_id: number;
      document_id: string;
      page: number;
      context: string;
      text: string;
    }[];
    const norm = (l: string) => l.trim().toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');
    const byDoc = new Map<string, typeof rows>();
    for (const r of rows) {
      const k = `${r.registry}:${r.project_id}:${r.document_id}`;
      byDoc.set(k, [...(byDoc.get(k) ?? []), r]);
    }
    let stripped = 0;
    for (const docRows of byDoc.values()) {
      const pagesWith = new Map<string, Set<number>>();
      for (const r of docRows)
        for (const l of r.text.split('\n')) {
          const n = norm(l);
          if (n.length < 8) continue;
          pagesWith.set(n, (pagesWith.get(n) ?? new Set()).add(r.page));
        }
      const pages = new Set(docRows.map((r) => r.page)).size;
      const running = new Set([...pagesWith].filter(([, ps]) => ps.size >= Math.max(3, pages / 2)).map(([n]) => n));
      const header = [...running].join('\n');
      for (const r of docRows) {
        const kept = r.text.split('\n').filter((l) => !running.has(norm(l)));
        stripped += r.text.split('\n').length - kept.length;
        // The chunk's indexed context (document and project) stays; the running lines join it.
        fullText.set(r.rowid, { text: kept.join('\n'), context: `${fullText.get(r.rowid)?.context ?? r.context}\n${header}` });
      }
    }
    process.stderr.write(`stripped ${stripped} running lines from ${rows.length} chunks\n`);
  }
  if (fullText.size > 0) rewriteFullText(db, fullText);
  const refs = [
    ...new Map(
      (db.prepare('SELECT DISTINCT registry, project_id FROM chunks').all() as { registry: string; project_id: number }[]).map((r) => [
        projectKey({ registry: r.registry, projectId: r.project_id }),
        { ref: { registry: r.registry, projectId: r.project_id }, requestedRegistry: r.registry },
      ]),
    ).values(),
  ];

  const contextWeights = (arg('context-weights') ?? '1').split(',').map(Number);
  // The service's defaults first, then each variant's options over them.
  const variants: { name: string; opts: Partial<SearchServiceOptions> }[] = [
    { name: 'default', opts: {} },
    ...(JSON.parse(arg('variants') ?? '[]') as ({ name?: string } & Partial<SearchServiceOptions>)[]).map(({ name, ...opts }) => ({
      name: name ?? JSON.stringify(opts),
      opts,
    })),
  ];
  const modes = (arg('modes') ?? 'hybrid').split(',') as SearchMode[];
  // Citations asked for: 10 as main.ts asks; deeper shows whether a missed page is retrieved at all.
  const depth = Number(arg('depth') ?? 10);
  const rm3 = (arg('rm3') ?? '')
    .split(';')
    .filter((x) => x !== '')
    .map((x) => {
      const [fbDocs, fbTerms, origWeight] = x.split(',').map(Number);
      return { fbDocs: fbDocs ?? 10, fbTerms: fbTerms ?? 10, origWeight: origWeight ?? 0.5 };
    });
  for (const cw of contextWeights)
    for (const r of [null, ...rm3]) {
      const base = await createSqliteVectorIndex({ db, contextWeight: cw });
      await base.open({ embedderId: real.id, dimensions: real.dimensions });
      const index = r ? withRm3(base, r) : base;
      process.stdout.write(`--- rm3 ${r ? JSON.stringify(r) : 'off'}\n`);
      const lines: string[] = [];
      for (const v of variants) {
        const service = createSearchService({
          index,
          embedder,
          documents,
          summarizer: createExtractiveSummarizer(),
          fallbackSummarizer: createExtractiveSummarizer(),
          reader: createExtractiveReader(),
          reranker: createPassThroughReranker(),
          logger,
          maxTopK: 50,
          ...v.opts,
        });
        for (const mode of modes) {
          const ranks: (number | null)[] = [];
          const byKind = new Map<string, number[]>();
          for (const q of questions) {
            const res = await service.search({ projects: refs, query: q.question, topK: depth, mode });
            const rank = hitRank(q, res.citations);
            ranks.push(rank);
            byKind.set(q.kind, [...(byKind.get(q.kind) ?? []), rank !== null && rank <= 5 ? 1 : 0]);
          }
          const hits = (k: number) => ranks.filter((r) => r !== null && r <= k).length;
          const mrr = (ranks.reduce<number>((s, r) => s + (r ? 1 / r : 0), 0) / ranks.length).toFixed(3);
          const kinds = [...byKind].map(([k, xs]) => `${k} ${xs.reduce((a, b) => a + b, 0)}/${xs.length}`).join(' ');
          const misses = flag('misses')
            ? ` | miss@5 ${questions
                .filter((_, i) => !((ranks[i] ?? Infinity) <= 5))
                .map((q) => q.id)
                .join(',')}`
            : '';
          lines.push(
            `cw=${cw} ${v.name} ${mode}: r1 ${hits(1)} r5 ${hits(5)}/${ranks.length} r10 ${hits(10)}${depth > 10 ? ` r${depth} ${hits(depth)}` : ''} mrr ${mrr} | ${kinds}${misses}`,
          );
        }
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    }
  await real.close();
  db.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`experiment failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
