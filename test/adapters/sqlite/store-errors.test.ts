import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { sqliteFailure } from '../../../src/adapters/sqlite/store-errors.js';
import { DependencyError } from '../../../src/errors.js';

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describe('SQLite failures the API must answer with 503', () => {
  let dataDir: string;
  let db: SqliteDatabase;
  let locker: SqliteDatabase;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'h2-errors-'));
    db = openSqlite({ dataDir });
    locker = openSqlite({ dataDir });
  });

  afterEach(() => {
    if (locker.inTransaction) locker.exec('ROLLBACK');
    locker.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a write lock held past busy_timeout (a stuck writer elsewhere) is a retryable DependencyError', async () => {
    const store = await createSqliteRecordStore({ db });
    db.pragma('busy_timeout = 50');
    locker.exec('BEGIN IMMEDIATE');
    const err = await rejection(store.upsert([{ ref: { registry: 'Verra', projectId: 1 }, format: 'registry-json', raw: { a: 1 } }]));
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as DependencyError).dependency).toBe('record store');
    expect((err as DependencyError).retryable).toBe(true);
    expect((err as DependencyError).message).toMatch(/record store unavailable \(SQLite SQLITE_BUSY\)/);
    // Readers are not blocked by a writer in WAL mode.
    await expect(store.count()).resolves.toBe(0);
    locker.exec('ROLLBACK');
    await expect(store.upsert([{ ref: { registry: 'Verra', projectId: 1 }, format: 'registry-json', raw: { a: 1 } }])).resolves.toEqual({
      inserted: 1,
      updated: 0,
      unchanged: 0,
    });
  });

  it('a statement error is not mistaken for an outage', () => {
    let caught: unknown;
    try {
      db.prepare('SELEC 1');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(sqliteFailure('record store', caught)).toBe(caught);
  });
});
