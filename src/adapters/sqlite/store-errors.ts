import Database from 'better-sqlite3';
import { DependencyError } from '../../errors.js';

/** SQLite result codes that mean the database file cannot be used right now, as opposed to a bug in a query. */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL|NOMEM|PERM|AUTH)/;
/** Of those, the ones that go away by themselves (another process holding the lock, a transient I/O error). */
const TRANSIENT = /^SQLITE_(BUSY|LOCKED|IOERR|PROTOCOL|NOMEM)/;

/**
 * Translates a failure of the embedded database into a DependencyError naming the store, so the API answers 503
 * `unavailable`; anything else (a bad input, a bug) passes through unchanged.
 */
export function sqliteFailure(store: string, err: unknown): unknown {
  if (err instanceof DependencyError) return err;
  if (err instanceof Database.SqliteError && UNAVAILABLE.test(err.code)) {
    return new DependencyError(store, `${store} unavailable (SQLite ${err.code}): ${err.message}`, {
      cause: err,
      retryable: TRANSIENT.test(err.code),
    });
  }
  // better-sqlite3 throws a plain TypeError once the shared handle has been closed.
  if (err instanceof TypeError && /database connection is not open/i.test(err.message)) {
    return new DependencyError(store, `${store} unavailable: the SQLite database is closed`, { cause: err, retryable: false });
  }
  return err;
}

/** Runs a synchronous database call, translating failures with sqliteFailure. */
export function guardSqlite<T>(store: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw sqliteFailure(store, err);
  }
}

export function closedStoreError(store: string): DependencyError {
  return new DependencyError(store, `${store} is closed`, { retryable: false });
}
