/**
 * The answer path's tuning constants, in one place. Each was chosen on the development corpus and kept only where the
 * validation corpus held or rose (bench/README.md, "answers": the table of mechanisms and their effect).
 */
export const ANSWER_TUNING = Object.freeze({
  /** BM25 term-frequency saturation over candidate sentences. */
  k1: 1.2,
  /** BM25 length normalisation over candidate sentences. */
  b: 0.75,
  /** Weight of the passage's retrieval score (in [0, 1]) added to a sentence's BM25 score, relative to its best. */
  passageWeight: 0.6,
  /** A sentence longer than this is a table or list run together: it is cut into groups of its lines. */
  longSentenceChars: 350,
  /** Characters of a group of lines cut from a long span. */
  lineGroupChars: 250,
  /** The sentence before or after joins a quote when it scores at least this share of its best. */
  nextSentenceShare: 0.6,
  /** An answer piece is kept when its quote scores at least this share of the best quote. */
  pieceShare: 0.5,
  /** A quote sharing this share of a kept piece's words repeats it and is left out. */
  repeatShare: 0.7,
  /**
   * The question is answered when the reader's support reaches this: the mean of the share of the question's word
   * weight (idf) the best quote holds and the share of its words the passages' documents use, words naming the
   * searched projects and documents left out (read.ts).
   */
  answeredSupport: 0.5,
  /** Below this support, an answered question's answer says first that it may answer only in part. */
  hedgedSupport: 0.7,
  /** The answer's length budget in characters. */
  answerChars: 600,
});

/** The answer path's constants, any of which a caller may override (calibration, experiments). */
export type AnswerTuning = { -readonly [K in keyof typeof ANSWER_TUNING]: number };
