/**
 * The answer step alone, on real pages: `npx tsx bench/search/answer-step.ts [--rounds 20]`
 *
 * What a search does after retrieval for an extractive answer (domain/evidence.ts findEvidence + composeAnswer) over
 * eight page windows of 1,800 characters, cut from the corpus PDFs (../shared/corpus/pdf, extracted as ingest does),
 * for three questions: 50 sets of windows x 3 questions per round, with the four documents' title blocks as a search
 * passes them (EvidenceOptions.titles). Prints the mean per search (eight windows), per round, so runs of two versions
 * can be alternated on the same machine.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractPdfPages } from '../../ingest/stages/extract.js';
import { composeAnswer, findEvidence } from '../../src/domain/evidence.js';
import { runningLineShapes, titleBlock } from '../../src/domain/page-furniture.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = process.env.CORPUS_DIR ?? path.resolve(repoRoot, '../shared/corpus');
const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg >= 0 ? Number(process.argv[roundsArg + 1]) : 20;

const FILES = [
  'VCS5533_project_description.pdf',
  'CDM_GFL-HFC23_project_design_document.pdf',
  'methodology_VM0007.pdf',
  'REGEN_fonthill_farms_project_plan.pdf',
];
const QUESTIONS = [
  'What is the permanence period of the project?',
  'How many hectares will the project plant, and in which counties?',
  'What validation opinion did the validator give, and when?',
];

async function main(): Promise<void> {
  const pages: string[] = [];
  const titles: string[] = [];
  for (const f of FILES) {
    const r = await extractPdfPages(new Uint8Array(readFileSync(path.join(corpusDir, 'pdf', f))));
    if (!r.ok) throw new Error(`${f}: ${r.reason}`);
    pages.push(...r.pages.filter((p) => p.length >= 1800));
    titles.push(titleBlock(r.pages, runningLineShapes(r.pages)));
  }
  const sets = Array.from({ length: 50 }, (_, k) =>
    Array.from({ length: 8 }, (_, i) => ({
      id: i + 1,
      text: (pages[(k * 37 + i * 11) % pages.length] ?? '').slice(0, 1800),
      score: 1 - i / 8,
    })),
  );
  process.stdout.write(
    `${pages.length} pages of ${FILES.length} PDFs; ${sets.length} sets of 8 windows x ${QUESTIONS.length} questions a round\n`,
  );
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const started = performance.now();
    for (const s of sets) for (const q of QUESTIONS) composeAnswer(findEvidence(q, s, { titles }), s);
    times.push((performance.now() - started) / (sets.length * QUESTIONS.length));
  }
  const sorted = [...times.slice(2)].sort((a, b) => a - b);
  process.stdout.write(
    `answer step per search (8 windows): median ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(3)} ms, ` +
      `min ${(sorted[0] ?? 0).toFixed(3)} ms over ${sorted.length} rounds (2 warm-up rounds left out)\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`answer-step failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
