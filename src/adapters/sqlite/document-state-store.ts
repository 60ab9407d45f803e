import { projectKey, type ProjectRef } from '../../domain/project-ref.js';
import type { DocumentState, DocumentStateInput, DocumentStateStore, DocumentStatus } from '../../ports/document-state-store.js';
import {
  checkDocumentId,
  checkDocumentState,
  checkRef,
  documentStateFromRow,
  DOCUMENT_STATUSES,
  type DocumentStateRow,
} from '../store-support.js';
import { migrateSqlite, type SqliteDatabase, type SqliteMigration } from './database.js';
import { closedStoreError, guardSqlite, sqliteFailure } from './store-errors.js';

const STORE = 'document state store';

const statusList = DOCUMENT_STATUSES.map((s) => `'${s}'`).join(', ');

const migrations: readonly SqliteMigration[] = [
  {
    name: '0001-document-states',
    up(db) {
      db.exec(`CREATE TABLE document_states (
        registry TEXT NOT NULL,
        project_id INTEGER NOT NULL,
        document_id TEXT NOT NULL,
        uri TEXT NOT NULL,
        title TEXT NOT NULL,
        document_type TEXT NOT NULL,
        upload_date TEXT,
        status TEXT NOT NULL CHECK (status IN (${statusList})),
        reason TEXT,
        content_hash TEXT,
        pages INTEGER,
        chunks INTEGER,
        embedder_id TEXT,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (registry, project_id, document_id)
      );
      CREATE INDEX document_states_status ON document_states (status, registry, project_id)`);
    },
  },
  {
    name: '0002-ocr-pages',
    up(db) {
      db.exec('ALTER TABLE document_states ADD COLUMN ocr_pages INTEGER NOT NULL DEFAULT 0');
    },
  },
];

const refsJson = (refs: readonly ProjectRef[]): string => JSON.stringify(refs.map((r) => [r.registry, r.projectId]));

/**
 * The requested projects as a table, from one JSON parameter (no limit on how many). Joined with CROSS JOIN, which
 * makes SQLite loop over the requested projects and look each one up by primary key; left to itself the planner
 * can pick the status index and rescan the list per row (seconds for a thousand projects).
 */
const REFS = `(SELECT DISTINCT json_extract(value, '$[0]') AS registry, json_extract(value, '$[1]') AS project_id
                 FROM json_each(@refs))`;

const ORDER = 'ORDER BY s.registry, s.project_id, s.document_id';

export interface SqliteDocumentStateStoreOptions {
  /** The shared embedded database (openSqlite); the caller owns it and closes it after every store. */
  db: SqliteDatabase;
}

