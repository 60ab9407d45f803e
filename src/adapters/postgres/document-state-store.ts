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
import type { PgMigration, PgPool } from './database.js';
import { openPgStore, pgText } from './store-errors.js';

const STORE = 'document state store';

const statusList = DOCUMENT_STATUSES.map((s) => `'${s}'`).join(', ');

const migrations: readonly PgMigration[] = [
  {
    name: '0001-document-states',
    async up(client) {
      await client.query(`CREATE TABLE document_states (
        registry TEXT NOT NULL,
        project_id BIGINT NOT NULL,
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
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (registry, project_id, document_id)
      )`);
      await client.query('CREATE INDEX document_states_status ON document_states (status, registry, project_id)');
    },
  },
  {
    name: '0002-ocr-pages',
    async up(client) {
      await client.query('ALTER TABLE document_states ADD COLUMN ocr_pages INTEGER NOT NULL DEFAULT 0');
    },
  },
];

// COLLATE "C": the same byte order as SQLite, whatever the database's locale.
const ORDER = 'ORDER BY registry COLLATE "C", project_id, document_id COLLATE "C"';
const IN_PROJECTS = '(registry, project_id) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))';

export interface PgDocumentStateStoreOptions {
  /** The shared pool (createPgPool); the caller owns it and ends it after every store. */
  pool: PgPool;
}

/** Per-document ingestion state on PostgreSQL, beside the records. */
export async function createPgDocumentStateStore(opts: PgDocumentStateStoreOptions): Promise<DocumentStateStore> {
  const store = await openPgStore(opts.pool, STORE, 'document-state', migrations);
  const query = store.query;

  return {
    async put(state: DocumentStateInput): Promise<void> {
      checkDocumentState(state);
      await query(
        `INSERT INTO document_states (registry, project_id, document_id, uri, title, document_type, upload_date,
           status, reason, content_hash, pages, chunks, embedder_id, updated_at, ocr_pages)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (registry, project_id, document_id) DO UPDATE SET
           uri = EXCLUDED.uri, title = EXCLUDED.title, document_type = EXCLUDED.document_type,
           upload_date = EXCLUDED.upload_date, status = EXCLUDED.status, reason = EXCLUDED.reason,
           content_hash = EXCLUDED.content_hash, pages = EXCLUDED.pages, chunks = EXCLUDED.chunks,
           embedder_id = EXCLUDED.embedder_id, updated_at = EXCLUDED.updated_at, ocr_pages = EXCLUDED.ocr_pages`,
        [
          state.registry,
          state.projectId,
          pgText(state.documentId),
          pgText(state.uri),
          pgText(state.title),
          pgText(state.documentType),
          pgText(state.uploadDate),
          state.status,
          pgText(state.reason),
          state.contentHash,
          state.pages,
          state.chunks,
          state.embedderId,
          new Date().toISOString(),
          state.ocrPages ?? 0,
        ],
      );
    },

    async get(ref: ProjectRef, documentId: string): Promise<DocumentState | null> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      const rows = await query<DocumentStateRow>(
        'SELECT * FROM document_states WHERE registry = $1 AND project_id = $2 AND document_id = $3',
        [ref.registry, ref.projectId, pgText(documentId)],
      );
      const row = rows[0];
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
      let rows: DocumentStateRow[];
      if (projects === undefined) {
        rows =
          status === undefined
            ? await query<DocumentStateRow>(`SELECT * FROM document_states ${ORDER}`)
            : await query<DocumentStateRow>(`SELECT * FROM document_states WHERE status = $1 ${ORDER}`, [status]);
      } else {
        const values: unknown[] = [projects.map((p) => p.registry), projects.map((p) => p.projectId)];
        if (status !== undefined) values.push(status);
        rows = await query<DocumentStateRow>(
          `SELECT * FROM document_states WHERE ${IN_PROJECTS} ${status === undefined ? '' : 'AND status = $3'} ${ORDER}`,
          values,
        );
      }
      return rows.map(documentStateFromRow);
    },

    async countIndexed(projects: ProjectRef[]): Promise<Map<string, number>> {
      projects.forEach((ref, i) => checkRef(ref, `projects[${i}]`));
      const out = new Map<string, number>();
      for (const ref of projects) out.set(projectKey(ref), 0);
      if (projects.length === 0) return out;
      const rows = await query<{ registry: string; project_id: string; n: number }>(
        `SELECT registry, project_id, count(*)::int AS n FROM document_states
          WHERE status = 'indexed' AND ${IN_PROJECTS} GROUP BY registry, project_id`,
        [projects.map((p) => p.registry), projects.map((p) => p.projectId)],
      );
      for (const row of rows) out.set(projectKey({ registry: row.registry, projectId: Number(row.project_id) }), row.n);
      return out;
    },

    async removeOthers(ref: ProjectRef, keepDocumentIds: string[]): Promise<DocumentState[]> {
      checkRef(ref, 'ref');
      if (!Array.isArray(keepDocumentIds)) throw new TypeError('keepDocumentIds must be an array of strings');
      keepDocumentIds.forEach((id) => checkDocumentId(id));
      const rows = await query<DocumentStateRow>(
        `DELETE FROM document_states
          WHERE registry = $1 AND project_id = $2 AND NOT (document_id = ANY($3::text[]))
          RETURNING *`,
        [ref.registry, ref.projectId, keepDocumentIds.map((id) => pgText(id))],
      );
      return rows.map(documentStateFromRow).sort((a, b) => (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : 0));
    },

    async close(): Promise<void> {
      store.close();
    },
  };
}
