import { projectKey, type ProjectRef } from '../domain/project-ref.js';
import type { ChunkWithVector, IndexInfo } from '../ports/vector-index.js';

/**
 * Argument checks every VectorIndex adapter makes, so the SQLite and Qdrant indexes reject the same bad inputs with
 * the same messages (the contract suite runs on both).
 */

export function describeVector(v: unknown): string {
  if (v instanceof Float32Array) return `${v.length} dimensions`;
  return v === null ? 'null' : typeof v;
}

/** `open()`'s argument: the embedder's id and dimension. */
export function checkIndexIdentity(wanted: IndexInfo): void {
  if (typeof wanted?.embedderId !== 'string' || wanted.embedderId.length === 0) {
    throw new TypeError(`open() needs a non-empty embedderId, got ${JSON.stringify(wanted?.embedderId)}`);
  }
  if (!Number.isInteger(wanted.dimensions) || wanted.dimensions < 1) {
    throw new TypeError(`open() needs a positive integer dimensions, got ${JSON.stringify(wanted.dimensions)}`);
  }
}

export function checkTopK(topK: number): void {
  if (!Number.isInteger(topK) || topK < 0) throw new RangeError(`topK must be a non-negative integer, got ${topK}`);
}

export function checkQueryVector(query: unknown, dimensions: number): asserts query is Float32Array {
  if (!(query instanceof Float32Array) || query.length !== dimensions) {
    throw new TypeError(`query vector must be a Float32Array of ${dimensions} dimensions, got ${describeVector(query)}`);
  }
}

/** Every problem of a chunk to write, in one TypeError naming the chunk. */
export function checkChunk(c: ChunkWithVector, dimensions: number): void {
  const problems: string[] = [];
  if (typeof c.id !== 'string' || c.id.length === 0) problems.push('id must be a non-empty string');
  if (typeof c.registry !== 'string' || c.registry.length === 0) problems.push('registry must be a non-empty string');
  if (!Number.isSafeInteger(c.projectId) || c.projectId <= 0) problems.push(`projectId must be a positive integer`);
  if (!Number.isInteger(c.page) || c.page < 1) problems.push(`page must be a 1-based integer, got ${c.page}`);
  if (!Number.isInteger(c.offset) || c.offset < 0) problems.push(`offset must be a non-negative integer`);
  if (typeof c.text !== 'string') problems.push('text must be a string');
  if (c.context !== undefined && typeof c.context !== 'string') problems.push('context must be a string when given');
  if (!(c.vector instanceof Float32Array) || c.vector.length !== dimensions) {
    problems.push(`vector must be a Float32Array of ${dimensions} dimensions, got ${describeVector(c.vector)}`);
  } else if (!c.vector.every(Number.isFinite)) {
    problems.push('vector has a NaN or infinite component');
  }
  if (c.sentenceVectors !== undefined) {
    if (!Array.isArray(c.sentenceVectors)) {
      problems.push('sentenceVectors must be an array when given');
    } else {
      c.sentenceVectors.forEach((v, i) => {
        if (!(v instanceof Float32Array) || v.length !== dimensions) {
          problems.push(`sentenceVectors[${i}] must be a Float32Array of ${dimensions} dimensions, got ${describeVector(v)}`);
        } else if (!v.every(Number.isFinite)) {
          problems.push(`sentenceVectors[${i}] has a NaN or infinite component`);
        }
      });
    }
  }
  if (problems.length > 0) throw new TypeError(`invalid chunk ${JSON.stringify(c.id)}: ${problems.join('; ')}`);
}

/** replaceDocument's chunks: valid, and every one of the document being replaced. */
export function checkDocumentChunks(ref: ProjectRef, documentId: string, chunks: ChunkWithVector[], dimensions: number): void {
  for (const c of chunks) {
    checkChunk(c, dimensions);
    if (c.registry !== ref.registry || c.projectId !== ref.projectId || c.documentId !== documentId) {
      throw new TypeError(
        `replaceDocument(${projectKey(ref)}, ${documentId}): chunk ${c.id} belongs to document ${c.documentId} of ${projectKey(c)}`,
      );
    }
  }
}
