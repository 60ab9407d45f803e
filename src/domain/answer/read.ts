import { normalizedTerms } from '../query.js';
import { candidatesOf, type AnswerPassage } from './candidates.js';
import { quotesOf, type Reading } from './quotes.js';
import { scoreCandidates, type Scored } from './scorer.js';
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
  const reading = quotesOf(scoredCandidates(question, passages, opts), new Map(passages.map((p) => [p.id, p.text])), opts.tuning);
  return { ...reading, answered: reading.support >= opts.tuning.answeredSupport };
}

/**
 * Every quotable sentence of the passages weighed against the question (candidates.ts, scorer.ts): what the extractive
 * reader quotes from, and what the model readers are shown, best first by this score.
 */
export function scoredCandidates(question: string, passages: readonly AnswerPassage[], opts: ReadOptions): Scored {
  return scoreCandidates(
    [...new Set(normalizedTerms(question))],
    passages.flatMap((p) => candidatesOf(p, opts.tuning)),
    {
      passageScores: new Map(passages.map((p) => [p.id, p.score ?? 0])),
      scope: new Set((opts.scope ?? []).flatMap(normalizedTerms)),
      tuning: opts.tuning,
    },
  );
}
