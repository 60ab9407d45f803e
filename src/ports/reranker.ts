import type { ScoredChunk } from './vector-index.js';

/** Reorders fused candidates for a query; returns at most `topK`. The default passes them through. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, candidates: ScoredChunk[], topK: number): Promise<ScoredChunk[]>;
}
