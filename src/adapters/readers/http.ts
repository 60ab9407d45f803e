import { quotesOf } from '../../domain/answer/quotes.js';
import type { ScoredCandidate } from '../../domain/answer/scorer.js';
import { readExtractively, scoredCandidates } from '../../domain/answer/read.js';
import { ANSWER_TUNING, type AnswerTuning } from '../../domain/answer/tuning.js';
import type { Logger } from '../../logger.js';
import type { Reader } from '../../ports/reader.js';
import type { RerankClient } from '../rerankers/http.js';

export interface HttpReaderOptions {
  /** The rerank server (rerankers/http.ts createRerankClient), serving a cross-encoder. */
  client: RerankClient;
  logger: Logger;
  /** Candidate sentences sent to the cross-encoder per search, the best by BM25 first. @default 48 */
  window?: number;
  /** Relevance of the best sentence at which the question is taken as answered. @default 0.5 */
  minRelevance?: number;
  tuning?: AnswerTuning;
}

/**
 * A reader that lets a cross-encoder judge the sentences (READER=http): the passages' quotable sentences (the
 * extractive reader's candidates), the best `window` by BM25, are scored by the rerank server against the question,
 * and each passage's quote is its most relevant sentence (and the next when that scores nearly as well). The question
 * is answered when the best sentence's relevance reaches `minRelevance`. A failed call answers extractively, logged.
 */
export function createHttpReader(opts: HttpReaderOptions): Reader {
  const window = opts.window ?? 48;
  const minRelevance = opts.minRelevance ?? 0.5;
  const tuning = opts.tuning ?? ANSWER_TUNING;
  return {
    id: `reader-${opts.client.id}`,
    async read(request) {
      const lexical = scoredCandidates(request.question, request.passages, { scope: request.scope, tuning });
      const shown = [...lexical.candidates].sort((a, b) => b.score - a.score).slice(0, window);
      let relevance: number[];
      try {
        relevance =
          shown.length === 0
            ? []
            : await opts.client.score(
                request.question,
                shown.map((c) => c.text.replace(/\s+/gu, ' ')),
              );
      } catch (err) {
        opts.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'sentence reading by the rerank server failed; read extractively',
        );
        return readExtractively(request.question, request.passages, { scope: request.scope, tuning });
      }
      const judged = new Map<ScoredCandidate, number>(shown.map((c, i) => [c, relevance[i] ?? Number.NaN]));
      // Sentences the cross-encoder did not see stay candidates of their passage, below every one it scored.
      const scored = lexical.candidates.map((c) => {
        const r = judged.get(c);
        return r !== undefined && Number.isFinite(r) ? { ...c, score: r, coverage: r } : { ...c, score: -1, coverage: 0 };
      });
      const reading = quotesOf({ candidates: scored }, new Map(request.passages.map((p) => [p.id, p.text])), tuning);
      const quotes = reading.quotes.filter((q) => q.score >= 0);
      return { quotes, support: reading.support, answered: reading.support >= minRelevance };
    },
  };
}
