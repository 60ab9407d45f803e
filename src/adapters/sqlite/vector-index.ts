import { createHash } from 'node:crypto';
import { cosineScores, exactTopKAvailable, topIndices } from '../exact-top-k.js';
import type { ProjectRef } from '../../domain/project-ref.js';
import { distinctRefs, projectKey } from '../../domain/project-ref.js';
import { EmbedderMismatchError } from '../../errors.js';
import type { ChunkFilter, ChunkWithVector, IndexInfo, ScoredChunk, VectorIndex } from '../../ports/vector-index.js';
import { indexedContext } from '../full-text/chunk-context.js';
import { queryWords } from '../full-text/query-terms.js';
import { migrateSqlite, type SqliteDatabase, type SqliteMigration } from './database.js';
import { checkChunk, checkDocumentChunks, checkIndexIdentity, checkQueryVector, checkTopK } from '../vector-index-support.js';

/**
 * Calls `fn` for every chunk of the table as the migrations need it, in pages by rowid: better-sqlite3 cannot write
 * while a statement is being iterated, and .all() of a large index would hold every text at once.
 */
function forEachChunk(db: SqliteDatabase, fn: (row: ContextRow) => void): void {
  const page = db.prepare<[number], ContextRow>(`SELECT rowid, registry, project_id, document_title, document_type,
    text, context FROM chunks WHERE rowid > ? ORDER BY rowid LIMIT 1000`);
  for (let last = 0; ;) {
    const rows = page.all(last);
    if (rows.length === 0) break;
    for (const r of rows) fn(r);
    last = rows[rows.length - 1]?.rowid ?? last;
  }
}

/**
 * Embedded vector index: chunks live in the shared SQLite file (WAL) next to records and document state.
 *
 * - Vectors are float32 BLOBs scored exactly, only over the rows of the requested (registry, project_id) pairs, found
 *   through the (registry, project_id, document_id) index. At a few thousand chunks per request this is faster than
 *   any approximate index, and approximate indexes lose recall under such filters. A chunk's sentence vectors are one
 *   BLOB beside its own vector, so they are read and deleted with it. When the query vector is still being computed,
 *   the vectors of up to `preloadChunks` chunks are read meanwhile and scored in memory by usearch (searchVector);
 *   otherwise sqlite-vec's `vec_distance_cosine` scores them in SQL.
 * - Full text is an FTS5 external-content table over `chunks`, kept in step by triggers in the same transactions,
 *   with three columns: the text (Porter stemming over unicode61), the chunk's context (document title and type,
 *   project; never cited) and a scope token per project, so a filtered text search intersects the query's postings
 *   with the requested projects' postings instead of ranking every chunk of the corpus. The triggers give FTS5 the
 *   old values of every deleted or replaced row, so BM25's statistics stay those of a fresh index however often
 *   documents are re-ingested.
 */
