/**
 * Retrieval and answer evaluation: `npm run eval` (the development corpus) or
 * `npm run eval -- --corpus ../shared/corpus-validation` (any corpus folder, bench/eval/corpus.ts).
 *
 * Ingests the corpus folder (records + PDFs served from a local HTTP server, through the real ingest pipeline) once
 * per embedder into a cached DATA_DIR under the system temp folder, starts the real API, sends every question
 * through POST /projects-documents/batch-search with every corpus project in the list, and reports page-level
 * recall@1/5/10 and MRR (a hit: a citation of the question's `file` on one of its `pages`), overall and per `kind`,
 * for hybrid, full-text-only and dense-only retrieval.
 *
 * Options:
 *   --corpus <dir>           the corpus folder (records, pdf/, questions); default CORPUS_DIR or ../shared/corpus
 *   --qa <file.jsonl>        questions ({id, question, file, pages, kind}); default the corpus folder's qa-*.jsonl
 *   --embedders <a,b>        default: use,onnx:Xenova/all-MiniLM-L6-v2 (MiniLM skipped when MODELS_DIR lacks it)
 *   --modes <a,b>            default: hybrid,text,vector
 *   --fresh                  rebuild the cached index
 *   --reuse                  keep a cached index even when the indexing code changed since (query-side experiments)
 *   --json <file>            also write the raw results
 *   --misses                 print the questions hybrid retrieval missed at 5
 *   --unanswerable <file>    questions whose answer is absent ({id, question, projects}); default the corpus
 *                            folder's qa-*-unanswerable.jsonl when present; "none" skips them
 *   --answers                print every hybrid answer with its verdicts
 *   --per-project            also ask each question with perProject over every corpus project, and judge the answer
 *                            of the project that owns the question's file (and how often the others answer)
 *   --swapped-scope          also ask each answerable question of the project that owns its file alone, and each
 *                            unanswerable question of every corpus project: the two asks the default run does not make
 *
 * Answers (hybrid mode, the default configuration's answer): evidence-supported share (bench/eval/answers.ts), median
 * answer length, answers with contents leaders, quotes that are not verbatim substrings of their passage, citations
 * of contents pages (any rank), abstention (`answered`) on the answerable and the unanswerable questions, and where
 * each unsupported answer lost the evidence (answers.ts unsupportedReason). Questions are split into a tuning half (dev-001..045) and a report half (dev-046..090) for recall@5 and support.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDownloader, buildIngestDeps, buildPdfExtractor } from '../../ingest/deps.js';
import { runIngest } from '../../ingest/pipeline.js';
import { importRecords } from '../../ingest/records.js';
import { loadConfig, parseEmbedderSetting } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { ANSWER_HEDGE, type SearchMode } from '../../src/services/search.js';
import { startStaticServer } from '../../test/support/static-server.js';
import { corpusLayout } from './corpus.js';
import { arg, evalConfig, evalDataDir, flag, startSearchServer } from './harness.js';
import {
  evidenceSupported,
  readUnanswerable,
  statedElsewhere,
  unsupportedReason,
  type UnanswerableQuestion,
  type UnsupportedReason,
} from './answers.js';
import { hitRank, readQuestions, type Question } from './questions.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpus = corpusLayout(arg('corpus') ?? process.env.CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus'));

/**
 * A contents line's dot leader ("3.4 Baseline ........ 43"): in an answer it is a contents line quoted, in a cited
 * passage a contents page cited. Independent of the service's own detector (domain/page-furniture.ts).
 */
const LEADER_RUN = /(?:\.\s?){5,}/;

interface Citation {
  id: number;
  documentTitle: string;
  page: number;
  text: string;
  quote?: string;
}

interface SearchBody {
  answer: string;
  answered?: boolean;
  citations: Citation[];
  projects?: { projectId: number; registry: string; answer?: string; answered?: boolean; citationIds?: number[] }[];
}

/** A question asked with perProject over every corpus project (--per-project): the owning project's answer judged. */
interface PerProjectResult {
  supported: boolean;
  answered: boolean;
  /** Of the other projects, how many answered (a fact they state too, or a false answer). */
  othersAnswered: number;
  others: number;
}

