/**
 * Turns text into vectors. Limits are data: callers split work into batches of at most `maxBatchSize`
 * and chunk text to at most `maxInputTokens` (approximate word-piece tokens).
 */
export interface Embedder {
  /** Recorded in the vector index; an index refuses an embedder with another id. E.g. `use-lite-512`. */
  readonly id: string;
  readonly dimensions: number;
  readonly maxBatchSize: number;
  readonly maxInputTokens: number;
  /** Unit-length vectors, one per text, in order. `kind` lets asymmetric models prefix queries. */
  embed(texts: string[], kind?: 'query' | 'document'): Promise<Float32Array[]>;
  close(): Promise<void>;
}
