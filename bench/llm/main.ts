/**
 * Local chat models as answer writers: `npx tsx bench/llm/main.ts`
 *
 * For a fixed sample of ../shared/corpus/qa-dev.jsonl, builds the passages a search would hand the summariser: the
 * gold page's text around the question's gold `evidence` (quoted, as search quotes a passage) and two distractor
 * passages from other pages of the same PDF (no quote), in a position that varies by question. Each GGUF model then
 * answers through the project's own summariser (createLlmSummarizer over createLlamaChatModel: the prompt, the
 * support check, the loop guard), one thread, ~200 tokens at most. Reports per model:
 *   - seconds per answer (wall clock, model loaded);
 *   - kept: share of answers with at least one supported sentence (the rest fall back to extractive);
 *   - loops: answers whose repetition the guard cut;
 *   - gold: share of answers holding the gold answer's key numbers (or, without numbers, half its content words);
 *   - dropped: sentences the support check removed.
 * The extractive summariser on the same passages is reported beside them for reference.
 *
 * Options:
 *   --models <a.gguf,b.gguf>  default: MODELS_DIR's SmolLM2-135M-Instruct.Q4_1.gguf and gemma-3-270m-q4_k_m.gguf (those present)
 *   --n <count>               questions, spread evenly over the file; default 10
 *   --qa <file.jsonl>         default ../shared/corpus/qa-dev.jsonl
 *   --threads <n>             default 1 (the machine's cores are shared)
 *   --max-chars <n>           answer budget handed to the summariser; default 600 (~200 tokens)
 *   --verbose                 print every answer
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import { createExtractiveSummarizer } from '../../src/adapters/summarizers/extractive.js';
import { createLlamaChatModel } from '../../src/adapters/summarizers/llama.js';
import { createLlmSummarizer, UngroundedAnswerError } from '../../src/adapters/summarizers/llm.js';
import { normalizedTerms } from '../../src/domain/query.js';
import type { CitedPassage, Summarizer } from '../../src/ports/summarizer.js';

/** One extraction pool for the whole run (its idle processes do not keep the benchmark alive). */
const extractor = createPdfExtractor();

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = process.env.CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus');
const modelsDir = process.env.MODELS_DIR ?? path.join(repoRoot, 'models');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const verbose = process.argv.includes('--verbose');

interface GoldQuestion {
  id: string;
  question: string;
  file: string;
  pages: number[];
  answer: string;
  evidence: string;
}

interface Case {
  q: GoldQuestion;
  passages: CitedPassage[];
}

const PASSAGE_CHARS = 900;

function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A window of about PASSAGE_CHARS of `text` around [at, at + length), cut at spaces. */
function windowAround(text: string, at: number, length: number): string {
  const spare = Math.max(0, PASSAGE_CHARS - length);
  let from = Math.max(0, at - Math.floor(spare / 2));
  let to = Math.min(text.length, at + length + Math.ceil(spare / 2));
  if (from > 0) from = Math.min(at, text.indexOf(' ', from) + 1 || at);
  if (to < text.length) to = Math.max(at + length, text.lastIndexOf(' ', to));
  return text.slice(from, to).trim();
}

/** Where the evidence sits in the page text: its first and last words located, or null (PDF text differs). */
function locate(page: string, evidence: string): { at: number; length: number } | null {
  const head = evidence.slice(0, 40);
  const tail = evidence.slice(-30);
  const at = page.indexOf(head);
  if (at < 0) return null;
  const end = page.indexOf(tail, at);
  if (end < 0 || end - at > evidence.length * 1.5) return null;
  return { at, length: end + tail.length - at };
}

async function buildCases(file: string, n: number): Promise<Case[]> {
  const all = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as GoldQuestion)
    .filter((q) => typeof q.evidence === 'string' && q.evidence.length > 0);
  const step = all.length / n;
  const picked = Array.from({ length: Math.min(n, all.length) }, (_, i) => all[Math.floor(i * step)]).filter(
    (q): q is GoldQuestion => q !== undefined,
  );
  const pdfPages = new Map<string, string[]>();
  const cases: Case[] = [];
  for (const [i, q] of picked.entries()) {
    let pages = pdfPages.get(q.file);
    if (!pages) {
      const extracted = await extractor.extract(readFileSync(path.join(corpusDir, 'pdf', q.file)));
      if (!extracted.ok) throw new Error(`${q.file}: ${extracted.reason}`);
      pages = extracted.pages.map(flat);
      pdfPages.set(q.file, pages);
    }
    const evidence = flat(q.evidence);
    // The gold page is the one of the question's pages whose text holds the evidence; else its first page.
    let gold: CitedPassage | null = null;
    for (const p of q.pages) {
      const text = pages[p - 1] ?? '';
      const found = locate(text, evidence);
      if (found) {
        gold = {
          id: 0,
          documentTitle: q.file,
          page: p,
          text: windowAround(text, found.at, found.length),
          quote: text.slice(found.at, found.at + found.length),
        };
        break;
      }
    }
    if (!gold) {
      // The PDF's text differs from the evidence as written (ligatures, subscripts): the evidence stands in the page.
      const p = q.pages[0] ?? 1;
      const text = pages[p - 1] ?? '';
      const half = Math.max(0, Math.floor((PASSAGE_CHARS - evidence.length) / 2));
      gold = {
        id: 0,
        documentTitle: q.file,
        page: p,
        text: `${text.slice(0, half)} ${evidence} ${text.slice(-half)}`.trim(),
        quote: evidence,
      };
    }
    // Distractors: the two non-gold pages with the most text among those near the gold page.
    const near = pages
      .map((text, k) => ({ text, page: k + 1 }))
      .filter((p) => !q.pages.includes(p.page) && p.text.length > 300)
      .sort((a, b) => Math.abs(a.page - (gold?.page ?? 1)) - Math.abs(b.page - (gold?.page ?? 1)))
      .slice(0, 2)
      .map((p) => ({ id: 0, documentTitle: q.file, page: p.page, text: windowAround(p.text, Math.floor(p.text.length / 2), 0) }));
    const ordered = [...near];
    ordered.splice(i % (near.length + 1), 0, gold);
    cases.push({ q, passages: ordered.map((p, k) => ({ ...p, id: k + 1 })) });
  }
  return cases;
}

