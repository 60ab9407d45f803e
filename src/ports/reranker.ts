import type { ScoredChunk } from './vector-index.js';

/** Reorders fused candidates for a query; returns at most `topK`. The default passes them through. */
export interface Reranker {
  readonly id: string;
  /**
   * How many distinct candidates it looks at (the search collects at least this many, and topK); 0 for a reranker
   * that keeps the fused order, so the search collects only topK.
   */
  readonly window: number;
  rerank(query: string, candidates: ScoredChunk[], topK: number): Promise<ScoredChunk[]>;
}
