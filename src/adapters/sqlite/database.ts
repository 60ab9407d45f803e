import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { Umzug, type UmzugStorage } from 'umzug';

export type SqliteDatabase = Database.Database;

export interface SqliteMigration {
  /** Unique within its namespace, ordered by name: `0001-records`. */
  name: string;
  up(db: SqliteDatabase): void;
}

export interface OpenSqliteOptions {
  /** Folder of the database file, created if missing. `:memory:` opens a private in-memory database. */
  dataDir: string;
  /** @default carbon-docs.sqlite */
  fileName?: string;
  readonly?: boolean;
}

/**
 * Opens the embedded database: one SQLite file holding records, document state and chunks, in WAL mode so the
 * API reads while a separate ingest process writes. sqlite-vec is loaded for vector distance functions.
 */
export function openSqlite(opts: OpenSqliteOptions): SqliteDatabase {
  const inMemory = opts.dataDir === ':memory:';
  let file = ':memory:';
  if (!inMemory) {
    file = path.join(opts.dataDir, opts.fileName ?? 'carbon-docs.sqlite');
    try {
      mkdirSync(opts.dataDir, { recursive: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'it is a file, not a folder' : (err as Error).message;
      throw new Error(`cannot use DATA_DIR ${path.resolve(opts.dataDir)} for the SQLite database: ${why}`, { cause: err });
    }
  }
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(file, { readonly: opts.readonly ?? false });
    // A writer in another process holds the lock for milliseconds; wait rather than fail with SQLITE_BUSY.
    db.pragma('busy_timeout = 10000');
    if (!inMemory) db.pragma('journal_mode = WAL');
  } catch (err) {
    db?.close();
    // Only SQLite's own errors are about the file (a missing native binding, say, is not).
    const code = (err as { code?: unknown }).code;
    if (inMemory || typeof code !== 'string' || !code.startsWith('SQLITE_')) throw err;
    // SQLite's own messages ("unable to open database file", "attempt to write a readonly database") name no path.
    throw new Error(
      `cannot open the SQLite database ${path.resolve(file)} (DATA_DIR ${path.resolve(opts.dataDir)}): ${(err as Error).message}; ` +
        'DATA_DIR must be a folder this process can write',
      { cause: err },
    );
  }
  // Reads through a memory map instead of a read() per page: exact vector search reads every row of the requested
  // projects, scattered over the file, and this made it faster on a large index (bench/README.md, vector-index).
  if (!inMemory) db.pragma('mmap_size = 1073741824');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  sqliteVec.load(db);
  return db;
}

/** Pending migration runs per database: by file for files (two handles on one file share it), else per handle. */
const migrationQueueByFile = new Map<string, Promise<unknown>>();
const migrationQueueByHandle = new WeakMap<SqliteDatabase, Promise<unknown>>();

/**
 * Applies the pending migrations of one namespace (each adapter keeps its own) with umzug. The whole run holds
 * SQLite's write lock (BEGIN IMMEDIATE), so an API and a worker starting together migrate once, not twice.
 */
export async function migrateSqlite(db: SqliteDatabase, namespace: string, migrations: readonly SqliteMigration[]): Promise<string[]> {
  // A run keeps its transaction open across awaits. A second run meanwhile on the same handle (stores created with
  // Promise.all) would fail on BEGIN and its ROLLBACK would undo the first; on another handle to the same file in
  // this process it would block the event loop in busy_timeout while the first cannot finish. So runs queue up.
  const file = db.memory ? undefined : path.resolve(db.name);
  const previous = (file === undefined ? migrationQueueByHandle.get(db) : migrationQueueByFile.get(file)) ?? Promise.resolve();
  const run = previous.then(() => migrateNow(db, namespace, migrations));
  const settled = run.catch(() => undefined);
  if (file === undefined) migrationQueueByHandle.set(db, settled);
  else {
    migrationQueueByFile.set(file, settled);
    // Forget the file once nothing is queued behind this run, so the map does not grow with every file opened.
    void settled.then(() => {
      if (migrationQueueByFile.get(file) === settled) migrationQueueByFile.delete(file);
    });
  }
  return run;
}

async function migrateNow(db: SqliteDatabase, namespace: string, migrations: readonly SqliteMigration[]): Promise<string[]> {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    namespace TEXT NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (namespace, name))`);
  const storage: UmzugStorage = {
    async logMigration({ name }) {
      db.prepare('INSERT INTO schema_migrations (namespace, name, applied_at) VALUES (?, ?, ?)').run(
        namespace,
        name,
        new Date().toISOString(),
      );
    },
    async unlogMigration({ name }) {
      db.prepare('DELETE FROM schema_migrations WHERE namespace = ? AND name = ?').run(namespace, name);
    },
    async executed() {
      const rows = db.prepare('SELECT name FROM schema_migrations WHERE namespace = ? ORDER BY name').all(namespace) as { name: string }[];
      return rows.map((r) => r.name);
    },
  };
  const umzug = new Umzug({
    migrations: migrations.map((m) => ({ name: m.name, up: async () => m.up(db) })),
    storage,
    logger: undefined,
  });
  db.exec('BEGIN IMMEDIATE');
  try {
    const applied = await umzug.up();
    db.exec('COMMIT');
    return applied.map((m) => m.name);
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
}