/** What the hybrid search answered (answer-quality measures). */
interface AnswerResult {
  id: string;
  embedder: string;
  /** null for an unanswerable question (no gold evidence). */
  supported: boolean | null;
  /** Where an unsupported answer lost the evidence (answers.ts unsupportedReason); null when supported or unanswerable. */
  reason: UnsupportedReason | null;
  /**
   * An unsupported answer that states the evidence from a cited passage on a page the question does not name
   * (answers.ts statedElsewhere); false otherwise.
   */
  elsewhere: boolean;
  answerable: boolean;
  answered: boolean | undefined;
  chars: number;
  leaders: boolean;
  /** The answer begins with the service's hedge (search.ts ANSWER_HEDGE: answered on little evidence). */
  hedged: boolean;
  quotesVerbatim: boolean;
  /**
   * Citations of a contents page, any rank: text with a dot-leader run ("3.4 Baseline ........ 43"), judged apart
   * from the service's own detector (domain/page-furniture.ts), which once missed contents pages cut into chunks.
   */
  contentsCited: number;
  perProject?: PerProjectResult;
  /**
   * --swapped-scope: the same question asked of the other scope (an answerable one of its owning project alone, an
   * unanswerable one of every corpus project): whether that answer is evidence-supported (null for an unanswerable
   * question) and whether it was given.
   */
  swapped?: { supported: boolean | null; answered: boolean | undefined };
  answer: string;
}

interface QuestionResult {
  id: string;
  kind: string;
  embedder: string;
  mode: SearchMode;
  /** 1-based rank of the first hit among the citations, or null. */
  rank: number | null;
  ms: number;
  top: string[];
}

/** Source files that decide what the index holds (chunks, their sentences, text and context): a change rebuilds the cache. */
const INDEXING_SOURCES = [
  'src/domain/chunking.ts',
  'src/domain/page-furniture.ts',
  'src/domain/search-context.ts',
  'src/domain/sentences.ts',
  'src/adapters/full-text/chunk-context.ts',
  ...readdirSync(path.join(repoRoot, 'ingest', 'stages'))
    .sort()
    .map((f) => `ingest/stages/${f}`),
];

/** Changes when the PDFs, the records or the indexing code change, so a stale cached index is rebuilt. */
function corpusFingerprint(sentenceVectors: boolean): string {
  const h = createHash('sha256');
  for (const f of INDEXING_SOURCES) h.update(readFileSync(path.join(repoRoot, f)));
  for (const f of readdirSync(corpus.pdfDir).sort()) {
    h.update(`${f}:${statSync(path.join(corpus.pdfDir, f)).size}\n`);
  }
  h.update(readFileSync(corpus.records));
  // Kept out of the hash when off, so indexes cached before the setting existed stay valid.
  if (sentenceVectors) h.update('sentence vectors');
  return h.digest('hex').slice(0, 16);
}

function metrics(results: QuestionResult[]): { n: number; r1: number; r5: number; r10: number; mrr: number } {
  const n = results.length;
  const at = (k: number) => results.filter((r) => r.rank !== null && r.rank <= k).length / Math.max(1, n);
  const mrr = results.reduce((s, r) => s + (r.rank !== null && r.rank <= 10 ? 1 / r.rank : 0), 0) / Math.max(1, n);
  return { n, r1: at(1), r5: at(5), r10: at(10), mrr };
}

const f2 = (x: number): string => x.toFixed(2);

