import type { Reranker } from '../../ports/reranker.js';

/** Keeps the fused order: the default when no reranking model is configured. */
export function createPassThroughReranker(): Reranker {
  return {
    id: 'none',
    window: 0,
    async rerank(_query, candidates, topK) {
      return candidates.slice(0, Math.max(0, topK));
    },
  };
}
