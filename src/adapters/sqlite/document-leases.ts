import type { ProjectRef } from '../../domain/project-ref.js';
import type { DocumentLeases, LeaseHolder } from '../../ports/document-leases.js';
import { checkDocumentId, checkRef } from '../store-support.js';
import { migrateSqlite, type SqliteDatabase, type SqliteMigration } from './database.js';
import { closedStoreError, guardSqlite, sqliteFailure } from './store-errors.js';

const STORE = 'document lease table';

const migrations: readonly SqliteMigration[] = [
  {
    name: '0001-document-leases',
    up(db) {
      db.exec(`CREATE TABLE document_leases (
        registry TEXT NOT NULL,
        project_id INTEGER NOT NULL,
        document_id TEXT NOT NULL,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (registry, project_id, document_id)
      );
      CREATE INDEX document_leases_holder ON document_leases (holder)`);
    },
  },
];

export interface SqliteDocumentLeasesOptions {
  /** The shared embedded database (openSqlite); the caller owns it. */
  db: SqliteDatabase;
}

function checkHolder(holder: unknown): asserts holder is string {
  if (typeof holder !== 'string' || holder === '') throw new TypeError(`holder must be a non-empty string (got ${JSON.stringify(holder)})`);
}

function checkTtl(ttlMs: unknown): asserts ttlMs is number {
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 1) {
    throw new TypeError(`ttlMs must be a positive integer (got ${JSON.stringify(ttlMs)})`);
  }
}

/**
 * Document leases in the embedded SQLite file. A claim is one statement (an upsert that only overwrites an expired
 * lease or the holder's own), so two processes claiming at once cannot both win: SQLite serialises writers.
 */
export async function createSqliteDocumentLeases(opts: SqliteDocumentLeasesOptions): Promise<DocumentLeases> {
  const { db } = opts;
  try {
    await migrateSqlite(db, 'document-leases', migrations);
  } catch (err) {
    throw sqliteFailure(STORE, err);
  }
  const stmt = guardSqlite(STORE, () => ({
    claim: db.prepare(
      `INSERT INTO document_leases (registry, project_id, document_id, holder, expires_at)
       VALUES (@registry, @projectId, @documentId, @holder, @expiresAt)
       ON CONFLICT (registry, project_id, document_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE document_leases.expires_at <= @now OR document_leases.holder = excluded.holder`,
    ),
    current: db.prepare<[string, number, string], { holder: string; expires_at: number }>(
      'SELECT holder, expires_at FROM document_leases WHERE registry = ? AND project_id = ? AND document_id = ?',
    ),
    takeOver: db.prepare<[string, number, string, number, string, string]>(
      'UPDATE document_leases SET holder = ?, expires_at = ? WHERE registry = ? AND project_id = ? AND document_id = ? AND holder = ?',
    ),
    renew: db.prepare<[number, string, number]>('UPDATE document_leases SET expires_at = ? WHERE holder = ? AND expires_at > ?'),
    release: db.prepare<[string, number, string, string]>(
      'DELETE FROM document_leases WHERE registry = ? AND project_id = ? AND document_id = ? AND holder = ?',
    ),
    // Expired leases of runs long gone, so the table holds only what is being worked on.
    sweep: db.prepare<[number]>('DELETE FROM document_leases WHERE expires_at <= ?'),
  }));

  let closed = false;
  const run = <T>(fn: () => T): T => {
    if (closed) throw closedStoreError(STORE);
    return guardSqlite(STORE, fn);
  };

  return {
    async claim(ref: ProjectRef, documentId: string, holder: string, ttlMs: number) {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      checkHolder(holder);
      checkTtl(ttlMs);
      const now = Date.now();
      const params = { registry: ref.registry, projectId: ref.projectId, documentId, holder, expiresAt: now + ttlMs, now };
      const changes = run(() => stmt.claim.run(params).changes);
      if (changes > 0) return { taken: true } as const;
      const row = run(() => stmt.current.get(ref.registry, ref.projectId, documentId));
      // Released between the two statements: the document is free again, but this claim did not take it.
      const other: LeaseHolder =
        row === undefined ? { holder: 'another ingest', expiresAt: now } : { holder: row.holder, expiresAt: row.expires_at };
      return { taken: false, ...other } as const;
    },

    async takeOver(ref: ProjectRef, documentId: string, from: string, holder: string, ttlMs: number): Promise<boolean> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      checkHolder(from);
      checkHolder(holder);
      checkTtl(ttlMs);
      return run(() => stmt.takeOver.run(holder, Date.now() + ttlMs, ref.registry, ref.projectId, documentId, from).changes) > 0;
    },

    async renew(holder: string, ttlMs: number): Promise<void> {
      checkHolder(holder);
      checkTtl(ttlMs);
      const now = Date.now();
      run(() => {
        stmt.renew.run(now + ttlMs, holder, now);
        stmt.sweep.run(now - ttlMs);
      });
    },

    async release(ref: ProjectRef, documentId: string, holder: string): Promise<void> {
      checkRef(ref, 'ref');
      checkDocumentId(documentId);
      checkHolder(holder);
      run(() => stmt.release.run(ref.registry, ref.projectId, documentId, holder));
    },

    async close(): Promise<void> {
      closed = true;
    },
  };
}