export const VECTOR_MIGRATIONS: readonly SqliteMigration[] = [
  {
    name: '0001-chunks',
    up(db) {
      db.exec(`
        CREATE TABLE vector_index_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE chunks (
          rowid INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          registry TEXT NOT NULL,
          project_id INTEGER NOT NULL,
          document_id TEXT NOT NULL,
          document_title TEXT NOT NULL,
          document_type TEXT NOT NULL,
          uri TEXT NOT NULL,
          page INTEGER NOT NULL,
          "offset" INTEGER NOT NULL,
          text TEXT NOT NULL,
          embedding BLOB NOT NULL
        );
        CREATE INDEX chunks_project_document ON chunks (registry, project_id, document_id);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
          text, scope, content='', contentless_delete=1,
          tokenize='porter unicode61 remove_diacritics 2'
        );
      `);
    },
  },
  {
    // A second FTS5 column holds each chunk's context (full-text/chunk-context.ts: document title and type plus the
    // chunk's own `context`), weighted apart from the text. Existing rows get the title and type, which the chunks
    // table already holds, so no re-ingest is needed.
    name: '0002-chunk-context',
    up(db) {
      db.exec(`
        ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
          text, context, scope, content='', contentless_delete=1,
          tokenize='porter unicode61 remove_diacritics 2'
        );
      `);
      const insert = db.prepare('INSERT INTO chunks_fts (rowid, text, context, scope) VALUES (?, ?, ?, ?)');
      forEachChunk(db, (r) =>
        insert.run(
          r.rowid,
          r.text,
          indexedContext(r.document_title, r.document_type, r.context),
          scopeToken({ registry: r.registry, projectId: r.project_id }),
        ),
      );
    },
  },
  {
    // BM25 needs the row count and the average column lengths. A contentless_delete FTS5 table cannot take a deleted
    // or replaced row's tokens out of those statistics (it never learns them), so every re-ingested document inflated
    // them and ranking drifted away from a fresh index's. The full-text table becomes an external-content table over
    // chunks: chunks.context now holds the exact indexed context (title, type and the chunk's context, as
    // indexedContext builds it) and chunks.scope the project token, and triggers hand FTS5 the old values of every
    // row they delete or change, so the statistics stay exact. The index is rebuilt once from the table.
    name: '0003-fts-external-content',
    up(db) {
      db.exec(`ALTER TABLE chunks ADD COLUMN scope TEXT NOT NULL DEFAULT ''`);
      const update = db.prepare('UPDATE chunks SET context = ?, scope = ? WHERE rowid = ?');
      forEachChunk(db, (r) =>
        update.run(
          indexedContext(r.document_title, r.document_type, r.context),
          scopeToken({ registry: r.registry, projectId: r.project_id }),
          r.rowid,
        ),
      );
      db.exec(`
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
          text, context, scope, content='chunks', content_rowid='rowid',
          tokenize='porter unicode61 remove_diacritics 2'
        );
        INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild');
        CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
          INSERT INTO chunks_fts (rowid, text, context, scope) VALUES (new.rowid, new.text, new.context, new.scope);
        END;
        CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
          INSERT INTO chunks_fts (chunks_fts, rowid, text, context, scope)
            VALUES ('delete', old.rowid, old.text, old.context, old.scope);
        END;
        CREATE TRIGGER chunks_fts_update AFTER UPDATE OF text, context, scope ON chunks BEGIN
          INSERT INTO chunks_fts (chunks_fts, rowid, text, context, scope)
            VALUES ('delete', old.rowid, old.text, old.context, old.scope);
          INSERT INTO chunks_fts (rowid, text, context, scope) VALUES (new.rowid, new.text, new.context, new.scope);
        END;
      `);
    },
  },
  {
    // The vectors of a chunk's sentences (ChunkWithVector.sentenceVectors), float32 one after the other; NULL for
    // none. Chunks written before have none and are scored by their own vector until their document is re-ingested.
    name: '0004-sentence-vectors',
    up(db) {
      db.exec('ALTER TABLE chunks ADD COLUMN sentence_embeddings BLOB');
    },
  },
  {
    // 1 when the chunk's page was read by OCR (ChunkRecord.ocr); chunks written before came from text layers.
    name: '0005-ocr',
    up(db) {
      db.exec('ALTER TABLE chunks ADD COLUMN ocr INTEGER NOT NULL DEFAULT 0');
    },
  },
];

interface ContextRow {
  rowid: number;
  registry: string;
  project_id: number;
  document_title: string;
  document_type: string;
  text: string;
  context: string;
}

/**
 * BM25 weight of the context column relative to the text; the scope column only filters. Measured on
 * corpus/qa-dev.jsonl (bench/README.md "eval"): 0, 0.5 and 1 gave text recall@5 0.73, 0.73-0.77 and 0.77; equal
 * weight also matches the Qdrant adapter, which puts the context into the same bag of words as the text.
 */
export const CONTEXT_WEIGHT = 1;

/**
 * Requested projects with at most this many chunks in all have their vectors read into memory for a vector search
 * (2 kB a vector at 512 dimensions: a chunk's own and its sentences', about 4 a chunk on the corpus), so the search
 * can read them before the query vector exists.
 */
