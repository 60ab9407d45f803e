/**
 * The answer path's tuning constants, in one place. Each was chosen on the development corpus and kept only where the
 * validation corpus held or rose (bench/README.md, "answers": the table of mechanisms and their effect).
 */
export interface AnswerTuning {
  /** BM25 term-frequency saturation over candidate sentences. @default 1.2 */
  k1: number;
  /** BM25 length normalisation over candidate sentences. @default 0.75 */
  b: number;
  /** Weight of the passage's retrieval score (in [0, 1]) added to a sentence's BM25 score, relative to its best. @default 0.6 */
  passageWeight: number;
  /** A sentence longer than this is a table or list run together: it is cut into groups of its lines. @default 350 */
  longSentenceChars: number;
  /** Characters of a group of lines cut from a long span. @default 250 */
  lineGroupChars: number;
  /** The sentence before or after joins a quote when it scores at least this share of its best. @default 0.6 */
  nextSentenceShare: number;
  /** An answer piece is kept when its quote scores at least this share of the best quote. @default 0.5 */
  pieceShare: number;
  /** A quote sharing this share of a kept piece's words repeats it and is left out. @default 0.7 */
  repeatShare: number;
  /**
   * The question is answered when the reader's support reaches this: the mean of the share of the question's word
   * weight (idf) the best quote holds and the share of its words the passages' documents use, words naming the
   * searched projects and documents left out (read.ts). @default 0.5
   */
  answeredSupport: number;
  /** Below this support, an answered question's answer says first that it may answer only in part. @default 0.7 */
  hedgedSupport: number;
  /** The answer's length budget in characters. @default 600 */
  answerChars: number;
}

export const ANSWER_TUNING: Readonly<AnswerTuning> = Object.freeze({
  k1: 1.2,
  b: 0.75,
  passageWeight: 0.6,
  longSentenceChars: 350,
  lineGroupChars: 250,
  nextSentenceShare: 0.6,
  pieceShare: 0.5,
  repeatShare: 0.7,
  answeredSupport: 0.5,
  hedgedSupport: 0.7,
  answerChars: 600,
});
