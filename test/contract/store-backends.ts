import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createPgPool, type PgPool } from '../../src/adapters/postgres/database.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { postgresUrl } from '../support/services.js';

/**
 * Real backends for the store contract suites. Each test gets an empty backend; `open()` may be called more than
 * once to get a second store on the same data (as a second process would).
 */
export interface StoreBackend<S> {
  open(): Promise<S>;
  /** Takes the backend away from every store opened so far (closes the SQLite handles / ends the pools). */
  breakConnection(): Promise<void>;
  /** Opens a store against a backend that cannot be reached; the contract expects a DependencyError. */
  openUnreachable(): Promise<S>;
  dispose(): Promise<void>;
}

export type MakeBackend<S> = () => Promise<StoreBackend<S>>;

/** A fresh DATA_DIR per test, with a real SQLite file in WAL mode; each `open()` is its own connection. */
export function sqliteBackend<S>(factory: (db: SqliteDatabase) => Promise<S>): MakeBackend<S> {
  return async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'h2-store-'));
    const handles: SqliteDatabase[] = [];
    return {
      async open() {
        const db = openSqlite({ dataDir });
        handles.push(db);
        return factory(db);
      },
      async breakConnection() {
        for (const db of handles) if (db.open) db.close();
      },
      async openUnreachable() {
        const db = openSqlite({ dataDir: ':memory:' });
        db.close();
        return factory(db);
      },
      async dispose() {
        for (const db of handles) if (db.open) db.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  };
}

export const pgAvailability = {
  available: postgresUrl !== undefined,
  why: 'DATABASE_URL (or TEST_DATABASE_URL) is not set',
};

function urlWithDatabase(url: string, database: string, searchPath?: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  if (searchPath !== undefined) u.searchParams.set('options', `-c search_path=${searchPath}`);
  return u.toString();
}

/**
 * A fresh PostgreSQL database for the calling test file (created in beforeAll, dropped in afterAll, so parallel
 * suites never share tables) and a fresh schema per test inside it. Call inside a describe block.
 */
export function pgBackend<S>(factory: (pool: PgPool) => Promise<S>): MakeBackend<S> {
  const database = `h2_test_${randomBytes(6).toString('hex')}`;
  let admin: PgPool | undefined;
  let testDb: PgPool | undefined;

  beforeAll(async () => {
    if (postgresUrl === undefined) throw new Error('DATABASE_URL is not set');
    admin = createPgPool(postgresUrl, { max: 1 });
    await admin.query(`CREATE DATABASE ${database}`);
    testDb = createPgPool(urlWithDatabase(postgresUrl, database), { max: 2 });
  });

  afterAll(async () => {
    await testDb?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin?.end();
  });

  return async () => {
    if (postgresUrl === undefined || testDb === undefined) throw new Error('the test database was not created');
    const url = postgresUrl;
    const db = testDb;
    const schema = `t_${randomBytes(6).toString('hex')}`;
    await db.query(`CREATE SCHEMA ${schema}`);
    const pools: PgPool[] = [];
    const end = async (): Promise<void> => {
      for (const pool of pools.splice(0)) await pool.end();
    };
    return {
      async open() {
        const pool = createPgPool(urlWithDatabase(url, database, schema), { max: 4 });
        pools.push(pool);
        return factory(pool);
      },
      breakConnection: end,
      async openUnreachable() {
        // Port 1 on loopback: nothing listens there, so the connect is refused at once.
        const pool = createPgPool(`postgres://postgres@127.0.0.1:1/${database}`, { max: 1 });
        try {
          return await factory(pool);
        } finally {
          await pool.end();
        }
      },
      async dispose() {
        await end();
        await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      },
    };
  };
}

/** Lets the clock move so a write that should bump `updatedAt` can be told apart from one that should not. */
export const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
