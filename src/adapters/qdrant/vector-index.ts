import { createHash, randomUUID } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { z } from 'zod';
import type { ProjectRef } from '../../domain/project-ref.js';
import { distinctRefs, projectKey } from '../../domain/project-ref.js';
import { DependencyError, EmbedderMismatchError } from '../../errors.js';
import type { ChunkFilter, ChunkWithVector, IndexInfo, ScoredChunk, VectorIndex } from '../../ports/vector-index.js';
import { indexedContext } from '../full-text/chunk-context.js';
import { documentSparseVector, querySparseVector, type Bm25Options } from './sparse-vector.js';
import { checkChunk, checkDocumentChunks, checkIndexIdentity, checkQueryVector, checkTopK } from '../vector-index-support.js';

/**
 * Vector index on Qdrant. One collection holds every chunk with two named vectors:
 * - `dense`: a multivector scored by `max_sim` with dot product, searched with `exact: true` so that filtered results
 *   equal brute force (HNSW under a narrow filter can miss neighbours). It holds (c + s_i) / 2 for each sentence
 *   vector s_i of the chunk, c being the chunk's own vector, all unit length (or c alone for a chunk without
 *   sentences), and the query is the unit query vector q: the best q . (c + s_i) / 2 is the mean of the chunk's cosine
 *   and its best sentence's, the port's score, in one exact query. A collection created before (layout 1: one cosine
 *   vector per chunk) is still searched by the chunks' own vectors until `reindex` re-creates it;
 * - `text`: a BM25 sparse vector (client-side saturated term frequencies over hashed term ids; the collection applies
 *   IDF through `modifier: "idf"`), which gives full-text search with exact matching of codes and numbers.
 * The embedder that built the collection is recorded in the collection's metadata and checked by open().
 * replaceDocument writes a document's new points with `pending: true` and a fresh `generation` in their payload, which
 * every search and count excludes, then in one batch request deletes the document's other points and drops the new
 * points' `pending`: search never sees part of a new generation, and a writer killed before the switch leaves hidden
 * points that the document's next write or deletion removes.
 */
export interface QdrantVectorIndexOptions {
  /** e.g. http://localhost:6333 */
  url: string;
  apiKey?: string;
  /** @default chunks */
  collection?: string;
  /** Empty and recreate the collection when it was built with another embedder. @default false */
  reindex?: boolean;
  /** Per-request timeout. @default 30000 */
  timeoutMs?: number;
  /** Points per upsert request. @default 256 */
  upsertBatchSize?: number;
  bm25?: Bm25Options;
  /** Told once at open() when the collection has the layout before sentence vectors (the caller logs it). */
  onLegacyLayout?: (message: string) => void;
}

export const DENSE_VECTOR = 'dense';
export const SPARSE_VECTOR = 'text';
/** Bumped when the collection layout changes incompatibly; recorded in the collection metadata. 2: `dense` multivector. */
const LAYOUT_VERSION = 2;

function unit(v: Float32Array): number[] {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  // A zero vector stays zero: its dot product with anything is 0, the cosine the port gives it.
  return Array.from(v, (x) => (n === 0 ? 0 : x / n));
}

/** The `dense` multivector of a chunk (layout 2): (c + s_i) / 2 per sentence, or c alone, all from unit vectors. */
export function evidenceVectors(c: ChunkWithVector): number[][] {
  const own = unit(c.vector);
  const sentences = c.sentenceVectors ?? [];
  if (sentences.length === 0) return [own];
  return sentences.map((s) => unit(s).map((x, i) => ((own[i] ?? 0) + x) / 2));
}

const payloadSchema = z.object({
  chunkId: z.string(),
  registry: z.string(),
  projectId: z.number(),
  documentId: z.string(),
  documentTitle: z.string(),
  documentType: z.string(),
  uri: z.string(),
  page: z.number(),
  offset: z.number(),
  text: z.string(),
  /** Absent on points written before OCR existed, and on points of text-layer pages. */
  ocr: z.boolean().optional(),
});

const metadataSchema = z.object({ embedderId: z.string(), dimensions: z.number() });

