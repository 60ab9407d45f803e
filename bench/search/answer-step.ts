/**
 * The answer step alone, on real pages: `npx tsx bench/search/answer-step.ts [--rounds 20]`
 *
 * What a search does after retrieval for an extractive answer (domain/evidence.ts findEvidence + composeAnswer) over
 * eight page windows of 1,800 characters, cut from the corpus PDFs (../shared/corpus/pdf, extracted as ingest does),
 * for three questions: 50 sets of windows x 3 questions per round, with the four documents' title blocks as a search
 * passes them (EvidenceOptions.titles). Prints the mean per search (eight windows), per round, so runs of two versions
 * can be alternated on the same machine, twice: with passages never read before (forgetPassageReadings before each
 * search), and with passages read ahead (warmPassage, as a search does while its query embeds), where the answer step
 * only weighs them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPdfExtractor } from '../../ingest/stages/extract.js';
import { composeAnswer, findEvidence, forgetPassageReadings, warmPassage } from '../../src/domain/evidence.js';
import { runningLineShapes, titleBlock } from '../../src/domain/page-furniture.js';

/** One extraction pool for the whole run (its idle processes do not keep the benchmark alive). */
const extractor = createPdfExtractor();

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
    const r = await extractor.extract(new Uint8Array(readFileSync(path.join(corpusDir, 'pdf', f))));
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
  const median = (times: number[]): string => {
    const sorted = [...times.slice(2)].sort((a, b) => a - b);
    return (
      `median ${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(3)} ms, min ${(sorted[0] ?? 0).toFixed(3)} ms ` +
      `over ${sorted.length} rounds (2 warm-up rounds left out)`
    );
  };
  const cold: number[] = [];
  const ahead: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let spent = 0;
    for (const s of sets)
      for (const q of QUESTIONS) {
        forgetPassageReadings();
        const started = performance.now();
        composeAnswer(findEvidence(q, s, { titles }), s);
        spent += performance.now() - started;
      }
    cold.push(spent / (sets.length * QUESTIONS.length));
    for (const s of sets) for (const p of s) warmPassage(p);
    const started = performance.now();
    for (const s of sets) for (const q of QUESTIONS) composeAnswer(findEvidence(q, s, { titles }), s);
    ahead.push((performance.now() - started) / (sets.length * QUESTIONS.length));
  }
  process.stdout.write(`answer step per search (8 windows), passages never read before: ${median(cold)}\n`);
  process.stdout.write(`answer step per search (8 windows), passages read ahead: ${median(ahead)}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`answer-step failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
