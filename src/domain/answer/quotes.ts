import type { Scored, ScoredCandidate } from './scorer.js';
import type { AnswerTuning } from './tuning.js';

/** The words of a passage that bear on the question: a verbatim substring of its text. */
export interface Quote {
  passageId: number;
  /** `text === passage.text.slice(start, end)`. */
  start: number;
  end: number;
  text: string;
  /** Ranking score among the quotes (its best sentence's). */
  score: number;
  /** Share of the question's word weight the quote holds (scorer.ts coverage), in [0, 1]. */
  coverage: number;
  /** The quote's first sentence alone, when the quote is two: stated instead when the whole does not fit. */
  core?: string;
}

/** What the reader found: one quote per passage that has a candidate, and how well the best answers. */
export interface Reading {
  quotes: Quote[];
  /**
   * How well the passages answer, in [0, 1]: the best quote's coverage (the extractive reader averages it with the
   * share of the question's words the documents use, read.ts), compared with AnswerTuning.answeredSupport.
   */
  support: number;
}

/**
 * Each passage's quote: its best-scoring candidate, with the sentence before or after it joined when only white space
 * stands between them, both hold a question word and it scores at least `nextSentenceShare` of the best (the better
 * of the two when both do): an answer often runs over two sentences ("The validation resulted in ten clarification
 * requests. All were closed after ..."). The answer's budget, not the quote, bounds the length (compose.ts).
 */
export function quotesOf(
  { candidates: scored, coverageOf }: Scored,
  passageText: ReadonlyMap<number, string>,
  tuning: Pick<AnswerTuning, 'nextSentenceShare'>,
): Reading {
  const byPassage = new Map<number, ScoredCandidate[]>();
  for (const c of scored) byPassage.set(c.passageId, [...(byPassage.get(c.passageId) ?? []), c]);
  const quotes: Quote[] = [];
  for (const [id, cands] of byPassage) {
    const text = passageText.get(id) ?? '';
    const bestAt = cands.reduce((at, c, i) => (c.score > (cands[at]?.score ?? -Infinity) ? i : at), 0);
    const best = cands[bestAt];
    if (!best) continue;
    const joins = (other: ScoredCandidate | undefined): other is ScoredCandidate => {
      if (!other || best.coverage === 0 || other.coverage === 0) return false;
      const [first, second] = other.start < best.start ? [other, best] : [best, other];
      return text.slice(first.end, second.start).trim() === '' && other.score >= tuning.nextSentenceShare * best.score;
    };
    const [joined] = [cands[bestAt - 1], cands[bestAt + 1]].filter(joins).sort((a, b) => b.score - a.score);
    const [start, end] = joined ? [Math.min(best.start, joined.start), Math.max(best.end, joined.end)] : [best.start, best.end];
    quotes.push({
      passageId: id,
      start,
      end,
      text: text.slice(start, end),
      score: best.score,
      coverage: joined ? (coverageOf?.([...best.terms, ...joined.terms]) ?? Math.max(best.coverage, joined.coverage)) : best.coverage,
      ...(joined ? { core: best.text } : {}),
    });
  }
  quotes.sort((a, b) => a.passageId - b.passageId);
  return { quotes, support: Math.max(0, ...quotes.map((q) => q.coverage)) };
}
