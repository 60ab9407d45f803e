import pg from 'pg';
import { Umzug, type UmzugStorage } from 'umzug';

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

export interface PgMigration {
  /** Unique within its namespace, ordered by name: `0001-records`. */
  name: string;
  up(client: PgClient): Promise<void>;
}

export function createPgPool(connectionString: string, opts: { max?: number; statementTimeoutMs?: number } = {}): PgPool {
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5_000,
    // A statement stuck behind a lock or a sick server fails (503 to the client) instead of holding a request forever.
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
  });
  // An idle client losing its connection must not crash the process; the next query reports the failure.
  pool.on('error', () => undefined);
  return pool;
}

/** Stable 32-bit key for pg_advisory_lock from a namespace name. */
function lockKey(namespace: string): number {
  let h = 0;
  for (const ch of `carbon-docs:${namespace}`) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
  return h;
}

/**
 * Applies pending migrations of one namespace with umzug, each in its own transaction, under an advisory lock so
 * several API and worker processes starting together migrate once.
 */
export async function migratePg(pool: PgPool, namespace: string, migrations: readonly PgMigration[]): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lockKey(namespace)]);
    // CREATE TABLE IF NOT EXISTS races with itself in another session (duplicate pg_type key), and the lock above
    // is per namespace: processes migrating different namespaces at once take this shared lock to create the table.
    await client.query('SELECT pg_advisory_lock($1)', [lockKey('(schema_migrations table)')]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        namespace TEXT NOT NULL, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (namespace, name))`);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [lockKey('(schema_migrations table)')]);
    }
    const storage: UmzugStorage = {
      async logMigration({ name }) {
        await client.query('INSERT INTO schema_migrations (namespace, name) VALUES ($1, $2)', [namespace, name]);
      },
      async unlogMigration({ name }) {
        await client.query('DELETE FROM schema_migrations WHERE namespace = $1 AND name = $2', [namespace, name]);
      },
      async executed() {
        const res = await client.query<{ name: string }>('SELECT name FROM schema_migrations WHERE namespace = $1 ORDER BY name', [
          namespace,
        ]);
        return res.rows.map((r) => r.name);
      },
    };
    const umzug = new Umzug({
      migrations: migrations.map((m) => ({
        name: m.name,
        up: async () => {
          await client.query('BEGIN');
          try {
            await m.up(client);
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK');
            throw err;
          }
        },
      })),
      storage,
      logger: undefined,
    });
    const applied = await umzug.up();
    return applied.map((m) => m.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lockKey(namespace)]).catch(() => undefined);
    client.release();
  }
}