export const PRELOAD_CHUNKS = 5000;

export interface SqliteVectorIndexOptions {
  /** The shared database from openSqlite(); the caller owns it and closes it after close(). */
  db: SqliteDatabase;
  /**
   * When true, open() with another embedder than the one the index was built with empties the index and records
   * the new embedder (the worker's `--reindex`), instead of throwing EmbedderMismatchError.
   * @default false
   */
  reindex?: boolean;
  /** BM25 weight of the context column (see indexedContext) relative to the chunk text. @default CONTEXT_WEIGHT */
  contextWeight?: number;
  /**
   * Largest candidate set whose vectors a search reads while its query is being embedded; 0 scores every search in
   * SQL. @default PRELOAD_CHUNKS
   */
  preloadChunks?: number;
}

interface ChunkRow {
  id: string;
  registry: string;
  project_id: number;
  document_id: string;
  document_title: string;
  document_type: string;
  uri: string;
  page: number;
  offset: number;
  text: string;
  ocr: number;
  score: number;
}

interface CandidateRow {
  rowid: number;
  id: string;
  embedding: Buffer;
  sentence_embeddings: Buffer | null;
}

/** A candidate as scoring needs it once its vectors are in the matrices. */
type KeptRow = Pick<CandidateRow, 'rowid' | 'id'>;

/**
 * Bytes of vectors an index keeps of the projects it searched last (about 30,000 chunks of USE's 512 dimensions
 * without sentence vectors, 10,000 of MiniLM's 384 with them), per API process.
 */
const KEPT_VECTOR_BYTES = 64 * 1024 * 1024;

const CHUNK_COLUMNS = `c.id, c.registry, c.project_id, c.document_id, c.document_title, c.document_type, c.uri,
  c.page, c."offset", c.text, c.ocr`;

/** FTS5 token standing for one project in the scope column: letters and digits only, so it is one token. */
export function scopeToken(ref: ProjectRef): string {
  return `p${createHash('sha1').update(projectKey(ref)).digest('hex').slice(0, 20)}`;
}

/**
 * The FTS5 MATCH expression for free text: every word quoted, compound words (codes, grouped numbers) as phrases
 * of their parts, OR-ed so BM25 ranks chunks by how many and how rare the words they contain are.
 * Returns undefined when the text has no searchable word. Quoting means no user text is FTS5 syntax.
 */
export function ftsTextExpression(text: string): string | undefined {
  const words = queryWords(text);
  if (words.length === 0) return undefined;
  // Parts are letters and digits only, so they cannot contain a double quote.
  return words.map((w) => `"${w.parts.join(' ')}"`).join(' OR ');
}

/** ChunkFilter.documentTypes as the statements' @types parameter: null for no filter, '[]' matches nothing. */
function typesJson(filter: ChunkFilter | undefined): string | null {
  return filter?.documentTypes ? JSON.stringify([...new Set(filter.documentTypes)]) : null;
}

function pairsJson(projects: ProjectRef[]): string {
  return JSON.stringify(distinctRefs(projects).map((p) => [p.registry, p.projectId]));
}

function toScored(row: ChunkRow): ScoredChunk {
  return {
    id: row.id,
    registry: row.registry,
    projectId: row.project_id,
    documentId: row.document_id,
    documentTitle: row.document_title,
    documentType: row.document_type,
    uri: row.uri,
    page: row.page,
    offset: row.offset,
    text: row.text,
    ...(row.ocr ? { ocr: true } : {}),
    score: row.score,
  };
}

function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** The sentence vectors of a chunk as one BLOB, or null for none. */
function sentencesBlob(vectors: Float32Array[] | undefined): Buffer | null {
  if (!vectors || vectors.length === 0) return null;
  return Buffer.concat(vectors.map(vectorBlob));
}

interface CandidateMatrices {
  /** Row i: the vector of rows[i]. */
  chunkMatrix: Float32Array;
  /** The sentence vectors of rows[i] are rows [firstSentence[i], firstSentence[i + 1]). */
  sentenceMatrix: Float32Array;
  firstSentence: Uint32Array;
}

