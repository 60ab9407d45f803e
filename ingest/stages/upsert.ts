import { chunkIdFor } from '../../src/domain/chunking.js';
import type { DocumentStateInput, DocumentStatus } from '../../src/ports/document-state-store.js';
import type { ChunkWithVector } from '../../src/ports/vector-index.js';
import type { DocumentWorkItem, Stage, StageContext } from '../types.js';

/**
 * Writes a document's results. Order (the resume guarantee): state `pending` with no hash, write page text, replace
 * the document's chunks, state `indexed` with the hash last. A kill anywhere before the last write leaves a state
 * that cannot match as unchanged, so the next run rewrites everything; chunk ids are deterministic, so a rewrite
 * never duplicates. The chunks are replaced in one VectorIndex.replaceDocument call, which search sees all at once:
 * a writer killed in the middle of a document leaves search citing the document's old chunks or none, never part
 * of the new ones.
 */

function baseState(
  item: DocumentWorkItem,
): Omit<DocumentStateInput, 'status' | 'reason' | 'contentHash' | 'pages' | 'chunks' | 'embedderId'> {
  return {
    registry: item.ref.registry,
    projectId: item.ref.projectId,
    documentId: item.documentId,
    uri: item.uri,
    title: item.title,
    documentType: item.documentType,
    uploadDate: item.uploadDate,
  };
}

export function toChunkRecords(item: DocumentWorkItem): ChunkWithVector[] {
  const { chunks, vectors, sentenceVectors } = item;
  if (!chunks || !vectors || chunks.length !== vectors.length) {
    throw new Error(`upsert: document ${item.documentId} has ${chunks?.length ?? 0} chunks but ${vectors?.length ?? 0} vectors`);
  }
  // The project's record (domain/search-context.ts): indexed for full text with every chunk, never cited.
  const context = item.projectContext ?? '';
  return chunks.map((c, i) => ({
    id: chunkIdFor({
      registry: item.ref.registry,
      projectId: item.ref.projectId,
      documentId: item.documentId,
      page: c.page,
      offset: c.offset,
    }),
    registry: item.ref.registry,
    projectId: item.ref.projectId,
    documentId: item.documentId,
    documentTitle: item.title,
    documentType: item.documentType,
    uri: item.uri,
    page: c.page,
    offset: c.offset,
    text: c.text,
    ...(context !== '' ? { context } : {}),
    ...(c.ocr ? { ocr: true } : {}),
    vector: vectors[i] as Float32Array,
    ...(sentenceVectors?.[i]?.length ? { sentenceVectors: sentenceVectors[i] } : {}),
  }));
}

/** Stage: replaces the document's chunks and text, then marks it indexed. */
export const upsert: Stage = async (item, ctx) => {
  const { states, index, texts, embedder } = ctx.deps;
  const records = toChunkRecords(item);
  const pages = item.pages ?? [];
  const content = item.content;
  if (!content) throw new Error(`upsert: document ${item.documentId} has no content hash`);
  await states.put({ ...baseState(item), status: 'pending', reason: null, contentHash: null, pages: null, chunks: null, embedderId: null });
  await texts.put(item.ref, item.documentId, pages);
  await index.replaceDocument(item.ref, item.documentId, records);
  await states.put({
    ...baseState(item),
    status: 'indexed',
    reason: null,
    contentHash: content.contentHash,
    pages: pages.length,
    chunks: records.length,
    ...(item.ocrPages?.length ? { ocrPages: item.ocrPages.length } : {}),
    embedderId: embedder.id,
  });
  return { ...item, outcome: { kind: 'indexed' } };
};

/**
 * Records an outcome other than `indexed`. A failure of a document that is indexed already keeps its chunks and
 * state (a registry outage must not empty the index); every other failed, skipped or needs_ocr document has no
 * chunks or text left behind, so search never cites a document in that state.
 */
export async function recordOutcome(item: DocumentWorkItem, ctx: Pick<StageContext, 'deps'>): Promise<'kept' | 'recorded' | 'none'> {
  const outcome = item.outcome;
  if (!outcome || outcome.kind === 'indexed' || outcome.kind === 'unchanged') return 'none';
  const prev = item.previous;
  const { states, index, texts, embedder } = ctx.deps;
  if (outcome.kind === 'failed' && prev?.status === 'indexed' && prev.embedderId === embedder.id && prev.contentHash !== null) {
    return 'kept';
  }
  const status: DocumentStatus = outcome.kind;
  if (
    prev &&
    prev.status === status &&
    prev.reason === outcome.reason &&
    prev.title === item.title &&
    prev.documentType === item.documentType &&
    prev.uploadDate === item.uploadDate &&
    prev.uri === item.uri &&
    (item.content === undefined || prev.contentHash === item.content.contentHash)
  ) {
    return 'none';
  }
  await index.deleteDocument(item.ref, item.documentId);
  await texts.delete(item.ref, item.documentId);
  await states.put({
    ...baseState(item),
    status,
    reason: outcome.reason,
    contentHash: item.content?.contentHash ?? null,
    pages: item.pages?.length ?? null,
    chunks: null,
    embedderId: null,
  });
  return 'recorded';
}
