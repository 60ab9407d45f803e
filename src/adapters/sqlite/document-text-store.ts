import type { ProjectRef } from '../../domain/project-ref.js';
import type { DocumentTextStore } from '../../ports/document-text-store.js';
import { checkDocumentId, checkPages, checkRef } from '../store-support.js';
import { migrateSqlite, type SqliteDatabase, type SqliteMigration } from './database.js';
import { closedStoreError, guardSqlite, sqliteFailure } from './store-errors.js';

const STORE = 'document text store';

const migrations: readonly SqliteMigration[] = [
  {
    name: '0001-document-texts',
    up(db) {
      // One row per document with its pages as a JSON array: documents are always read and written whole, and a
      // 250-page document is one row, not 250.
      db.exec(`CREATE TABLE document_texts (
        registry TEXT NOT NULL,
        project_id INTEGER NOT NULL,
        document_id TEXT NOT NULL,
        pages_json TEXT NOT NULL,
        page_count INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (registry, project_id, document_id)
      )`);
    },
  },
];

export interface SqliteDocumentTextStoreOptions {
  /** The shared embedded database (openSqlite); the caller owns it and closes it after every store. */
  db: SqliteDatabase;
}

/** Extracted page text in the embedded SQLite file. */
export async function createSqliteDocumentTextStore(opts: SqliteDocumentTextStoreOptions): Promise<DocumentTextStore> {
  const { db } = opts;
  try {
    await migrateSqlite(db, 'document-text', migrations);
  } catch (err) {
    throw sqliteFailure(STORE, err);
  }

  const stmt = guardSqlite(STORE, () => ({
    put: db.prepare<[string, number, string, string, number, string]>(
      `INSERT INTO document_texts (registry, project_id, document_id, pages_json, page_count, updated_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (registry, project_id, document_id) DO UPDATE SET
         pages_json = excluded.pages_json, page_count = excluded.page_count, updated_at = excluded.updated_at`,
    ),
    get: db.prepare<[string, number, string], { pages_json: string }>(
      'SELECT pages_json FROM document_texts WHERE registry = ? AND project_id = ? AND document_id = ?',
    ),
    remove: db.prepare<[string, number, string]>('DELETE FROM document_texts WHERE registry = ? AND project_id = ? AND document_id = ?'),
  }));

  let closed = false;
  const run = <T>(fn: () => T): T => {
    if (closed) throw closedStoreError(STORE);
    return guardSqlite(STORE, fn);
  };

  return {
    async put(ref: ProjectRef, documentId: string, pages: string[]): Promise<void> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      checkPages(pages);
      // JSON.stringify escapes U+0000 and lone surrogates, so every JavaScript string round-trips exactly.
      const json = JSON.stringify(pages);
      run(() => stmt.put.run(ref.registry, ref.projectId, documentId, json, pages.length, new Date().toISOString()));
    },

    async get(ref: ProjectRef, documentId: string): Promise<string[] | null> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      const row = run(() => stmt.get.get(ref.registry, ref.projectId, documentId));
      return row === undefined ? null : (JSON.parse(row.pages_json) as string[]);
    },

    async delete(ref: ProjectRef, documentId: string): Promise<void> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      run(() => stmt.remove.run(ref.registry, ref.projectId, documentId));
    },

    async close(): Promise<void> {
      // The handle is shared with the other stores and the vector index; whoever opened it closes it.
      closed = true;
    },
  };
}
