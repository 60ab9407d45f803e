/**
 * How far the extractive answer is from the evidence, step by step:
 *
 *   npx tsx bench/eval/quotes.ts [--embedder use] [--qa ../shared/corpus/qa-dev.jsonl] [--misses]
 *
 * Runs every question in-process over the index that `npm run eval` cached for the embedder (run that first) with
 * the default search, and watches the answer step (SearchServiceOptions.onEvidence): the page windows around the 8
 * citations and every candidate sentence as weighed. Per question half (dev-001..045 tune, dev-046..090 report):
 * - within reach: a candidate sentence of a citation on a gold page holds 60% of the gold evidence's words;
 * - ranked 1st / in the top 3: where the weighing puts the best such sentence among all candidates of the search;
 * - quoted: the citation's quote holds it (what the search chose);
 * - supported: the answer is evidence-supported (bench/eval/answers.ts), with the default answer budget and with none
 *   (every quote that bears on the question), which is what the quotes allow at most.
 * With --misses, each question whose answer is not supported is listed with the first step it fails at (answers.ts
 * unsupportedReason, as `npm run eval` counts them), its gold evidence and the answer.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSearch } from '../../src/deps.js';
import type { EvidencePassage, WeighedSentence } from '../../src/domain/evidence.js';
import { evidenceShare, evidenceSupported, unsupportedReason, type UnsupportedReason } from './answers.js';
import { arg, flag, openCachedIndex } from './harness.js';
import { readQuestions, type Question } from './questions.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = process.env.CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus');

interface Row {
  id: string;
  /** The first step the answer fails at (answers.ts unsupportedReason), or '' when it is supported. */
  miss: UnsupportedReason | '';
  tune: boolean;
  reach: boolean;
  first: boolean;
  top3: boolean;
  quoted: boolean;
  supported: boolean;
  unlimited: boolean;
}

async function main(): Promise<void> {
  const embedder = arg('embedder') ?? 'use';
  const questions = readQuestions(path.resolve(arg('qa') ?? path.join(corpusDir, 'qa-dev.jsonl')));
  const { config, logger, deps } = await openCachedIndex(embedder, 'quotes');
  try {
    let seen: { passages: readonly EvidencePassage[]; sentences: readonly WeighedSentence[] } | null = null;
    const { search } = await buildSearch(config, logger, deps, deps.embedder, {
      onEvidence: (_query, passages, sentences) => {
        seen = { passages, sentences };
      },
    });
    const { search: unlimited } = await buildSearch(config, logger, deps, deps.embedder, { answerChars: 1_000_000 });
    const projects = (await deps.records.list()).map((p) => ({
      ref: { registry: p.registry, projectId: p.projectId },
      requestedRegistry: p.registry,
    }));
    const rows: Row[] = [];
    const answers = new Map<string, string>();
    for (const q of questions) {
      seen = null;
      const res = await search.search({ projects, query: q.question });
      const all = await unlimited.search({ projects, query: q.question });
      rows.push(judge(q, res, seen, evidenceSupported(q, all.answer, all.citations)));
      answers.set(q.id, `${res.answered ? '' : '(not answered) '}${res.answer}`);
    }
    const halves: [string, Row[]][] = [
      ['tune (dev-001..045)', rows.filter((r) => r.tune)],
      ['report (dev-046..090)', rows.filter((r) => !r.tune)],
      ['all', rows],
    ];
    const n = (rs: Row[], f: (r: Row) => boolean): number => rs.filter(f).length;
    const lines = [
      `${embedder}, ${questions.length} questions`,
      '',
      '| questions | n | evidence within reach | ranked 1st | in the top 3 | quoted | supported (default budget) | supported (no budget) |',
      '|---|---|---|---|---|---|---|---|',
      ...halves.map(
        ([name, rs]) =>
          `| ${name} | ${rs.length} | ${n(rs, (r) => r.reach)} | ${n(rs, (r) => r.first)} | ${n(rs, (r) => r.top3)} | ` +
          `${n(rs, (r) => r.quoted)} | ${n(rs, (r) => r.supported)} | ${n(rs, (r) => r.unlimited)} |`,
      ),
    ];
    if (flag('misses')) {
      const missed = rows.filter((r): r is Row & { miss: UnsupportedReason } => r.miss !== '');
      const count = new Map<UnsupportedReason, number>();
      for (const r of missed) count.set(r.miss, (count.get(r.miss) ?? 0) + 1);
      lines.push('', `not supported: ${[...count].map(([k, v]) => `${k} ${v}`).join(', ')}`);
      for (const r of missed) {
        const q = questions.find((x) => x.id === r.id);
        lines.push(
          '',
          `${r.id} [${r.miss}] ${q?.question ?? ''}`,
          `  gold p${q?.pages.join(',') ?? ''}: ${q?.evidence ?? ''}`,
          `  answer: ${answers.get(r.id) ?? ''}`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await deps.close();
  }
}

function judge(
  q: Question,
  res: {
    answer: string;
    answered: boolean;
    citations: { id: number; documentTitle: string; page: number; text: string; quote: string }[];
  },
  seen: { passages: readonly EvidencePassage[]; sentences: readonly WeighedSentence[] } | null,
  unlimited: boolean,
): Row {
  const onGold = new Set(res.citations.filter((c) => c.documentTitle === q.file && q.pages.includes(c.page)).map((c) => c.id));
  const holds = (text: string): boolean => evidenceShare(q.evidence, text) >= 0.6;
  const ranked = [...(seen?.sentences ?? [])].sort((a, b) => b.score - a.score);
  const at = ranked.findIndex((s) => onGold.has(s.passageId) && holds(s.text));
  const quoted = res.citations.some((c) => onGold.has(c.id) && holds(c.quote));
  const supported = evidenceSupported(q, res.answer, res.citations);
  // The same steps as `npm run eval` reports (answers.ts), so that the two tools count alike.
  const miss = supported ? '' : unsupportedReason(q, res.answered, res.citations);
  return {
    id: q.id,
    miss,
    tune: Number(/^dev-(\d+)$/.exec(q.id)?.[1] ?? 0) <= 45,
    reach: at >= 0,
    first: at === 0,
    top3: at >= 0 && at < 3,
    quoted,
    supported,
    unlimited,
  };
}

main().catch((err: unknown) => {
  process.stderr.write(`quotes failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
