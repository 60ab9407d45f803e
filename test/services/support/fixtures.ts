import { createHash } from 'node:crypto';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../../src/adapters/sqlite/document-state-store.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../../src/adapters/sqlite/vector-index.js';
import { createPassThroughReranker } from '../../../src/adapters/rerankers/none.js';
import { createExtractiveSummarizer } from '../../../src/adapters/summarizers/extractive.js';
import { createExtractiveReader } from '../../../src/adapters/readers/extractive.js';
import type { ProjectRef } from '../../../src/domain/project-ref.js';
import { createLogger } from '../../../src/logger.js';
import type { SearchServiceOptions } from '../../../src/services/search.js';
import type { DocumentStateStore } from '../../../src/ports/document-state-store.js';
import type { Embedder } from '../../../src/ports/embedder.js';
import type { RecordStore } from '../../../src/ports/record-store.js';
import type { ChunkWithVector, VectorIndex } from '../../../src/ports/vector-index.js';

/**
 * A deterministic Embedder for service tests: a feature-hashed bag of stemmed words, unit length. Texts that share
 * words are close, so retrieval behaves predictably without loading a model; the end-to-end tests use real models.
 */
export function createHashEmbedder(dimensions = 256): Embedder {
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(dimensions);
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const word = w.length > 4 && w.endsWith('s') ? w.slice(0, -1) : w;
      const h = createHash('sha1').update(word).digest();
      const i = h.readUInt32BE(0) % dimensions;
      v[i] = (v[i] ?? 0) + ((h[4] ?? 0) & 1 ? 1 : -1);
    }
    let norm = 0;
    for (const x of v) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm === 0) v[0] = 1;
    else for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
    return v;
  };
  return {
    id: `test-hash-${dimensions}`,
    dimensions,
    maxBatchSize: 64,
    maxInputTokens: 512,
    async embed(texts) {
      return texts.map(embedOne);
    },
    async close() {},
  };
}

/**
 * A search service's options over a fixture, as most tests want them: extractive answers (and fallback), the
 * pass-through reranker, a silent logger; `over` adds or replaces options (records, a counting embedder, topK bounds).
 */
export function searchOptions(f: SearchFixture, over: Partial<SearchServiceOptions> = {}): SearchServiceOptions {
  return {
    index: f.index,
    embedder: f.embedder,
    documents: f.states,
    summarizer: createExtractiveSummarizer(),
    fallbackSummarizer: createExtractiveSummarizer(),
    reader: createExtractiveReader(),
    reranker: createPassThroughReranker(),
    logger: createLogger({ level: 'silent', name: 'test' }),
    ...over,
  };
}

export interface SearchFixture {
  db: SqliteDatabase;
  index: VectorIndex;
  states: DocumentStateStore;
  records: RecordStore;
  embedder: Embedder;
  /**
   * Indexes passages as chunks of one document (one chunk per page, at its page's start unless `offsets` says where)
   * and marks the document indexed.
   */
  addDocument(
    ref: ProjectRef,
    documentId: string,
    pages: string[],
    meta?: { title?: string; type?: string; offsets?: number[] },
  ): Promise<void>;
  /** Stores a minimal raw record so the record store knows the project. */
  addRecord(ref: ProjectRef): Promise<void>;
  close(): Promise<void>;
}

export async function createSearchFixture(dataDir = ':memory:'): Promise<SearchFixture> {
  const db = openSqlite({ dataDir });
  const embedder = createHashEmbedder();
  const index = await createSqliteVectorIndex({ db });
  await index.open({ embedderId: embedder.id, dimensions: embedder.dimensions });
  const states = await createSqliteDocumentStateStore({ db });
  const records = await createSqliteRecordStore({ db });
  return {
    db,
    index,
    states,
    records,
    embedder,
    async addDocument(ref, documentId, pages, meta = {}) {
      const vectors = await embedder.embed(pages, 'document');
      const chunks: ChunkWithVector[] = pages.map((text, i) => ({
        id: `${ref.registry}:${ref.projectId}:${documentId}:${i + 1}:0`,
        registry: ref.registry,
        projectId: ref.projectId,
        documentId,
        documentTitle: meta.title ?? `${documentId}.pdf`,
        documentType: meta.type ?? 'Project Description',
        uri: `https://docs.example.org/${ref.projectId}/${documentId}.pdf`,
        page: i + 1,
        offset: meta.offsets?.[i] ?? 0,
        text,
        vector: vectors[i] ?? new Float32Array(embedder.dimensions),
      }));
      await index.upsert(chunks);
      await states.put({
        ...ref,
        documentId,
        uri: `https://docs.example.org/${ref.projectId}/${documentId}.pdf`,
        title: meta.title ?? `${documentId}.pdf`,
        documentType: meta.type ?? 'Project Description',
        uploadDate: null,
        status: 'indexed',
        reason: null,
        contentHash: 'h',
        pages: pages.length,
        chunks: chunks.length,
        embedderId: embedder.id,
      });
    },
    async addRecord(ref) {
      await records.upsert([
        {
          ref,
          format: 'registry-json',
          raw: { registry: ref.registry, resourceIdentifier: String(ref.projectId), resourceName: `Project ${ref.projectId}` },
        },
      ]);
    },
    async close() {
      await index.close();
      await states.close();
      await records.close();
      db.close();
    },
  };
}
