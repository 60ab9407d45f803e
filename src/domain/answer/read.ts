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
 * (scorer.ts), each passage's quote its best sentence or two. Its support is the mean of two shares: of the question's
 * word weight the best quote holds, and of the question's words the passages' documents use anywhere
 * (`documentShare`); the question is answered when it reaches `answeredSupport`.
 */
export function readExtractively(question: string, passages: readonly AnswerPassage[], opts: ReadOptions): Reading & { answered: boolean } {
  const scored = scoredCandidates(question, passages, opts);
  const reading = quotesOf(scored, new Map(passages.map((p) => [p.id, p.text])), opts.tuning);
  const support = (reading.support + documentShare(scored.questionTerms ?? [], passages)) / 2;
  return { ...reading, support, answered: support >= opts.tuning.answeredSupport };
}

/**
 * Share of the question's words that the passages' documents use anywhere (a passage without its document stands
 * for it): a question whose words its documents never use asks about something they do not treat, however well one
 * sentence holds its other words, while a question in other words than the answer's sentence still finds them
 * elsewhere in the documents.
 */
export function documentShare(terms: readonly string[], passages: readonly AnswerPassage[]): number {
  if (terms.length === 0) return 0;
  const uses = passages.map((p) => {
    if (p.usesWord) return p.usesWord;
    const words = new Set(normalizedTerms(p.text));
    return (t: string) => words.has(t);
  });
  return terms.filter((t) => uses.some((used) => used(t))).length / terms.length;
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