async function evaluateEmbedder(
  embedder: string,
  questions: Question[],
  modes: SearchMode[],
  unanswerable: UnanswerableQuestion[],
  answers: AnswerResult[],
): Promise<QuestionResult[]> {
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', name: 'eval' });
  const dataDir = evalDataDir(embedder, corpus.name);
  const marker = path.join(dataDir, 'eval-cache.json');
  const fingerprint = corpusFingerprint(loadConfig({ ...process.env, EMBEDDER: embedder }).SENTENCE_VECTORS);
  if (flag('fresh')) rmSync(dataDir, { recursive: true, force: true });
  const cached =
    existsSync(marker) &&
    (flag('reuse') || (JSON.parse(readFileSync(marker, 'utf8')) as { fingerprint?: string }).fingerprint === fingerprint);
  if (!cached) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });

  const files = await startStaticServer({ root: corpus.pdfDir, mount: '/pdf' });
  const config = evalConfig(embedder, { DOWNLOAD_ALLOW_HOSTS: files.hostPort, DATA_DIR: dataDir });
  const deps = await buildIngestDeps(config, logger);
  try {
    if (cached) {
      process.stderr.write(`[${embedder}] using the cached index in ${dataDir}\n`);
      // runIngest opens the index otherwise; the API must open it with its embedder before searching.
      await deps.index.open({ embedderId: deps.embedder.id, dimensions: deps.embedder.dimensions });
    } else {
      process.stderr.write(`[${embedder}] ingesting ${corpus.dir} into ${dataDir} ...\n`);
      const imported = await importRecords(deps.records, corpus.records, {
        replaceBase: files.baseUrl,
        logger,
      });
      if (imported.failed.length > 0) throw new Error(`record import failed: ${JSON.stringify(imported.failed)}`);
      const summary = await runIngest({
        deps,
        all: true,
        logger,
        progress: true,
        downloader: buildDownloader(config),
        extractor: buildPdfExtractor(config),
        sentenceVectors: config.SENTENCE_VECTORS,
      });
      process.stderr.write(
        `[${embedder}] ingested ${summary.documents.indexed} documents, ${summary.pages} pages, ${summary.chunks} chunks ` +
          `in ${(summary.durationMs / 1000).toFixed(1)} s (embedding ${summary.embedSeconds.toFixed(1)} s); ` +
          `failures: ${summary.failures.length}\n`,
      );
      if (summary.failures.length > 0) throw new Error(`ingest failures: ${JSON.stringify(summary.failures)}`);
      writeFileSync(marker, JSON.stringify({ fingerprint, embedder, at: new Date().toISOString() }));
    }

    const projects = await deps.records.list();
    // Every question is asked of every corpus project.
    const projectList = projects.map((p) => ({ project_id: p.projectId, registry: p.registry }));
    // --per-project: which project a question's file belongs to.
    const ownerOf =
      flag('per-project') || flag('swapped-scope')
        ? new Map((await deps.states.list({ status: 'indexed' })).map((d) => [d.title, `${d.registry}\u0000${d.projectId}`]))
        : new Map<string, string>();
    const api = await startSearchServer(config, deps, logger);
    const results: QuestionResult[] = [];
    const ask = async (id: string, body: object): Promise<SearchBody> => {
      const res = await fetch(`${api.baseUrl}/projects-documents/batch-search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status !== 200) throw new Error(`${id}: HTTP ${res.status}: ${await res.text()}`);
      return (await res.json()) as SearchBody;
    };
    const answerResult = (id: string, body: SearchBody, q: Question | null): AnswerResult => {
      const supported = q ? evidenceSupported(q, body.answer, body.citations) : null;
      return {
        id,
        embedder,
        supported,
        reason: q && !supported ? unsupportedReason(q, body.answered, body.citations) : null,
        elsewhere: q !== null && !supported && statedElsewhere(q, body.answer, body.citations),
        answerable: q !== null,
        answered: body.answered,
        chars: body.answer.length,
        leaders: LEADER_RUN.test(body.answer),
        hedged: body.answer.startsWith(ANSWER_HEDGE),
        quotesVerbatim: body.citations.every((c) => typeof c.quote === 'string' && c.quote !== '' && c.text.includes(c.quote)),
        contentsCited: body.citations.filter((c) => LEADER_RUN.test(c.text)).length,
        answer: body.answer,
      };
    };
    try {
      for (const q of unanswerable) {
        // The default request: topK left to the server, as a user would send it.
        const body = await ask(q.id, { projectList: q.projects, query: q.question });
        const judged = answerResult(q.id, body, null);
        if (flag('swapped-scope')) {
          const all = await ask(q.id, { projectList, query: q.question });
          judged.swapped = { supported: null, answered: all.answered };
        }
        answers.push(judged);
      }
      for (const mode of modes) {
        for (const q of questions) {
          const started = performance.now();
          const body = await ask(q.id, {
            projectList,
            query: q.question,
            topK: 10,
            mode,
          });
          const ms = performance.now() - started;
          if (mode === 'hybrid') {
            // The answer a user gets: the default topK, the same projects.
            const asked = await ask(q.id, {
              projectList,
              query: q.question,
            });
            const judged = answerResult(q.id, asked, q);
            if (flag('per-project')) {
              const each = await ask(q.id, {
                projectList,
                query: q.question,
                perProject: true,
              });
              judged.perProject = perProjectResult(q, each, ownerOf.get(q.file));
            }
            const owner = ownerOf.get(q.file);
            if (flag('swapped-scope') && owner) {
              const alone = await ask(q.id, {
                projectList: projectList.filter((p) => `${p.registry}\u0000${p.project_id}` === owner),
                query: q.question,
              });
              judged.swapped = { supported: evidenceSupported(q, alone.answer, alone.citations), answered: alone.answered };
            }
            answers.push(judged);
          }
          results.push({
            id: q.id,
            kind: q.kind,
            embedder,
            mode,
            rank: hitRank(q, body.citations),
            ms,
            top: body.citations.slice(0, 5).map((c) => `${c.documentTitle}#${c.page}`),
          });
        }
      }
    } finally {
      await api.close();
    }
    return results;
  } finally {
    await deps.close();
    await files.close();
  }
}

