/**
 * Abstention signals side by side (docs/experiments/abstention-signals.md): every question is asked as calibrate.ts
 * asks it, through the real search with the extractive reader, and for each the reader's support and its two parts,
 * the dense score of the cited passages (the vector list's score: mean of chunk and best-sentence cosine), the share
 * of the question's words the searched projects' whole index uses (`projShare`, from the cached index's chunks) or
 * the cited passages' projects use (`citedProjShare`), and ranks in the two retrieval lists. Prints supported /
 * answered / refused for each candidate at the threshold chosen for it on development; on the development corpus it
 * also writes each question's row as JSON lines to --out, for offline study. On the validation corpus only the totals
 * are printed (the judge rule).
 *
 *   npx tsx bench/eval/abstain-study.ts [--corpus ../shared/corpus-validation] [--out rows.jsonl] [--qa a.jsonl,b.jsonl]
 *     [--unanswerable c.jsonl] [--own] [--unanswerable-all]
 *
 * --own asks each answerable question of its gold document's project only (the eval asks it of every project);
 * --unanswerable-all asks each unanswerable question of every project (the eval asks it of its own).
 */
import { writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { createExtractiveReader } from '../../src/adapters/readers/extractive.js';
import { createExtractiveSummarizer } from '../../src/adapters/summarizers/extractive.js';
import { ANSWER_TUNING, type AnswerTuning } from '../../src/domain/answer/tuning.js';
import { documentShare, scoredCandidates } from '../../src/domain/answer/read.js';
import { normalizedTerms } from '../../src/domain/query.js';
import { buildSearch } from '../../src/deps.js';
import type { Reader, ReadRequest } from '../../src/ports/reader.js';
import type { Reranker } from '../../src/ports/reranker.js';
import type { ScoredChunk, VectorIndex } from '../../src/ports/vector-index.js';
import { evidenceSupported, readUnanswerable } from './answers.js';
import { corpusLayout } from './corpus.js';
import { arg, evalDataDir, flag, openCachedIndex } from './harness.js';
import { readQuestions } from './questions.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Ref = { registry: string; projectId: number };

/** Each project's words over its indexed chunks, and each document's project, from the cached index. */
function projectVocabularies(corpusName: string): { vocab: Map<string, Set<string>>; owner: Map<string, Ref> } {
  const db = new Database(path.join(evalDataDir('use', corpusName), 'carbon-docs.sqlite'), { readonly: true });
  const vocab = new Map<string, Set<string>>();
  const owner = new Map<string, Ref>();
  try {
    const docs = db.prepare('SELECT DISTINCT registry, project_id, document_title FROM chunks').all() as {
      registry: string;
      project_id: number;
      document_title: string;
    }[];
    for (const r of docs) owner.set(r.document_title, { registry: r.registry, projectId: r.project_id });
    const chunks = db.prepare('SELECT registry, project_id, text FROM chunks').iterate() as Iterable<{
      registry: string;
      project_id: number;
      text: string;
    }>;
    for (const r of chunks) {
      const key = `${r.registry}:${r.project_id}`;
      const set = vocab.get(key) ?? new Set<string>();
      for (const t of normalizedTerms(r.text)) set.add(t);
      vocab.set(key, set);
    }
  } finally {
    db.close();
  }
  return { vocab, owner };
}

/** What the last search saw: its dense and full-text lists, its ranked citations, its reader request and support. */
interface Seen {
  vector: ScoredChunk[];
  text: ScoredChunk[];
  ranked: ScoredChunk[];
  request?: ReadRequest;
  support: number;
}

/** The index, reranker (pass-through) and reader of the search, each recording what it saw into `seen`. */
function instrumented(index: VectorIndex, tuning: AnswerTuning, seen: Seen): { index: VectorIndex; reranker: Reranker; reader: Reader } {
  const watched: VectorIndex = Object.create(index) as VectorIndex;
  watched.searchVector = async (...a) => (seen.vector = await index.searchVector(...a));
  watched.searchText = async (...a) => (seen.text = await index.searchText(...a));
  const inner = createExtractiveReader(tuning);
  return {
    index: watched,
    reranker: { id: 'none', window: 0, rerank: async (_q, candidates, topK) => (seen.ranked = candidates.slice(0, topK)) },
    reader: {
      id: inner.id,
      async read(request, signal) {
        const r = await inner.read(request, signal);
        seen.request = request;
        seen.support = r.support;
        return r;
      },
    },
  };
}

/** Share of the terms that one of the vocabularies holds. */
function shareIn(terms: readonly string[], vocabs: readonly Set<string>[]): number {
  return terms.length === 0 ? 0 : terms.filter((t) => vocabs.some((v) => v.has(t))).length / terms.length;
}

/** The candidate signals of the last search, asked of `refs`. */
function features(seen: Seen, refs: readonly Ref[], vocab: Map<string, Set<string>>, tuning: AnswerTuning) {
  const req = seen.request as ReadRequest;
  const scored = scoredCandidates(req.question, req.passages, { scope: req.scope, tuning });
  const terms = scored.questionTerms ?? [];
  const docShare = documentShare(terms, req.passages);
  const usedBy = req.passages.map((p) => p.usesWord ?? ((t: string) => normalizedTerms(p.text).includes(t)));
  const vocabOf = (r: Ref): Set<string> => vocab.get(`${r.registry}:${r.projectId}`) ?? new Set<string>();
  const cited = [...new Map(seen.ranked.map((c) => [`${c.registry}:${c.projectId}`, c])).values()];
  const dense = new Map(seen.vector.map((c) => [c.id, c.score]));
  const citedDense = seen.ranked.map((c) => dense.get(c.id) ?? seen.vector.at(-1)?.score ?? 0);
  const scores = seen.vector.map((c) => c.score);
  const mean = scores.reduce((a, b) => a + b, 0) / Math.max(1, scores.length);
  const sd = Math.sqrt(scores.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, scores.length)) || 1;
  const vRank = new Map(seen.vector.map((c, i) => [c.id, i + 1]));
  const tRank = new Map(seen.text.map((c, i) => [c.id, i + 1]));
  const top8v = new Set(seen.vector.slice(0, 8).map((c) => c.id));
  return {
    support: seen.support,
    coverage: 2 * seen.support - docShare,
    docShare,
    docShareW: scored.coverageOf?.(terms.filter((t) => usedBy.some((u) => u(t)))) ?? docShare,
    projShare: shareIn(terms, refs.map(vocabOf)),
    citedProjShare: shareIn(terms, cited.map(vocabOf)),
    terms: terms.length,
    dense1: citedDense[0] ?? 0,
    denseMax: Math.max(0, ...citedDense),
    denseMean3: citedDense.slice(0, 3).reduce((s, x) => s + x, 0) / Math.max(1, Math.min(3, citedDense.length)),
    vecTop: seen.vector[0]?.score ?? 0,
    vecMean: mean,
    denseZ1: ((citedDense[0] ?? mean) - mean) / sd,
    vecZ: ((seen.vector[0]?.score ?? mean) - mean) / sd,
    vRank1: vRank.get(seen.ranked[0]?.id ?? '') ?? 99,
    vRankMin3: Math.min(99, ...seen.ranked.slice(0, 3).map((c) => vRank.get(c.id) ?? 99)),
    tRank1: tRank.get(seen.ranked[0]?.id ?? '') ?? 99,
    agree8: seen.text.slice(0, 8).filter((c) => top8v.has(c.id)).length,
    fused1: seen.ranked[0]?.score ?? 0,
  };
}

