import { candidatesOf, type AnswerPassage } from './candidates.js';
import { analyseQuestion, termsOf } from './question.js';
import { quotesOf, type Reading } from './quotes.js';
import { scoreCandidates } from './scorer.js';
import type { AnswerTuning } from './tuning.js';

export interface ReadOptions {
  /** Texts that say where to look (projects' names, documents' titles): their words do not count towards support. */
  scope?: readonly string[];
  tuning: AnswerTuning;
}

/**
 * The extractive reader: every quotable sentence of the passages weighed against the question with one scorer
 * (scorer.ts), each passage's quote its best sentence or two, and the question taken as answered when the best quote
 * holds enough of its word weight.
 */
export function readExtractively(question: string, passages: readonly AnswerPassage[], opts: ReadOptions): Reading & { answered: boolean } {
  const analysed = analyseQuestion(question);
  const candidates = passages.flatMap((p) => candidatesOf(p, opts.tuning));
  const scope = new Set((opts.scope ?? []).flatMap(termsOf));
  const scored = scoreCandidates(analysed, candidates, {
    passageScores: new Map(passages.map((p) => [p.id, p.score ?? 0])),
    scope,
    tuning: opts.tuning,
  });
  const reading = quotesOf(scored, new Map(passages.map((p) => [p.id, p.text])), opts.tuning);
  return { ...reading, answered: reading.support >= opts.tuning.answeredSupport };
}
