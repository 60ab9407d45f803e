/**
 * The answer path in process over a corpus's cached index (`npm run eval` builds it), for choosing its constants on
 * the development set: every question is asked as a user asks it (all the corpus's projects, default topK), the reader's
 * support is recorded, and for each abstention threshold the answerable questions answered and evidence-supported and
 * the unanswerable ones refused are counted.
 *
 *   npx tsx bench/eval/calibrate.ts [--corpus ../shared/corpus] [--embedder use] [--tuning '{"pieceShare":0.4}'] [--misses]
 *     [--qa a.jsonl,b.jsonl] [--unanswerable c.jsonl,d.jsonl] [--dump requests.jsonl]
 *
 * --misses prints each answer without the gold evidence, with where it was lost (answers.ts unsupportedReason).
 * --qa / --unanswerable ask other question sets of the same corpus (the held-out sets of bench/eval/); --dump writes
 * each question's reader request and outcome as JSON lines, to study the sentence choice and abstention offline.
 *
 * Run it on the development corpus only; the validation corpus is read through `npm run eval`'s totals.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExtractiveReader } from '../../src/adapters/readers/extractive.js';
import { createExtractiveSummarizer } from '../../src/adapters/summarizers/extractive.js';
import { ANSWER_TUNING, type AnswerTuning } from '../../src/domain/answer/tuning.js';
import { buildSearch } from '../../src/deps.js';
import type { Reader, ReadRequest } from '../../src/ports/reader.js';
import { evidenceSupported, readUnanswerable, unsupportedReason } from './answers.js';
import { corpusLayout } from './corpus.js';
import { arg, flag, openCachedIndex } from './harness.js';
import { readQuestions } from './questions.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

async function main(): Promise<void> {
  const corpus = corpusLayout(arg('corpus') ?? path.resolve(repoRoot, '../shared/corpus'));
  const embedder = arg('embedder') ?? 'use';
  const overrides = JSON.parse(arg('tuning') ?? '{}') as Partial<AnswerTuning>;
  // Every question answered, so that each threshold below can be judged on the same answers.
  const tuning: AnswerTuning = { ...ANSWER_TUNING, ...overrides, answeredSupport: 0, hedgedSupport: 0 };
  const { config, logger, deps } = await openCachedIndex(embedder, 'calibrate', corpus.name);
  const validation = corpus.name.includes('validation');
  const dump = arg('dump');
  if ((dump || flag('misses')) && validation) throw new Error('--dump and --misses are for the development corpus only');
  if (dump) writeFileSync(dump, '');
  let lastSupport = 0;
  let lastRequest: ReadRequest | undefined;
  const inner = createExtractiveReader(tuning);
  const reader: Reader = {
    id: inner.id,
    async read(request, signal) {
      const r = await inner.read(request, signal);
      lastSupport = r.support;
      lastRequest = request;
      return r;
    },
  };
  const record = (id: string, supported: boolean | null, reason: string | null): void => {
    if (!dump || !lastRequest) return;
    const passages = lastRequest.passages.map((p) => ({ ...p, running: [...(p.running ?? [])] }));
    appendFileSync(dump, `${JSON.stringify({ id, supported, reason, support: lastSupport, request: { ...lastRequest, passages } })}\n`);
  };
  const files = (name: string, fallback: string | undefined): string[] => (arg(name) ?? fallback ?? '').split(',').filter((f) => f !== '');
  // The answer is composed with the same tuning as it is read (the configured summariser would use the defaults).
  const composer = createExtractiveSummarizer(tuning);
  const { search, summarizer } = await buildSearch(config, logger, deps, deps.embedder, {
    reader,
    tuning,
    summarizer: composer,
    fallbackSummarizer: composer,
  });
  try {
    const projects = (await deps.records.list()).map((ref) => ({ ref, requestedRegistry: ref.registry }));
    const rows: { support: number; supported: boolean | null; chars: number }[] = [];
    for (const q of files('qa', corpus.questions).flatMap(readQuestions)) {
      const res = await search.search({ projects, query: q.question });
      const supported = evidenceSupported(q, res.answer, res.citations);
      rows.push({ support: lastSupport, supported, chars: res.answer.length });
      record(q.id, supported, supported ? null : unsupportedReason(q, true, res.citations));
      if (!supported && flag('misses')) {
        const gold = res.citations.find((c) => c.documentTitle === q.file && q.pages.includes(c.page));
        process.stdout.write(
          `\n${q.id} ${unsupportedReason(q, true, res.citations)} support=${lastSupport.toFixed(2)}\n  Q: ${q.question}\n  gold: ${q.evidence}\n` +
            `  answer: ${res.answer}\n  gold-page quote [${gold?.id ?? '-'}]: ${gold?.quote.replace(/\s+/gu, ' ') ?? '-'}\n`,
        );
      }
    }
    for (const q of files('unanswerable', corpus.unanswerable).flatMap(readUnanswerable)) {
      const asked = q.projects.map((p) => ({ ref: { registry: p.registry, projectId: p.project_id }, requestedRegistry: p.registry }));
      await search.search({ projects: asked, query: q.question });
      rows.push({ support: lastSupport, supported: null, chars: 0 });
      record(q.id, null, null);
    }
    const answerable = rows.filter((r) => r.supported !== null);
    const unanswerable = rows.filter((r) => r.supported === null);
    const chars = answerable.map((r) => r.chars).sort((a, b) => a - b);
    process.stdout.write(
      `${corpus.name}: ${answerable.length} answerable, ${unanswerable.length} unanswerable; tuning ${JSON.stringify(overrides)}\n` +
        `evidence-supported when every question is answered: ${answerable.filter((r) => r.supported).length}; ` +
        `median answer ${chars[Math.floor(chars.length / 2)] ?? 0} chars\n\n| threshold | supported | answered | refused (unanswerable) |\n|---|---|---|---|\n`,
    );
    for (const t of [0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7]) {
      const on = (r: { support: number }) => r.support >= t;
      process.stdout.write(
        `| ${t.toFixed(2)} | ${answerable.filter((r) => r.supported && on(r)).length} | ${answerable.filter(on).length} | ` +
          `${unanswerable.filter((r) => !on(r)).length}/${unanswerable.length} |\n`,
      );
    }
  } finally {
    await summarizer.close();
    await deps.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`calibrate failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