async function main(): Promise<void> {
  const corpus = corpusLayout(arg('corpus') ?? path.resolve(repoRoot, '../shared/corpus'));
  // On the validation corpus only totals are printed (the judge rule): per-question rows are for development.
  const validation = corpus.name.includes('validation');
  const rows: Row[] = [];
  const out = arg('out') ?? path.join(tmpdir(), 'abstain-study.jsonl');
  if (!validation) writeFileSync(out, '');
  const tuning: AnswerTuning = { ...ANSWER_TUNING, answeredSupport: 0, hedgedSupport: 0 };
  const { config, logger, deps } = await openCachedIndex('use', 'study', corpus.name);
  const { vocab, owner } = projectVocabularies(corpus.name);
  const seen: Seen = { vector: [], text: [], ranked: [], support: 0 };
  const { index, reranker, reader } = instrumented(deps.index, tuning, seen);
  const composer = createExtractiveSummarizer(tuning);
  const { search, summarizer } = await buildSearch(config, logger, { ...deps, index }, deps.embedder, {
    reader,
    reranker,
    tuning,
    summarizer: composer,
    fallbackSummarizer: composer,
  });
  const emit = (row: Row & { id: string }): void => {
    rows.push(row);
    if (!validation) appendFileSync(out, `${JSON.stringify(row)}\n`);
  };
  try {
    const all = await deps.records.list();
    const files = (name: string, fallback: string | undefined): string[] =>
      (arg(name) ?? fallback ?? '').split(',').filter((f) => f !== '');
    for (const q of files('qa', corpus.questions).flatMap(readQuestions)) {
      const own = owner.get(q.file);
      const refs = flag('own') && own ? [own] : all;
      const res = await search.search({ projects: refs.map((ref) => ({ ref, requestedRegistry: ref.registry })), query: q.question });
      emit({
        id: q.id,
        answerable: true,
        supported: evidenceSupported(q, res.answer, res.citations),
        ...features(seen, refs, vocab, tuning),
      });
    }
    for (const q of files('unanswerable', corpus.unanswerable).flatMap(readUnanswerable)) {
      const refs = flag('unanswerable-all') ? all : q.projects.map((p) => ({ registry: p.registry, projectId: p.project_id }));
      await search.search({ projects: refs.map((ref) => ({ ref, requestedRegistry: ref.registry })), query: q.question });
      emit({ id: q.id, answerable: false, supported: null, ...features(seen, refs, vocab, tuning) });
    }
    totals(rows);
  } finally {
    await summarizer.close();
    await deps.close();
  }
}

interface Row {
  answerable: boolean;
  supported: boolean | null;
  coverage: number;
  docShare: number;
  projShare: number;
  citedProjShare: number;
  dense1: number;
  support: number;
}

/** Supported / answered / refused for each signal at the threshold chosen for it on development. */
function totals(rows: Row[]): void {
  const signals: [string, number, (r: Row) => number][] = [
    ['support (now)', 0.5, (r) => r.support],
    ['A cov+doc+dense1', 0.52, (r) => (r.coverage + r.docShare + r.dense1) / 3],
    ['B cov+proj', 0.5, (r) => (r.coverage + r.projShare) / 2],
    ['C cov+citedProj', 0.5, (r) => (r.coverage + r.citedProjShare) / 2],
    ['D cov+proj+dense1', 0.52, (r) => (r.coverage + r.projShare + r.dense1) / 3],
  ];
  for (const [name, t, f] of signals) {
    const pos = rows.filter((r) => r.answerable);
    const neg = rows.filter((r) => !r.answerable);
    const answered = pos.filter((r) => f(r) >= t);
    process.stdout.write(
      `${name} @${t}: supported ${answered.filter((r) => r.supported).length}, answered ${answered.length}/${pos.length}, refused ${neg.filter((r) => f(r) < t).length}/${neg.length}\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`study failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
