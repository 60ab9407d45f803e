import type { Candidate } from './candidates.js';
import type { AnswerTuning } from './tuning.js';

/** A candidate weighed against the question. */
export interface ScoredCandidate extends Candidate {
  /** BM25 over the candidates (scaled to the best one's), plus a share of its passage's retrieval score. */
  score: number;
  /** Share of the question's word weight (idf) it holds, the scope's words left out: what `answered` is decided on. */
  coverage: number;
}

export interface Scored {
  candidates: ScoredCandidate[];
  /** The coverage of any set of words (a quote of two sentences holds both's); without it, the larger one's. */
  coverageOf?(terms: Iterable<string>): number;
  /** The question's words that coverage weighs (the scope's left out). */
  questionTerms?: readonly string[];
}

export interface ScoreOptions {
  /** Retrieval score in [0, 1] of each passage, by id. */
  passageScores: ReadonlyMap<number, number>;
  /**
   * Words that say where to look, not what is asked: the searched projects' names, their documents' titles. They
   * neither rank sentences nor count towards coverage.
   */
  scope?: ReadonlySet<string>;
  tuning: Pick<AnswerTuning, 'k1' | 'b' | 'passageWeight'>;
}

/**
 * Okapi BM25 (Robertson and Zaragoza 2009) with the candidate sentences as the collection: a question word counts by
 * how rare it is among them, saturating with repeats, normalised by sentence length. `questionTerms` are the
 * question's distinct words as compared with sentences (query.ts normalizedTerms).
 */
export function scoreCandidates(questionTerms: readonly string[], candidates: readonly Candidate[], opts: ScoreOptions): Scored {
  const n = candidates.length;
  // Words that only say where to look rank no sentence either (every sentence of a project's report is about the
  // project), unless the question is made of nothing else.
  const own = questionTerms.filter((t) => !opts.scope?.has(t));
  const asked = new Set(own.length > 0 ? own : questionTerms);
  const df = new Map<string, number>();
  let totalLength = 0;
  const counts = candidates.map((c) => {
    totalLength += c.terms.length;
    const tf = new Map<string, number>();
    for (const t of c.terms) if (asked.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    return tf;
  });
  const idf = (t: string): number => {
    const d = df.get(t) ?? 0;
    return Math.log(1 + (n - d + 0.5) / (d + 0.5));
  };
  const avgLength = Math.max(1, totalLength / n);
  const { k1, b, passageWeight } = opts.tuning;
  const weighed = [...asked].filter((t) => !opts.scope?.has(t));
  const totalWeight = weighed.reduce((s, t) => s + idf(t), 0);
  const coverageOf = (terms: Iterable<string>): number => {
    const held = new Set(terms);
    return totalWeight > 0 ? weighed.reduce((s, t) => s + (held.has(t) ? idf(t) : 0), 0) / totalWeight : 0;
  };
  const bm25 = candidates.map((c, i) => {
    let sum = 0;
    for (const [t, f] of counts[i] ?? []) sum += (idf(t) * f * (k1 + 1)) / (f + k1 * (1 - b + (b * c.terms.length) / avgLength));
    return sum;
  });
  const best = Math.max(Number.MIN_VALUE, ...bm25);
  return {
    candidates: candidates.map((c, i) => ({
      ...c,
      score: (bm25[i] ?? 0) / best + passageWeight * (opts.passageScores.get(c.passageId) ?? 0),
      coverage: coverageOf(c.terms),
    })),
    coverageOf,
    questionTerms: weighed,
  };
}