/** The candidates' vectors as row-major matrices for usearch; throws on a vector of another dimension. */
function candidateMatrices(rows: CandidateRow[], dimensions: number): CandidateMatrices {
  const rowBytes = dimensions * 4;
  const firstSentence = new Uint32Array(rows.length + 1);
  rows.forEach((r, i) => {
    const sentences = r.sentence_embeddings?.byteLength ?? 0;
    if (r.embedding.byteLength !== rowBytes || sentences % rowBytes !== 0) {
      throw new Error(`chunk ${r.id} has vectors of another dimension than the index's ${dimensions}`);
    }
    firstSentence[i + 1] = (firstSentence[i] ?? 0) + sentences / rowBytes;
  });
  const chunkMatrix = new Float32Array(rows.length * dimensions);
  const sentenceMatrix = new Float32Array((firstSentence[rows.length] ?? 0) * dimensions);
  const chunkBytes = new Uint8Array(chunkMatrix.buffer);
  const sentenceBytes = new Uint8Array(sentenceMatrix.buffer);
  rows.forEach((r, i) => {
    chunkBytes.set(r.embedding, i * rowBytes);
    if (r.sentence_embeddings) sentenceBytes.set(r.sentence_embeddings, (firstSentence[i] ?? 0) * rowBytes);
  });
  return { chunkMatrix, sentenceMatrix, firstSentence };
}

/** Each candidate's score, as the SQL search computes it: the mean of its own cosine and its best sentence's, or its own. */
function candidateScores(matrices: CandidateMatrices, count: number, dimensions: number, query: Float32Array): Float64Array {
  const { chunkMatrix, sentenceMatrix, firstSentence } = matrices;
  const own = cosineScores(chunkMatrix, dimensions, query);
  const ofSentences = cosineScores(sentenceMatrix, dimensions, query);
  const scores = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const from = firstSentence[i] ?? 0;
    const to = firstSentence[i + 1] ?? 0;
    let best = -Infinity;
    for (let s = from; s < to; s++) best = Math.max(best, ofSentences[s] ?? 0);
    scores[i] = to > from ? ((own[i] ?? 0) + best) / 2 : (own[i] ?? 0);
  }
  return scores;
}

