import type { ChunkRecord, ScoredChunk } from '../domain/chunk-record.js';
import type { ProjectRef } from '../domain/project-ref.js';

export type { ChunkRecord, ScoredChunk } from '../domain/chunk-record.js';

export interface ChunkWithVector extends ChunkRecord {
  /** The embedding of the chunk's text. */
  vector: Float32Array;
  /**
   * Embeddings of the chunk's sentences (domain/sentences.ts evidenceSentences), scored beside `vector`: see
   * searchVector. None or empty: the chunk is scored by `vector` alone.
   */
  sentenceVectors?: Float32Array[];
}

/** Narrows a search beyond its projects. */
export interface ChunkFilter {
  /**
   * Only chunks whose documentType is one of these, compared exactly (the search service resolves a request's
   * case-insensitive types to the spellings the projects' documents carry). An empty list matches nothing.
   */
  documentTypes?: readonly string[];
}

export interface IndexInfo {
  embedderId: string;
  dimensions: number;
}

/**
 * Chunks with vectors and full text, filtered by (registry, projectId) pairs before scoring.
 * Scoring over the filtered set is exact, not approximate.
 */
export interface VectorIndex {
  /**
   * Creates the index for this embedder, or checks that the existing one was built with it.
   * Throws EmbedderMismatchError otherwise. Must be called before any other method.
   */
  open(info: IndexInfo): Promise<void>;
  /** Inserts or replaces chunks by id. */
  upsert(chunks: ChunkWithVector[]): Promise<void>;
  /**
   * Replaces every chunk of one document with `chunks` (the whole new set, each of that document), so that a search
   * sees the document's old chunks or its new ones, never part of the new set: the embedded index in one
   * transaction, Qdrant by writing the new points hidden and switching them live in one request. An interrupted call
   * leaves search with the old chunks (Qdrant: those not yet overwritten) or none, never new ones.
   */
  replaceDocument(ref: ProjectRef, documentId: string, chunks: ChunkWithVector[]): Promise<void>;
  /** Removes every chunk of one document of one project. */
  deleteDocument(ref: ProjectRef, documentId: string): Promise<void>;
  /**
   * The topK chunks of the given projects most similar to `query`, best first: each scores the mean of cos(query,
   * vector) and the largest cos(query, sentence vector), or cos(query, vector) when it has no sentence vectors; a zero
   * vector (query or stored) has cosine 0.
   * `query` may still be on its way (a pending embedding): an adapter may read the projects' chunks meanwhile. The
   * search rejects with the query's error if it rejects.
   */
  searchVector(
    query: Float32Array | Promise<Float32Array>,
    projects: ProjectRef[],
    topK: number,
    filter?: ChunkFilter,
  ): Promise<ScoredChunk[]>;
  /** Full-text search; codes such as VM0007 or AR-AM0001 and numbers match exactly. */
  searchText(query: string, projects: ProjectRef[], topK: number, filter?: ChunkFilter): Promise<ScoredChunk[]>;
  /** Chunk ids of one document (for idempotence checks and tests). */
  documentChunkIds(ref: ProjectRef, documentId: string): Promise<string[]>;
  /** Number of chunks per project key for the given projects (0 for projects with none). */
  countChunks(projects: ProjectRef[]): Promise<Map<string, number>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
