import { MAX_QUERY_TERMS, sparseTerms } from '../full-text/query-terms.js';

/** A Qdrant sparse vector: strictly unique indices (u32) with their weights. */
export interface SparseVector {
  indices: number[];
  values: number[];
}

/** 32-bit FNV-1a of the term's UTF-8 bytes: a stable term id without a shared vocabulary. */
export function termId(term: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(term, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export interface Bm25Options {
  /** @default 1.2 */
  k1?: number;
  /** @default 0.75 */
  b?: number;
  /**
   * Average document length in terms. Qdrant keeps no corpus statistics for sparse vectors, so length
   * normalisation uses a fixed value (as fastembed's Bm25 does).
   * @default 256
   */
  avgDocLength?: number;
}

function counts(text: string): Map<number, number> {
  const tf = new Map<number, number>();
  for (const t of sparseTerms(text)) {
    const id = termId(t);
    tf.set(id, (tf.get(id) ?? 0) + 1);
  }
  return tf;
}

function toSparse(weights: Map<number, number>): SparseVector {
  const indices = [...weights.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((i) => weights.get(i) ?? 0) };
}

/**
 * Document side of BM25: each term's saturated, length-normalised frequency. The collection's sparse vector is
 * configured with `modifier: "idf"`, so Qdrant multiplies by each query term's IDF at search time, and the score
 * sum over matching terms is BM25.
 */
export function documentSparseVector(text: string, opts: Bm25Options = {}): SparseVector {
  const k1 = opts.k1 ?? 1.2;
  const b = opts.b ?? 0.75;
  const avg = opts.avgDocLength ?? 256;
  const tf = counts(text);
  let length = 0;
  for (const n of tf.values()) length += n;
  const norm = k1 * (1 - b + (b * length) / avg);
  const weights = new Map<number, number>();
  for (const [id, n] of tf) weights.set(id, (n * (k1 + 1)) / (n + norm));
  return toSparse(weights);
}

/** Query side of BM25: each distinct term once, weight 1 (IDF comes from Qdrant). */
export function querySparseVector(text: string): SparseVector {
  const weights = new Map<number, number>();
  for (const id of counts(text).keys()) {
    if (weights.size >= MAX_QUERY_TERMS) break;
    weights.set(id, 1);
  }
  return toSparse(weights);
}
