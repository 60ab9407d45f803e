import type { ProjectRef } from '../../domain/project-ref.js';
import type { DocumentTextStore } from '../../ports/document-text-store.js';
import { checkDocumentId, checkPages, checkRef } from '../store-support.js';
import type { PgMigration, PgPool } from './database.js';
import { openPgStore, pgText } from './store-errors.js';

const STORE = 'document text store';

const migrations: readonly PgMigration[] = [
  {
    name: '0001-document-texts',
    async up(client) {
      // Pages as a JSON array in TEXT (not JSONB, not one TEXT per page): PostgreSQL text cannot hold U+0000, which
      // PDF extraction can produce, while JSON.stringify escapes it. Documents are read and written whole.
      await client.query(`CREATE TABLE document_texts (
        registry TEXT NOT NULL,
        project_id BIGINT NOT NULL,
        document_id TEXT NOT NULL,
        pages_json TEXT NOT NULL,
        page_count INTEGER NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (registry, project_id, document_id)
      )`);
    },
  },
];

export interface PgDocumentTextStoreOptions {
  /** The shared pool (createPgPool); the caller owns it and ends it after every store. */
  pool: PgPool;
}

/** Extracted page text on PostgreSQL. */
export async function createPgDocumentTextStore(opts: PgDocumentTextStoreOptions): Promise<DocumentTextStore> {
  const store = await openPgStore(opts.pool, STORE, 'document-text', migrations);
  const query = store.query;

  return {
    async put(ref: ProjectRef, documentId: string, pages: string[]): Promise<void> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      checkPages(pages);
      await query(
        `INSERT INTO document_texts (registry, project_id, document_id, pages_json, page_count, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (registry, project_id, document_id) DO UPDATE SET
           pages_json = EXCLUDED.pages_json, page_count = EXCLUDED.page_count, updated_at = EXCLUDED.updated_at`,
        [ref.registry, ref.projectId, pgText(documentId), JSON.stringify(pages), pages.length, new Date().toISOString()],
      );
    },

    async get(ref: ProjectRef, documentId: string): Promise<string[] | null> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      const rows = await query<{ pages_json: string }>(
        'SELECT pages_json FROM document_texts WHERE registry = $1 AND project_id = $2 AND document_id = $3',
        [ref.registry, ref.projectId, pgText(documentId)],
      );
      const row = rows[0];
      return row === undefined ? null : (JSON.parse(row.pages_json) as string[]);
    },

    async delete(ref: ProjectRef, documentId: string): Promise<void> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      await query('DELETE FROM document_texts WHERE registry = $1 AND project_id = $2 AND document_id = $3', [
        ref.registry,
        ref.projectId,
        pgText(documentId),
      ]);
    },

    async close(): Promise<void> {
      store.close();
    },
  };
}