/** The index's prepared statements (full-text weights fixed per index: the context column's `contextWeight`). */
function prepareStatements(db: SqliteDatabase, contextWeight: number) {
  const readMeta = db.prepare<[string], { value: string }>('SELECT value FROM vector_index_meta WHERE key = ?');
  const writeMeta = db.prepare('INSERT OR REPLACE INTO vector_index_meta (key, value) VALUES (?, ?)');
  const upsertChunk = db.prepare(`
    INSERT INTO chunks (id, registry, project_id, document_id, document_title, document_type, uri, page, "offset",
      text, context, scope, embedding, sentence_embeddings, ocr)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO UPDATE SET registry = excluded.registry, project_id = excluded.project_id,
      document_id = excluded.document_id, document_title = excluded.document_title,
      document_type = excluded.document_type, uri = excluded.uri, page = excluded.page, "offset" = excluded."offset",
      text = excluded.text, context = excluded.context, scope = excluded.scope, embedding = excluded.embedding,
      sentence_embeddings = excluded.sentence_embeddings, ocr = excluded.ocr`);
  // The full-text table follows chunks through triggers (migration 0003-fts-external-content).
  const deleteDocChunks = db.prepare('DELETE FROM chunks WHERE registry = ? AND project_id = ? AND document_id = ?');
  const docIds = db.prepare<[string, number, string], { id: string }>(
    'SELECT id FROM chunks WHERE registry = ? AND project_id = ? AND document_id = ? ORDER BY id',
  );
  const countByProject = db.prepare<[string, number], { n: number }>(
    'SELECT count(*) AS n FROM chunks WHERE registry = ? AND project_id = ?',
  );
  // json_each drives the joins, so only the requested projects' rows are read and scored (exact, not approximate).
  // @types: null, or a JSON array of the document types to keep (ChunkFilter.documentTypes, exact spellings).
  const countCandidates = db.prepare<{ pairs: string; types: string | null }, { n: number }>(`
    SELECT count(*) AS n FROM json_each(@pairs) AS j
    CROSS JOIN chunks AS c ON c.registry = j.value ->> 0 AND c.project_id = j.value ->> 1
    WHERE (@types IS NULL OR c.document_type IN (SELECT value FROM json_each(@types)))`);
  const candidateVectors = db.prepare<{ pairs: string; types: string | null }, CandidateRow>(`
    SELECT c.rowid, c.id, c.embedding, c.sentence_embeddings FROM json_each(@pairs) AS j
    CROSS JOIN chunks AS c ON c.registry = j.value ->> 0 AND c.project_id = j.value ->> 1
    WHERE (@types IS NULL OR c.document_type IN (SELECT value FROM json_each(@types)))`);
  const chunksByRowid = db.prepare<[string], ChunkRow & { rowid: number }>(`
    SELECT c.rowid, ${CHUNK_COLUMNS}, 0.0 AS score FROM json_each(?) AS j CROSS JOIN chunks AS c ON c.rowid = j.value`);
  // A zero vector shares no direction with the query: sqlite-vec says NULL, the cosine is 0. A chunk's score is the
  // mean of its own cosine and its best sentence's (sentences: slices of the BLOB, counted by a recursive CTE), or its
  // own cosine without sentences.
  // Two phases: rank (rowid, id, score) first, then read the wide columns of the top K only, so the sorter never
  // holds the text of every candidate.
  const vectorSearch = db.prepare<{ q: Buffer; pairs: string; k: number; d: number; types: string | null }, ChunkRow>(`
    WITH scored AS (
      SELECT c.rowid AS rid, c.id AS cid, coalesce(1.0 - vec_distance_cosine(c.embedding, @q), 0.0) AS own,
        CASE WHEN c.sentence_embeddings IS NULL THEN NULL ELSE (
          WITH RECURSIVE s(i) AS (
            SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < length(c.sentence_embeddings) / (4 * @d))
          SELECT max(coalesce(1.0 - vec_distance_cosine(vec_slice(c.sentence_embeddings, i * @d, (i + 1) * @d), @q), 0.0))
          FROM s) END AS best
      FROM json_each(@pairs) AS j
      CROSS JOIN chunks AS c ON c.registry = j.value ->> 0 AND c.project_id = j.value ->> 1
      WHERE (@types IS NULL OR c.document_type IN (SELECT value FROM json_each(@types)))),
    top AS (
      SELECT rid, cid, CASE WHEN best IS NULL THEN own ELSE (own + best) / 2.0 END AS score
      FROM scored
      ORDER BY score DESC, cid
      LIMIT @k)
    SELECT ${CHUNK_COLUMNS}, top.score AS score
    FROM top JOIN chunks AS c ON c.rowid = top.rid
    ORDER BY top.score DESC, top.cid`);
  // The scope column narrows FTS5 to the requested projects; the pairs are re-checked exactly against a list read
  // once (a row-value IN over an uncorrelated subquery: an EXISTS over json_each re-read the JSON for every matching
  // row, about half of a search over the corpus's 4,176 chunks, bench/README.md "search").
  const textSearch = db.prepare<{ match: string; pairs: string; k: number; types: string | null }, ChunkRow>(`
    WITH top AS (
      SELECT c.rowid AS rid, c.id AS cid, -bm25(chunks_fts, 1.0, ${contextWeight}, 0.0) AS score
      FROM chunks_fts
      JOIN chunks AS c ON c.rowid = chunks_fts.rowid
      WHERE chunks_fts MATCH @match
        AND (c.registry, c.project_id) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(@pairs) AS j)
        AND (@types IS NULL OR c.document_type IN (SELECT value FROM json_each(@types)))
      ORDER BY score DESC, cid
      LIMIT @k)
    SELECT ${CHUNK_COLUMNS}, top.score AS score
    FROM top JOIN chunks AS c ON c.rowid = top.rid
    ORDER BY top.score DESC, top.cid`);
  return {
    readMeta,
    writeMeta,
    upsertChunk,
    deleteDocChunks,
    docIds,
    countByProject,
    countCandidates,
    candidateVectors,
    chunksByRowid,
    vectorSearch,
    textSearch,
  };
}

