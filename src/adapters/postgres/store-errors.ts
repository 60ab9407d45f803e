import { DependencyError } from '../../errors.js';
import { migratePg, type PgClient, type PgMigration, type PgPool } from './database.js';

/** Socket-level codes of a server that cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** SQLSTATEs meaning "the server or database is not usable now" rather than "this statement is wrong". */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '3D000', '28000', '28P01']);
const NOT_RETRYABLE_SQLSTATES = new Set(['3D000', '28000', '28P01']);

/** Messages node-postgres uses for a lost or impossible connection (it sets no code on these). */
const CONNECTION_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|cannot use a pool after calling end|client has encountered a connection error|connection (is )?closed|not queryable/i;

function codeOf(err: unknown): string | undefined {
  if (err !== null && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}

function isUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (code !== undefined && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))) {
    return true;
  }
  // Node reports a refused dual-stack connect (localhost -> ::1 and 127.0.0.1) as an AggregateError.
  if (err instanceof AggregateError) return err.errors.some(isUnavailable);
  return err instanceof Error && CONNECTION_MESSAGES.test(err.message);
}

/**
 * Translates a PostgreSQL connection failure into a DependencyError naming the store, so the API answers 503
 * `unavailable`; statement errors (a bad input, a bug) pass through unchanged.
 */
export function pgFailure(store: string, err: unknown): unknown {
  if (err instanceof DependencyError) return err;
  if (!isUnavailable(err)) return err;
  const code = codeOf(err);
  const detail = err instanceof Error && err.message !== '' ? err.message : (code ?? 'connection failed');
  return new DependencyError(store, `${store} unavailable (PostgreSQL): ${detail}`, {
    cause: err,
    retryable: code === undefined || !NOT_RETRYABLE_SQLSTATES.has(code),
  });
}

export function closedStoreError(store: string): DependencyError {
  return new DependencyError(store, `${store} is closed`, { retryable: false });
}

/** Deadlock and serialisation failures: the transaction did nothing and can simply run again. */
function isRetryableTransaction(err: unknown): boolean {
  const code = codeOf(err);
  return code === '40P01' || code === '40001';
}

/**
 * Runs `fn` in a transaction on one pooled client, retrying a few times when PostgreSQL aborts it for a deadlock
 * between concurrent writers; connection failures become DependencyError.
 */
export async function pgTransaction<T>(pool: PgPool, store: string, fn: (client: PgClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let client: PgClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw pgFailure(store, err);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        // The connection itself failed; do not hand it back to the pool.
        broken = true;
      }
      if (attempt < 4 && isRetryableTransaction(err)) continue;
      throw pgFailure(store, err);
    } finally {
      client.release(broken);
    }
  }
}

/** One statement on any pooled connection, with connection failures translated. */
export async function pgQuery<R extends Record<string, unknown>>(
  pool: PgPool,
  store: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  try {
    const res = await pool.query<R>(text, values);
    return res.rows;
  } catch (err) {
    throw pgFailure(store, err);
  }
}

/** A PostgreSQL store's access to the shared pool: refused once the store is closed (the pool itself stays open). */
export interface PgStoreHandle {
  /** pgQuery on the shared pool; rejects with the closed-store error after close(). */
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  /** Throws the closed-store error after close(); for work that goes through pgTransaction. */
  assertOpen(): void;
  close(): void;
}

/** Applies the store's migrations (a connection failure is the store's DependencyError), then hands out its access. */
export async function openPgStore(
  pool: PgPool,
  store: string,
  namespace: string,
  migrations: readonly PgMigration[],
): Promise<PgStoreHandle> {
  try {
    await migratePg(pool, namespace, migrations);
  } catch (err) {
    throw pgFailure(store, err);
  }
  let closed = false;
  const assertOpen = (): void => {
    if (closed) throw closedStoreError(store);
  };
  return {
    query<R extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
      assertOpen();
      return pgQuery<R>(pool, store, text, values);
    },
    assertOpen,
    close() {
      // The pool is shared with the other stores; whoever created it ends it.
      closed = true;
    },
  };
}

/** PostgreSQL TEXT cannot hold U+0000; a title, failure reason or document id taken from a PDF or a URI may. */
export const pgText = <T extends string | null>(s: T): T => (s === null ? s : (s.replace(/\u0000/g, '') as T));