/** A UUID (version-5 layout) derived from the chunk id: Qdrant accepts only UUIDs or unsigned integers as ids. */
export function pointId(chunkId: string): string {
  const h = createHash('sha1').update(`carbon-docs:chunk:${chunkId}`).digest();
  h[6] = ((h[6] ?? 0) & 0x0f) | 0x50;
  h[8] = ((h[8] ?? 0) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

interface FieldCondition {
  key: string;
  match: { value: string | number | boolean } | { any: string[] };
}

export interface ProjectsFilter {
  should: { must: FieldCondition[] }[];
  must_not: FieldCondition[];
  must?: FieldCondition[];
}

/** Payload keys of points written by replaceDocument and not yet switched live (see above). */
const PENDING = 'pending';
const GENERATION = 'generation';
const NOT_PENDING: FieldCondition[] = [{ key: PENDING, match: { value: true } }];

/**
 * Matches any of the projects: a `should` of one `must` (registry AND projectId) per distinct project; never a point
 * of a generation not yet switched live.
 */
export function projectsFilter(projects: ProjectRef[], filter?: ChunkFilter): ProjectsFilter {
  const should: { must: FieldCondition[] }[] = [];
  for (const p of distinctRefs(projects)) {
    should.push({
      must: [
        { key: 'registry', match: { value: p.registry } },
        { key: 'projectId', match: { value: p.projectId } },
      ],
    });
  }
  // Document types are matched exactly (the service resolved the request's spellings to the stored ones).
  if (filter?.documentTypes) {
    return { should, must_not: NOT_PENDING, must: [{ key: 'documentType', match: { any: [...new Set(filter.documentTypes)] } }] };
  }
  return { should, must_not: NOT_PENDING };
}

function documentFilter(ref: ProjectRef, documentId: string): { must: FieldCondition[] } {
  return {
    must: [
      { key: 'registry', match: { value: ref.registry } },
      { key: 'projectId', match: { value: ref.projectId } },
      { key: 'documentId', match: { value: documentId } },
    ],
  };
}

function statusOf(err: unknown): number | undefined {
  if (typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number') return err.status;
  return undefined;
}

/** Qdrant's own message from its error envelope `{status: {error}}`, else the error's message. */
function messageOf(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'data' in err) {
    const parsed = z.object({ status: z.object({ error: z.string() }) }).safeParse(err.data);
    if (parsed.success) return parsed.data.status.error;
  }
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return `${err.message}${cause}`;
  }
  return String(err);
}

function toDependencyError(what: string, url: string, err: unknown, timeoutMs: number): DependencyError {
  const status = statusOf(err);
  // The client's own time limit: its message is only fetch's "This operation was aborted".
  if (err instanceof Error && ['AbortError', 'TimeoutError', 'QdrantClientTimeoutError'].includes(err.name)) {
    return new DependencyError('qdrant', `Qdrant at ${url}: ${what} timed out after ${timeoutMs} ms`, { retryable: true, cause: err });
  }
  // Client mistakes (4xx but 408/429) will fail the same way again; connection failures and 5xx may pass later.
  const retryable = status === undefined || status === 408 || status === 429 || status >= 500;
  return new DependencyError('qdrant', `Qdrant at ${url}: ${what} failed${status ? ` (${status})` : ''}: ${messageOf(err)}`, {
    retryable,
    cause: err,
  });
}

function toScored(point: { score?: number; payload?: unknown }, collection: string): ScoredChunk {
  const parsed = payloadSchema.safeParse(point.payload);
  if (!parsed.success) {
    throw new DependencyError('qdrant', `collection ${collection} holds a point without a chunk payload`, {
      retryable: false,
    });
  }
  const p = parsed.data;
  return {
    id: p.chunkId,
    registry: p.registry,
    projectId: p.projectId,
    documentId: p.documentId,
    documentTitle: p.documentTitle,
    documentType: p.documentType,
    uri: p.uri,
    page: p.page,
    offset: p.offset,
    text: p.text,
    ...(p.ocr ? { ocr: true } : {}),
    score: point.score ?? 0,
  };
}

export async function createQdrantVectorIndex(opts: QdrantVectorIndexOptions): Promise<VectorIndex> {
  if (!/^https?:\/\//.test(opts.url)) {
    throw new TypeError(`Qdrant url must start with http:// or https://, got ${JSON.stringify(opts.url)}`);
  }
  const collection = opts.collection ?? 'chunks';
  const batchSize = opts.upsertBatchSize ?? 256;
  const url = opts.url;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  // The version check would only console.warn; ping() reports reachability instead.
  const client = new QdrantClient({
    url,
    ...(opts.apiKey ? { apiKey: opts.apiKey } : {}),
    timeout: timeoutMs,
    checkCompatibility: false,
  });

  let info: IndexInfo | undefined;
  let closed = false;
  const opened = (): IndexInfo => {
    if (closed) throw new Error('the vector index is closed');
    if (!info) throw new Error('the vector index is not open: call open(embedderInfo) first');
    return info;
  };

  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw toDependencyError(what, url, err, timeoutMs);
    }
  };

  const createCollection = async (wanted: IndexInfo): Promise<void> => {
    try {
      // The client's createCollection() drops `metadata`; the generated API sends the body as given.
      await client.api().createCollection({
        collection_name: collection,
        vectors: { [DENSE_VECTOR]: { size: wanted.dimensions, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } },
        sparse_vectors: { [SPARSE_VECTOR]: { modifier: 'idf' } },
        metadata: { embedderId: wanted.embedderId, dimensions: wanted.dimensions, layout: LAYOUT_VERSION },
      });
    } catch (err) {
      // Another process created it first (409): fall through to the check of what it recorded.
      if (statusOf(err) !== 409) throw toDependencyError(`creating collection ${collection}`, url, err, timeoutMs);
    }
  };

  /** What the collection records, and whether its `dense` vector is the multivector of layout 2. */
  const readRecorded = async (): Promise<{ info: IndexInfo | undefined; multivector: boolean }> => {
    const got = await call(`reading collection ${collection}`, () => client.getCollection(collection));
    const meta = metadataSchema.safeParse(got.config.metadata);
    const vectors = z
      .object({ [DENSE_VECTOR]: z.object({ multivector_config: z.unknown().optional() }) })
      .safeParse(got.config.params.vectors);
    return {
      info: meta.success ? { embedderId: meta.data.embedderId, dimensions: meta.data.dimensions } : undefined,
      multivector: vectors.success && vectors.data[DENSE_VECTOR]?.multivector_config != null,
    };
  };
  /** Layout 2 (set by open()): false for a collection of layout 1, whose chunks are scored by their own vectors. */
  let multivector = true;

  const ensurePayloadIndexes = async (): Promise<void> => {
    const fields = [
      ['registry', 'keyword'],
      ['projectId', 'integer'],
      ['documentId', 'keyword'],
      ['documentType', 'keyword'],
      [GENERATION, 'keyword'],
      [PENDING, 'bool'],
    ] as const;
    for (const [field_name, field_schema] of fields) {
      // Creating an index that exists is a no-op in Qdrant, so every open() may do it.
      await call(`creating payload index ${field_name}`, () =>
        client.createPayloadIndex(collection, { field_name, field_schema, wait: true }),
      );
    }
  };

  /** Upserts points in batches of upsertBatchSize, `extra` added to each payload. */
  const writePoints = async (chunks: ChunkWithVector[], extra: Record<string, string | boolean>): Promise<void> => {
    for (let i = 0; i < chunks.length; i += batchSize) {
      const points = chunks.slice(i, i + batchSize).map((c: ChunkWithVector) => {
        // The context (document title and type, the chunk's own context) joins the text's bag of words, so questions
        // naming the document find it as in the SQLite index; the payload keeps the cited text alone.
        const sparse = documentSparseVector(`${c.text}\n${indexedContext(c.documentTitle, c.documentType, c.context)}`, opts.bm25);
        return {
          id: pointId(c.id),
          vector: {
            [DENSE_VECTOR]: multivector ? evidenceVectors(c) : Array.from(c.vector),
            // A text without terms gets no sparse vector: named vectors may be absent on a point.
            ...(sparse.indices.length > 0 ? { [SPARSE_VECTOR]: sparse } : {}),
          },
          payload: {
            chunkId: c.id,
            registry: c.registry,
            projectId: c.projectId,
            documentId: c.documentId,
            documentTitle: c.documentTitle,
            documentType: c.documentType,
            uri: c.uri,
            page: c.page,
            offset: c.offset,
            text: c.text,
            ...(c.ocr ? { ocr: true } : {}),
            ...extra,
          },
        };
      });
      await call(`upserting ${points.length} points`, () => client.upsert(collection, { wait: true, points }));
    }
  };

  return {
    async open(wanted) {
      checkIndexIdentity(wanted);
      const { exists } = await call(`checking collection ${collection}`, () => client.collectionExists(collection));
      if (!exists) await createCollection(wanted);
      let recorded = await readRecorded();
      const have = recorded.info;
      const matches = have?.embedderId === wanted.embedderId && have.dimensions === wanted.dimensions;
      if (!matches && !opts.reindex) {
        throw new EmbedderMismatchError(
          have ? `${have.embedderId} (${have.dimensions} dimensions)` : `unknown (collection ${collection} has no embedder metadata)`,
          `${wanted.embedderId} (${wanted.dimensions} dimensions)`,
        );
      }
      // Re-indexing re-embeds every document: a collection of another embedder or of the layout before sentence
      // vectors is re-created first.
      if (opts.reindex && (!matches || !recorded.multivector)) {
        await call(`deleting collection ${collection}`, () => client.deleteCollection(collection));
        await createCollection(wanted);
        recorded = await readRecorded();
      }
      multivector = recorded.multivector;
      if (!multivector) {
        opts.onLegacyLayout?.(
          `Qdrant collection ${collection} predates sentence vectors (layout 1): chunks are scored by their own vectors ` +
            'until it is re-created by `npm run ingest -- --all --reindex`',
        );
      }
      await ensurePayloadIndexes();
      info = { embedderId: wanted.embedderId, dimensions: wanted.dimensions };
    },

    async upsert(chunks) {
      const { dimensions } = opened();
      for (const c of chunks) checkChunk(c, dimensions);
      await writePoints(chunks, {});
    },

    async replaceDocument(ref, documentId, chunks) {
      const { dimensions } = opened();
      checkDocumentChunks(ref, documentId, chunks, dimensions);
      const generation = randomUUID();
      await writePoints(chunks, { [PENDING]: true, [GENERATION]: generation });
      const doc = documentFilter(ref, documentId);
      const thisGeneration: FieldCondition = { key: GENERATION, match: { value: generation } };
      // One request, applied in order: the document's other points go (older generations, a killed writer's hidden
      // points), then the new ones become visible. Between the two, search sees none of the document.
      await call(`switching document ${documentId} of ${projectKey(ref)} to its ${chunks.length} new chunks`, () =>
        client.batchUpdate(collection, {
          wait: true,
          operations: [
            { delete: { filter: { must: doc.must, must_not: [thisGeneration] } } },
            { delete_payload: { keys: [PENDING], filter: { must: [...doc.must, thisGeneration] } } },
          ],
        }),
      );
    },

    async deleteDocument(ref, documentId) {
      opened();
      await call(`deleting document ${documentId} of ${projectKey(ref)}`, () =>
        client.delete(collection, { wait: true, filter: documentFilter(ref, documentId) }),
      );
    },

    async searchVector(pending, projects, topK, filter) {
      const { dimensions } = opened();
      checkTopK(topK);
      const query = await pending;
      checkQueryVector(query, dimensions);
      if (projects.length === 0 || topK === 0 || filter?.documentTypes?.length === 0) return [];
      const res = await call('vector search', () =>
        client.query(collection, {
          query: multivector ? [unit(query)] : Array.from(query),
          using: DENSE_VECTOR,
          filter: projectsFilter(projects, filter),
          limit: topK,
          with_payload: true,
          params: { exact: true },
        }),
      );
      return res.points.map((p) => toScored(p, collection));
    },

    async searchText(query, projects, topK, filter) {
      opened();
      checkTopK(topK);
      if (projects.length === 0 || topK === 0 || typeof query !== 'string' || filter?.documentTypes?.length === 0) return [];
      const sparse = querySparseVector(query);
      if (sparse.indices.length === 0) return [];
      const res = await call('text search', () =>
        client.query(collection, {
          query: sparse,
          using: SPARSE_VECTOR,
          filter: projectsFilter(projects, filter),
          limit: topK,
          with_payload: true,
        }),
      );
      return res.points.map((p) => toScored(p, collection));
    },

    async documentChunkIds(ref, documentId) {
      opened();
      const ids: string[] = [];
      let offset: string | number | undefined;
      for (;;) {
        const page = await call('listing document chunks', () =>
          client.scroll(collection, {
            filter: { ...documentFilter(ref, documentId), must_not: NOT_PENDING },
            limit: 1000,
            with_payload: ['chunkId'],
            with_vector: false,
            ...(offset === undefined ? {} : { offset }),
          }),
        );
        for (const p of page.points) {
          const chunkId = z.object({ chunkId: z.string() }).safeParse(p.payload);
          if (chunkId.success) ids.push(chunkId.data.chunkId);
        }
        const next = page.next_page_offset;
        if (typeof next !== 'string' && typeof next !== 'number') break;
        offset = next;
      }
      return ids.sort();
    },

    async countChunks(projects) {
      opened();
      const out = new Map<string, number>();
      const distinct = new Map(distinctRefs(projects).map((p) => [projectKey(p), p]));
      await Promise.all(
        [...distinct].map(async ([key, p]) => {
          const { count } = await call(`counting chunks of ${key}`, () =>
            client.count(collection, { filter: projectsFilter([p]), exact: true }),
          );
          out.set(key, count);
        }),
      );
      return new Map(projects.map((p) => [projectKey(p), out.get(projectKey(p)) ?? 0]));
    },

    async ping() {
      if (closed) throw new Error('the vector index is closed');
      await call('health check', () => client.versionInfo());
    },

    async close() {
      closed = true;
    },
  };
}
