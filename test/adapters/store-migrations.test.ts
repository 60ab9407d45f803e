import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPgDocumentStateStore } from '../../src/adapters/postgres/document-state-store.js';
import { createPgDocumentTextStore } from '../../src/adapters/postgres/document-text-store.js';
import { createPgRecordStore } from '../../src/adapters/postgres/record-store.js';
import type { PgPool } from '../../src/adapters/postgres/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { pgAvailability, pgBackend, sqliteBackend, type StoreBackend } from '../contract/store-backends.js';
import { describeWithService } from '../support/services.js';

/** Every store of one backend, created at once, as a composition root using Promise.all would. */
interface AllStores {
  migrations(): Promise<string[]>;
  close(): Promise<void>;
}

const sqliteAll = sqliteBackend(async (db: SqliteDatabase): Promise<AllStores> => {
  const stores = await Promise.all([
    createSqliteRecordStore({ db }),
    createSqliteDocumentStateStore({ db }),
    createSqliteDocumentTextStore({ db }),
  ]);
  return {
    async migrations() {
      const rows = db.prepare('SELECT namespace, name FROM schema_migrations ORDER BY namespace, name').all() as {
        namespace: string;
        name: string;
      }[];
      return rows.map((r) => `${r.namespace}/${r.name}`);
    },
    async close() {
      await Promise.all(stores.map((s) => s.close()));
    },
  };
});

const pgAll = (pool: PgPool) =>
  Promise.all([createPgRecordStore({ pool }), createPgDocumentStateStore({ pool }), createPgDocumentTextStore({ pool })]).then(
    (stores): AllStores => ({
      async migrations() {
        const res = await pool.query<{ namespace: string; name: string }>(
          'SELECT namespace, name FROM schema_migrations ORDER BY namespace, name',
        );
        return res.rows.map((r) => `${r.namespace}/${r.name}`);
      },
      async close() {
        await Promise.all(stores.map((s) => s.close()));
      },
    }),
  );

const EXPECTED = [
  'document-state/0001-document-states',
  'document-state/0002-ocr-pages',
  'document-text/0001-document-texts',
  'records/0001-projects',
  'records/0002-project-catalogue',
];

function startupSuite(makeBackend: () => Promise<StoreBackend<AllStores>>): void {
  let backend: StoreBackend<AllStores>;
  beforeEach(async () => {
    backend = await makeBackend();
  });
  afterEach(async () => {
    await backend.dispose();
  });

  it('creates every store at once on one connection, each migrating its own namespace once', async () => {
    const all = await backend.open();
    expect((await all.migrations()).filter((m) => !m.startsWith('vectors/'))).toEqual(EXPECTED);
    await all.close();
  });

  it('two "processes" starting together on an empty backend both come up, and migrate once', async () => {
    const [a, b] = await Promise.all([backend.open(), backend.open()]);
    expect((await a.migrations()).filter((m) => !m.startsWith('vectors/'))).toEqual(EXPECTED);
    expect(await b.migrations()).toEqual(await a.migrations());
    await Promise.all([a.close(), b.close()]);
  });
}

describe('store start-up on SQLite', () => startupSuite(sqliteAll));

describeWithService('store start-up on PostgreSQL', pgAvailability, () => startupSuite(pgBackend(pgAll)));