/** Per-document ingestion state in the embedded SQLite file, beside the records. */
export async function createSqliteDocumentStateStore(opts: SqliteDocumentStateStoreOptions): Promise<DocumentStateStore> {
  const { db } = opts;
  try {
    await migrateSqlite(db, 'document-state', migrations);
  } catch (err) {
    throw sqliteFailure(STORE, err);
  }

  const stmt = guardSqlite(STORE, () => ({
    put: db.prepare(
      `INSERT INTO document_states (registry, project_id, document_id, uri, title, document_type, upload_date, status,
         reason, content_hash, pages, chunks, ocr_pages, embedder_id, updated_at)
       VALUES (@registry, @projectId, @documentId, @uri, @title, @documentType, @uploadDate, @status,
         @reason, @contentHash, @pages, @chunks, @ocrPages, @embedderId, @updatedAt)
       ON CONFLICT (registry, project_id, document_id) DO UPDATE SET
         uri = excluded.uri, title = excluded.title, document_type = excluded.document_type,
         upload_date = excluded.upload_date, status = excluded.status, reason = excluded.reason,
         content_hash = excluded.content_hash, pages = excluded.pages, chunks = excluded.chunks,
         ocr_pages = excluded.ocr_pages, embedder_id = excluded.embedder_id, updated_at = excluded.updated_at`,
    ),
    get: db.prepare<[string, number, string], DocumentStateRow>(
      'SELECT * FROM document_states WHERE registry = ? AND project_id = ? AND document_id = ?',
    ),
    listAll: db.prepare<[], DocumentStateRow>(`SELECT s.* FROM document_states s ${ORDER}`),
    listStatus: db.prepare<{ status: string }, DocumentStateRow>(`SELECT s.* FROM document_states s WHERE s.status = @status ${ORDER}`),
    listProjects: db.prepare<{ refs: string }, DocumentStateRow>(
      `SELECT s.* FROM ${REFS} r CROSS JOIN document_states s ON s.registry = r.registry AND s.project_id = r.project_id
        ${ORDER}`,
    ),
    listProjectsStatus: db.prepare<{ refs: string; status: string }, DocumentStateRow>(
      `SELECT s.* FROM ${REFS} r CROSS JOIN document_states s ON s.registry = r.registry AND s.project_id = r.project_id
        WHERE s.status = @status ${ORDER}`,
    ),
    countIndexed: db.prepare<{ refs: string }, { registry: string; project_id: number; n: number }>(
      `SELECT s.registry, s.project_id, count(*) AS n FROM ${REFS} r
         CROSS JOIN document_states s ON s.registry = r.registry AND s.project_id = r.project_id
        WHERE s.status = 'indexed' GROUP BY s.registry, s.project_id`,
    ),
    others: db.prepare<{ registry: string; projectId: number; keep: string }, DocumentStateRow>(
      `SELECT s.* FROM document_states s WHERE s.registry = @registry AND s.project_id = @projectId
          AND s.document_id NOT IN (SELECT value FROM json_each(@keep)) ${ORDER}`,
    ),
    remove: db.prepare<[string, number, string]>('DELETE FROM document_states WHERE registry = ? AND project_id = ? AND document_id = ?'),
  }));

  const removeOthersTx = db.transaction((ref: ProjectRef, keep: string[]): DocumentStateRow[] => {
    const rows = stmt.others.all({ registry: ref.registry, projectId: ref.projectId, keep: JSON.stringify(keep) });
    for (const row of rows) stmt.remove.run(row.registry, Number(row.project_id), row.document_id);
    return rows;
  });

  let closed = false;
  const run = <T>(fn: () => T): T => {
    if (closed) throw closedStoreError(STORE);
    return guardSqlite(STORE, fn);
  };

  return {
    async put(state: DocumentStateInput): Promise<void> {
      checkDocumentState(state);
      const row = {
        registry: state.registry,
        projectId: state.projectId,
        documentId: state.documentId,
        uri: state.uri,
        title: state.title,
        documentType: state.documentType,
        uploadDate: state.uploadDate,
        status: state.status,
        reason: state.reason,
        contentHash: state.contentHash,
        pages: state.pages,
        chunks: state.chunks,
        ocrPages: state.ocrPages ?? 0,
        embedderId: state.embedderId,
        updatedAt: new Date().toISOString(),
      };
      run(() => stmt.put.run(row));
    },

    async get(ref: ProjectRef, documentId: string): Promise<DocumentState | null> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      const row = run(() => stmt.get.get(ref.registry, ref.projectId, documentId));
      return row === undefined ? null : documentStateFromRow(row);
    },

    async list(filter?: { projects?: ProjectRef[]; status?: DocumentStatus }): Promise<DocumentState[]> {
      const projects = filter?.projects;
      const status = filter?.status;
      projects?.forEach((ref, i) => checkRef(ref, `projects[${i}]`));
      if (status !== undefined && !DOCUMENT_STATUSES.includes(status)) {
        throw new TypeError(`status must be one of ${DOCUMENT_STATUSES.join(', ')} (got ${JSON.stringify(status)})`);
      }
      if (projects !== undefined && projects.length === 0) return [];
      const rows = run(() => {
        if (projects === undefined) return status === undefined ? stmt.listAll.all() : stmt.listStatus.all({ status });
        const refs = refsJson(projects);
        return status === undefined ? stmt.listProjects.all({ refs }) : stmt.listProjectsStatus.all({ refs, status });
      });
      return rows.map(documentStateFromRow);
    },

    async countIndexed(projects: ProjectRef[]): Promise<Map<string, number>> {
      projects.forEach((ref, i) => checkRef(ref, `projects[${i}]`));
      const out = new Map<string, number>();
      for (const ref of projects) out.set(projectKey(ref), 0);
      if (projects.length === 0) return out;
      const rows = run(() => stmt.countIndexed.all({ refs: refsJson(projects) }));
      for (const row of rows) out.set(projectKey({ registry: row.registry, projectId: row.project_id }), row.n);
      return out;
    },

    async removeOthers(ref: ProjectRef, keepDocumentIds: string[]): Promise<DocumentState[]> {
      checkRef(ref, 'ref');
      if (!Array.isArray(keepDocumentIds)) throw new TypeError('keepDocumentIds must be an array of strings');
      keepDocumentIds.forEach((id) => checkDocumentId(id));
      return run(() => removeOthersTx.immediate(ref, keepDocumentIds)).map(documentStateFromRow);
    },

    async close(): Promise<void> {
      // The handle is shared with the other stores and the vector index; whoever opened it closes it.
      closed = true;
    },
  };
}