const META_KEY = 'embedder';

export async function createSqliteVectorIndex(opts: SqliteVectorIndexOptions): Promise<VectorIndex> {
  const { db } = opts;
  const contextWeight = opts.contextWeight ?? CONTEXT_WEIGHT;
  if (!(contextWeight >= 0 && Number.isFinite(contextWeight))) {
    throw new RangeError(`contextWeight must be a finite number >= 0, got ${contextWeight}`);
  }
  const preloadChunks = opts.preloadChunks ?? PRELOAD_CHUNKS;
  if (!(Number.isInteger(preloadChunks) && preloadChunks >= 0)) {
    throw new RangeError(`preloadChunks must be a non-negative integer, got ${preloadChunks}`);
  }
  await migrateSqlite(db, 'vectors', VECTOR_MIGRATIONS);

  const {
    readMeta,
    writeMeta,
    upsertChunk,
    deleteDocChunks,
    docIds,
    countByProject,
    countCandidates,
    candidateVectors,
    chunksByRowid,
    vectorSearch,
    textSearch,
  } = prepareStatements(db, contextWeight);

  let info: IndexInfo | undefined;
  let closed = false;

  /**
   * The vectors of the projects the last searches read ahead, by project, newest last, within KEPT_VECTOR_BYTES: a
   * team asks question after question of the same projects, and reading all 4,176 chunks' vectors of the corpus took
   * as long as embedding the question (bench/README.md, "search"). Dropped whenever the file may have changed: SQLite's
   * `data_version` moves when another connection (the worker, another API process) commits, and this adapter's own
   * writes drop them as well.
   */
  const kept = new Map<string, { rows: KeptRow[]; matrices: CandidateMatrices; bytes: number }>();
  let keptBytes = 0;
  let keptVersion: number | null = null;
  const forgetVectors = (): void => {
    kept.clear();
    keptBytes = 0;
  };
  /** One of this adapter's own writes: the kept vectors are dropped after it, whether it commits or fails. */
  const write = (run: () => void): void => {
    try {
      run();
    } finally {
      forgetVectors();
    }
  };
  /** The requested projects' kept vectors, read (and kept) for those not kept; null when they are more than preloadChunks. */
  const projectVectors = (projects: ProjectRef[]): { rows: KeptRow[]; matrices: CandidateMatrices; bytes: number }[] | null => {
    const version = db.pragma('data_version', { simple: true }) as number;
    if (version !== keptVersion) {
      forgetVectors();
      keptVersion = version;
    }
    const refs = distinctRefs(projects);
    const missing = refs.filter((r) => !kept.has(projectKey(r)));
    let total = 0;
    for (const r of refs) total += kept.get(projectKey(r))?.rows.length ?? 0;
    if (missing.length > 0) total += countCandidates.get({ pairs: pairsJson(missing), types: null })?.n ?? 0;
    if (total > preloadChunks) return null;
    const dimensions = opened().dimensions;
    return refs.map((r) => {
      const key = projectKey(r);
      const have = kept.get(key);
      if (have) {
        // Most recently used last.
        kept.delete(key);
        kept.set(key, have);
        return have;
      }
      const read = candidateVectors.all({ pairs: pairsJson([r]), types: null });
      const matrices = candidateMatrices(read, dimensions);
      const entry = {
        rows: read.map((x) => ({ rowid: x.rowid, id: x.id })),
        matrices,
        bytes: (matrices.chunkMatrix.byteLength + matrices.sentenceMatrix.byteLength) * 1.1,
      };
      if (entry.bytes <= KEPT_VECTOR_BYTES) {
        kept.set(key, entry);
        keptBytes += entry.bytes;
        for (const [k, v] of kept) {
          if (keptBytes <= KEPT_VECTOR_BYTES) break;
          kept.delete(k);
          keptBytes -= v.bytes;
        }
      }
      return entry;
    });
  };

  const opened = (): IndexInfo => {
    if (closed) throw new Error('the vector index is closed');
    if (!info) throw new Error('the vector index is not open: call open(embedderInfo) first');
    return info;
  };
  // Another process (the worker with --reindex) may rebuild the index for another embedder while this one runs;
  // vectors from the old model must then be refused, not compared. One primary-key read per call.
  const current = (): IndexInfo => {
    const mine = opened();
    const row = readMeta.get(META_KEY);
    const have = row ? (JSON.parse(row.value) as IndexInfo) : undefined;
    if (have?.embedderId !== mine.embedderId || have.dimensions !== mine.dimensions) {
      throw new EmbedderMismatchError(
        have ? `${have.embedderId} (${have.dimensions} dimensions)` : 'none (the index was emptied)',
        `${mine.embedderId} (${mine.dimensions} dimensions)`,
      );
    }
    return mine;
  };

  const writeChunks = (chunks: ChunkWithVector[]): void => {
    for (const c of chunks) {
      upsertChunk.run(
        c.id,
        c.registry,
        c.projectId,
        c.documentId,
        c.documentTitle,
        c.documentType,
        c.uri,
        c.page,
        c.offset,
        c.text,
        indexedContext(c.documentTitle, c.documentType, c.context),
        scopeToken(c),
        vectorBlob(c.vector),
        sentencesBlob(c.sentenceVectors),
        c.ocr ? 1 : 0,
      );
    }
  };

  const upsertMany = db.transaction((chunks: ChunkWithVector[]) => {
    // Checked under the write lock, so a concurrent re-index cannot slip in between the check and the write.
    current();
    writeChunks(chunks);
  });

  // One transaction: readers (WAL) see the old chunks until it commits, then the new ones; a writer killed in it
  // leaves the old ones.
  const replaceDocumentTx = db.transaction((ref: ProjectRef, documentId: string, chunks: ChunkWithVector[]) => {
    current();
    deleteDocChunks.run(ref.registry, ref.projectId, documentId);
    writeChunks(chunks);
  });

  const deleteDocument = db.transaction((ref: ProjectRef, documentId: string) => {
    deleteDocChunks.run(ref.registry, ref.projectId, documentId);
  });

  const openTx = db.transaction((wanted: IndexInfo) => {
    const row = readMeta.get(META_KEY);
    if (row) {
      const have = JSON.parse(row.value) as IndexInfo;
      if (have.embedderId === wanted.embedderId && have.dimensions === wanted.dimensions) return;
      if (!opts.reindex) {
        throw new EmbedderMismatchError(
          `${have.embedderId} (${have.dimensions} dimensions)`,
          `${wanted.embedderId} (${wanted.dimensions} dimensions)`,
        );
      }
      db.exec('DELETE FROM chunks;');
    }
    writeMeta.run(META_KEY, JSON.stringify({ embedderId: wanted.embedderId, dimensions: wanted.dimensions }));
  });

  return {
    async open(wanted) {
      checkIndexIdentity(wanted);
      // IMMEDIATE: an API and a worker opening a fresh index together must not both record an embedder.
      openTx.immediate(wanted);
      forgetVectors();
      info = { embedderId: wanted.embedderId, dimensions: wanted.dimensions };
    },

    async upsert(chunks) {
      const { dimensions } = opened();
      for (const c of chunks) checkChunk(c, dimensions);
      if (chunks.length === 0) return;
      // IMMEDIATE takes the write lock up front, so a concurrent writer waits (busy_timeout) instead of failing.
      write(() => upsertMany.immediate(chunks));
    },

    async replaceDocument(ref, documentId, chunks) {
      const { dimensions } = opened();
      checkDocumentChunks(ref, documentId, chunks, dimensions);
      write(() => replaceDocumentTx.immediate(ref, documentId, chunks));
    },

    async deleteDocument(ref, documentId) {
      opened();
      write(() => deleteDocument.immediate(ref, documentId));
    },

    async searchVector(pending, projects, topK, filter) {
      const { dimensions } = current();
      checkTopK(topK);
      const pairs = pairsJson(projects);
      const types = typesJson(filter);
      if (types === '[]') {
        checkQueryVector(await pending, dimensions);
        return [];
      }
      if (projects.length === 0 || topK === 0) {
        checkQueryVector(await pending, dimensions);
        return [];
      }
      // A query still being embedded: the vectors are read meanwhile, so what follows the embedding is the scoring and
      // reading the text of the top rows. A query vector at hand is scored in SQL, which reads the vectors in place
      // (faster than copying them out when there is nothing to overlap with: bench/README.md, vector-index).
      // (usearch is loaded at the first such search, not when the index opens: the ingest worker never needs it.)
      const readAhead = preloadChunks > 0 && !(pending instanceof Float32Array) && exactTopKAvailable();
      // The matrices are built while the query is still being embedded too (a type filter's from its own rows, the
      // rest from the projects' kept vectors); an error waits for the query's own.
      let parts: { rows: KeptRow[]; matrices: CandidateMatrices }[] | null = null;
      let unreadable: unknown = null;
      try {
        if (readAhead && types !== null) {
          if ((countCandidates.get({ pairs, types })?.n ?? 0) <= preloadChunks) {
            const read = candidateVectors.all({ pairs, types });
            parts = [{ rows: read, matrices: candidateMatrices(read, dimensions) }];
          }
        } else if (readAhead) {
          parts = projectVectors(projects);
        }
      } catch (err) {
        unreadable = err;
      }
      const query = await pending;
      checkQueryVector(query, dimensions);
      // Another process may have re-indexed for another embedder while the query was embedded.
      current();
      if (unreadable) throw unreadable;
      if (!parts) return vectorSearch.all({ q: vectorBlob(query), pairs, k: topK, d: dimensions, types }).map(toScored);
      const rows = parts.flatMap((p) => p.rows);
      const scores = new Float64Array(rows.length);
      let at = 0;
      for (const p of parts) {
        scores.set(candidateScores(p.matrices, p.rows.length, dimensions, query), at);
        at += p.rows.length;
      }
      const top = topIndices(scores, topK)
        .map((i) => ({ row: rows[i] as KeptRow, score: scores[i] ?? 0 }))
        // The SQL search's order: score, then chunk id.
        .sort((a, b) => b.score - a.score || (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0))
        .slice(0, topK);
      const byRowid = new Map(chunksByRowid.all(JSON.stringify(top.map((t) => t.row.rowid))).map((c) => [c.rowid, c]));
      const out: ScoredChunk[] = [];
      for (const { row, score } of top) {
        // A chunk deleted since its vector was read (a document re-ingested meanwhile) is left out.
        const c = byRowid.get(row.rowid);
        if (c?.id === row.id) out.push(toScored({ ...c, score }));
      }
      return out;
    },

    async searchText(query, projects, topK, filter) {
      opened();
      checkTopK(topK);
      const types = typesJson(filter);
      if (projects.length === 0 || topK === 0 || typeof query !== 'string' || types === '[]') return [];
      const text = ftsTextExpression(query);
      if (!text) return [];
      const scopes = [...new Set(projects.map(scopeToken))].map((t) => `"${t}"`).join(' OR ');
      const match = `scope : (${scopes}) AND {text context} : (${text})`;
      return textSearch.all({ match, pairs: pairsJson(projects), k: topK, types }).map(toScored);
    },

    async documentChunkIds(ref, documentId) {
      opened();
      return docIds.all(ref.registry, ref.projectId, documentId).map((r) => r.id);
    },

    async countChunks(projects) {
      opened();
      const out = new Map<string, number>();
      for (const p of projects) out.set(projectKey(p), countByProject.get(p.registry, p.projectId)?.n ?? 0);
      return out;
    },

    async ping() {
      if (closed) throw new Error('the vector index is closed');
      db.prepare('SELECT 1').get();
    },

    async close() {
      closed = true;
    },
  };
}