function perProjectResult(q: Question, body: SearchBody, owner: string | undefined): PerProjectResult {
  const states = body.projects ?? [];
  const own = states.find((p) => `${p.registry}\u0000${p.projectId}` === owner);
  const ids = new Set(own?.citationIds ?? []);
  const others = states.filter((p) => p !== own);
  return {
    supported: own
      ? evidenceSupported(
          q,
          own.answer ?? '',
          body.citations.filter((c) => ids.has(c.id)),
        )
      : false,
    answered: own?.answered === true,
    othersAnswered: others.filter((p) => p.answered === true).length,
    others: others.length,
  };
}

function report(all: QuestionResult[], questions: Question[]): string {
  const kinds = [...new Set(questions.map((q) => q.kind))].sort();
  const lines: string[] = [
    `| embedder | mode | n | recall@1 | recall@5 | recall@10 | MRR | ${kinds.map((k) => `recall@5 ${k}`).join(' | ')} | p50 ms |`,
    `|---|---|---|---|---|---|---|${kinds.map(() => '---|').join('')}---|`,
  ];
  const groups = new Map<string, QuestionResult[]>();
  for (const r of all) {
    const key = `${r.embedder}\u0000${r.mode}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const [key, rs] of groups) {
    const [embedder, mode] = key.split('\u0000');
    const m = metrics(rs);
    const perKind = kinds.map((k) => {
      const km = metrics(rs.filter((r) => r.kind === k));
      return `${f2(km.r5)} (n=${km.n})`;
    });
    const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
    const p50 = ms[Math.floor(ms.length / 2)] ?? 0;
    lines.push(
      `| ${embedder} | ${mode} | ${m.n} | ${f2(m.r1)} | ${f2(m.r5)} | ${f2(m.r10)} | ${f2(m.mrr)} | ${perKind.join(' | ')} | ${p50.toFixed(0)} |`,
    );
  }
  return lines.join('\n');
}

/** dev-001..045 tune, dev-046..090 report; other ids: the first half of the file tunes. */
function isTuning(id: string, index: number, total: number): boolean {
  const m = /^dev-(\d+)$/.exec(id);
  return m ? Number(m[1]) <= 45 : index < total / 2;
}

function answerReport(all: AnswerResult[], results: QuestionResult[], questions: Question[]): string {
  const tuning = new Set(questions.filter((q, i) => isTuning(q.id, i, questions.length)).map((q) => q.id));
  const lines = [
    '| embedder | evidence-supported | tune / report | recall@5 tune / report | median answer chars | leaders | answered (answerable) | not answered (unanswerable) | quotes verbatim | contents cited |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const embedder of [...new Set(all.map((a) => a.embedder))]) {
    const mine = all.filter((a) => a.embedder === embedder);
    const answerable = mine.filter((a) => a.answerable);
    const unanswerable = mine.filter((a) => !a.answerable);
    const share = (xs: AnswerResult[], f: (a: AnswerResult) => boolean): string =>
      `${f2(xs.filter(f).length / Math.max(1, xs.length))} (${xs.filter(f).length}/${xs.length})`;
    const supported = (xs: AnswerResult[]): string => f2(xs.filter((a) => a.supported).length / Math.max(1, xs.length));
    const hybrid = results.filter((r) => r.embedder === embedder && r.mode === 'hybrid');
    const r5 = (xs: QuestionResult[]): string => f2(metrics(xs).r5);
    const chars = answerable.map((a) => a.chars).sort((a, b) => a - b);
    lines.push(
      `| ${embedder} | ${share(answerable, (a) => a.supported === true)} | ${supported(answerable.filter((a) => tuning.has(a.id)))} / ` +
        `${supported(answerable.filter((a) => !tuning.has(a.id)))} | ${r5(hybrid.filter((r) => tuning.has(r.id)))} / ` +
        `${r5(hybrid.filter((r) => !tuning.has(r.id)))} | ${chars[Math.floor(chars.length / 2)] ?? 0} | ${answerable.filter((a) => a.leaders).length} | ` +
        `${share(answerable, (a) => a.answered === true)} | ${share(unanswerable, (a) => a.answered === false)} | ` +
        `${share(mine, (a) => a.quotesVerbatim)} | ${mine.reduce((n, a) => n + a.contentsCited, 0)} |`,
    );
  }
  // How well the hedge tells weak answers: evidence-supported among the hedged answers and among the others.
  for (const embedder of [...new Set(all.map((a) => a.embedder))]) {
    const answered = all.filter((a) => a.embedder === embedder && a.answered === true);
    const part = (hedged: boolean): string => {
      const xs = answered.filter((a) => a.hedged === hedged);
      const answerable = xs.filter((a) => a.answerable);
      return `${answerable.filter((a) => a.supported).length}/${answerable.length} evidence-supported, ${xs.length - answerable.length} unanswerable`;
    };
    lines.push(`\n${embedder}, answered questions whose answer begins with the hedge: ${part(true)}; the others: ${part(false)}`);
  }
  for (const embedder of [...new Set(all.map((a) => a.embedder))]) {
    const asked = all.filter((a) => a.embedder === embedder && a.perProject);
    if (asked.length === 0) continue;
    const n = (xs: AnswerResult[], f: (p: PerProjectResult) => boolean): number => xs.filter((a) => a.perProject && f(a.perProject)).length;
    const others = asked.reduce((t, a) => t + (a.perProject?.others ?? 0), 0);
    const othersAnswered = asked.reduce((t, a) => t + (a.perProject?.othersAnswered ?? 0), 0);
    lines.push(
      `\n${embedder}, perProject over every project: the owning project's answer evidence-supported ` +
        `${n(asked, (p) => p.supported)}/${asked.length} (tune ${n(
          asked.filter((a) => tuning.has(a.id)),
          (p) => p.supported,
        )} / report ${n(
          asked.filter((a) => !tuning.has(a.id)),
          (p) => p.supported,
        )}), answered ${n(asked, (p) => p.answered)}/${asked.length}; the other projects answered ${othersAnswered}/${others}`,
    );
  }
  for (const embedder of [...new Set(all.map((a) => a.embedder))]) {
    const mine = all.filter((a) => a.embedder === embedder && a.swapped);
    if (mine.length === 0) continue;
    const answerable = mine.filter((a) => a.answerable);
    const unanswerable = mine.filter((a) => !a.answerable);
    const half = (tune: boolean): number => answerable.filter((a) => tuning.has(a.id) === tune && a.swapped?.supported).length;
    lines.push(
      `\n${embedder}, asked of the owning project alone: evidence-supported ` +
        `${answerable.filter((a) => a.swapped?.supported).length}/${answerable.length} (tune ${half(true)} / report ${half(false)}), ` +
        `answered ${answerable.filter((a) => a.swapped?.answered === true).length}/${answerable.length}; ` +
        `the unanswerable asked of every project: not answered ${unanswerable.filter((a) => a.swapped?.answered === false).length}/${unanswerable.length}`,
    );
  }
  for (const embedder of [...new Set(all.map((a) => a.embedder))]) {
    const counts = new Map<string, number>();
    for (const a of all) if (a.embedder === embedder && a.reason) counts.set(a.reason, (counts.get(a.reason) ?? 0) + 1);
    const order: UnsupportedReason[] = ['no-gold-page', 'passage-lacks', 'other-quote', 'not-answered', 'left-out'];
    const elsewhere = all.filter((a) => a.embedder === embedder && a.elsewhere).map((a) => a.id);
    lines.push(
      `\n${embedder}, where the unsupported answers lost the evidence: ${order.map((r) => `${r} ${counts.get(r) ?? 0}`).join(', ')}`,
      `${embedder}, unsupported answers that state the evidence from a cited passage on another page (not counted as supported): ` +
        `${elsewhere.length}${elsewhere.length > 0 ? ` (${elsewhere.join(', ')})` : ''}`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const qaFile = path.resolve(arg('qa') ?? corpus.questions);
  const questions = readQuestions(qaFile);
  const modes = (arg('modes') ?? 'hybrid,text,vector').split(',').map((m) => m.trim()) as SearchMode[];
  for (const m of modes) if (!['hybrid', 'text', 'vector'].includes(m)) throw new Error(`unknown mode ${m}`);
  const modelsDir = path.resolve(process.env.MODELS_DIR ?? path.join(repoRoot, 'models'));
  let embedders = (arg('embedders') ?? 'use,onnx:Xenova/all-MiniLM-L6-v2').split(',').map((e) => e.trim());
  embedders = embedders.filter((e) => {
    const spec = parseEmbedderSetting(e);
    if (spec.kind !== 'onnx') return true;
    const present = existsSync(path.join(modelsDir, spec.modelId));
    if (!present) process.stderr.write(`skipping ${e}: not in ${modelsDir} (run scripts/fetch-models.sh)\n`);
    return present;
  });
  process.env.MODELS_DIR = modelsDir;

  const unanswerableArg = arg('unanswerable') ?? corpus.unanswerable;
  const unanswerable =
    unanswerableArg && unanswerableArg !== 'none' && existsSync(unanswerableArg) ? readUnanswerable(unanswerableArg) : [];

  const all: QuestionResult[] = [];
  const answers: AnswerResult[] = [];
  for (const e of embedders) all.push(...(await evaluateEmbedder(e, questions, modes, unanswerable, answers)));
  const table = report(all, questions);
  process.stdout.write(`\n${questions.length} questions from ${qaFile}\n\n${table}\n`);
  if (modes.includes('hybrid')) {
    process.stdout.write(
      `\nAnswers (hybrid, default topK; ${unanswerable.length} unanswerable questions)\n\n${answerReport(answers, all, questions)}\n`,
    );
  }
  if (flag('answers')) {
    for (const a of answers) {
      process.stdout.write(
        `\n${a.embedder} ${a.id} supported=${a.supported ?? '-'}${a.reason ? ` (${a.reason})` : ''} answered=${a.answered} chars=${a.chars}\n  ${a.answer.replace(/\n/g, ' ')}\n`,
      );
    }
  }
  if (flag('misses')) {
    for (const r of all.filter((x) => x.mode === 'hybrid' && (x.rank === null || x.rank > 5))) {
      const q = questions.find((x) => x.id === r.id);
      process.stdout.write(
        `\nmiss ${r.embedder} ${r.id} (${r.kind}) rank=${r.rank ?? '-'} want ${q?.file}#${q?.pages.join(',')}\n  got ${r.top.join('  ')}\n`,
      );
    }
  }
  const out = arg('json');
  if (out) writeFileSync(out, JSON.stringify({ retrieval: all, answers }, null, 2));
}

main().catch((err: unknown) => {
  process.stderr.write(`eval failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