/** Numbers as compared: thousands separators and spaces between digit groups removed. */
function numbersOf(text: string): string[] {
  const joined = text.normalize('NFKC').replace(/(\d)[,\s](?=\d)/g, '$1');
  return [...new Set(joined.match(/\d+(?:\.\d+)?/g) ?? [])].filter((n) => n.length >= 2);
}

/** The answer holds the gold answer's key: half its numbers, or without numbers half its content words. */
function holdsGold(answer: string, gold: string): boolean {
  const want = numbersOf(gold);
  if (want.length > 0) {
    const have = new Set(numbersOf(answer));
    return want.filter((n) => have.has(n)).length * 2 >= want.length;
  }
  const words = [...new Set(normalizedTerms(gold))];
  const have = new Set(normalizedTerms(answer));
  return words.length > 0 && words.filter((w) => have.has(w)).length * 2 >= words.length;
}

interface Row {
  model: string;
  answers: number;
  secondsPerAnswer: number;
  kept: number;
  loops: number;
  gold: number;
  dropped: number;
  medianChars: number;
}

async function run(
  label: string,
  summarizer: Summarizer,
  cases: Case[],
  maxChars: number,
  counters: { loops: () => number; dropped: () => number },
): Promise<Row> {
  let seconds = 0;
  let kept = 0;
  let gold = 0;
  const lengths: number[] = [];
  for (const c of cases) {
    const started = performance.now();
    let answer = '';
    let outcome = 'kept';
    try {
      answer = await summarizer.summarize({ question: c.q.question, passages: c.passages, maxChars });
      kept++;
    } catch (err) {
      if (!(err instanceof UngroundedAnswerError)) throw err;
      outcome = `fallback (${err.reason})`;
    }
    seconds += (performance.now() - started) / 1000;
    const hit = answer !== '' && holdsGold(answer, c.q.answer);
    if (hit) gold++;
    if (answer !== '') lengths.push(answer.length);
    const line = `${label} ${c.q.id} ${((performance.now() - started) / 1000).toFixed(1)}s ${outcome}${hit ? ' gold' : ''}`;
    process.stderr.write(verbose ? `${line}\n  Q: ${c.q.question}\n  A: ${answer.slice(0, 400)}\n  gold: ${c.q.answer}\n` : `${line}\n`);
  }
  lengths.sort((a, b) => a - b);
  return {
    model: label,
    answers: cases.length,
    secondsPerAnswer: seconds / cases.length,
    kept: kept / cases.length,
    loops: counters.loops(),
    gold: gold / cases.length,
    dropped: counters.dropped(),
    medianChars: lengths.length > 0 ? (lengths[Math.floor(lengths.length / 2)] ?? 0) : 0,
  };
}

async function main(): Promise<void> {
  const qa = arg('qa') ?? path.join(corpusDir, 'qa-dev.jsonl');
  const n = Number(arg('n') ?? 10);
  const threads = Number(arg('threads') ?? 1);
  const maxChars = Number(arg('max-chars') ?? 600);
  const models = (
    arg('models')?.split(',') ?? ['SmolLM2-135M-Instruct.Q4_1.gguf', 'gemma-3-270m-q4_k_m.gguf'].map((f) => path.join(modelsDir, f))
  ).filter((m) => {
    if (existsSync(m)) return true;
    process.stderr.write(`skipping ${m}: not found\n`);
    return false;
  });
  const cases = await buildCases(qa, n);
  process.stderr.write(`${cases.length} questions, ${cases.reduce((s, c) => s + c.passages.length, 0)} passages\n`);

  const rows: Row[] = [];
  const extractive = createExtractiveSummarizer();
  rows.push(await run('extractive', extractive, cases, maxChars, { loops: () => 0, dropped: () => 0 }));

  for (const modelPath of models) {
    let dropped = 0;
    const logger = pino(
      { level: 'warn' },
      {
        write(line: string) {
          const entry = JSON.parse(line) as { dropped?: unknown[] };
          if (Array.isArray(entry.dropped)) dropped += entry.dropped.length;
          if (verbose) process.stderr.write(`  log: ${line}`);
        },
      },
    );
    const started = performance.now();
    const chat = await createLlamaChatModel({ modelPath, threads, contextSize: 4096, timeoutMs: 120_000, maxAnswerTokens: 200 });
    process.stderr.write(`${chat.model}: loaded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    try {
      rows.push(
        await run(chat.model, createLlmSummarizer(chat, { logger }), cases, maxChars, {
          loops: () => chat.stats.loopsCut,
          dropped: () => dropped,
        }),
      );
    } finally {
      await chat.close();
    }
  }

  console.log(`\n${cases.length} questions of ${path.basename(qa)}; answer budget ${maxChars} characters; ${threads} thread(s)\n`);
  console.log('| model | s/answer | kept (not fallen back) | loops cut | holds gold answer | sentences dropped | median chars |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows) {
    console.log(
      `| ${r.model} | ${r.secondsPerAnswer.toFixed(1)} | ${(r.kept * 100).toFixed(0)}% | ${r.loops} | ${(r.gold * 100).toFixed(0)}% | ${r.dropped} | ${r.medianChars} |`,
    );
  }
}

await main();
