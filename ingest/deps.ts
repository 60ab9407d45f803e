import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import { createEmbedder } from '../src/adapters/embedders/index.js';
import { createPgPool, type PgPool } from '../src/adapters/postgres/database.js';
import { createPgDocumentStateStore } from '../src/adapters/postgres/document-state-store.js';
import { createPgDocumentTextStore } from '../src/adapters/postgres/document-text-store.js';
import { createPgRecordStore } from '../src/adapters/postgres/record-store.js';
import { createQdrantVectorIndex } from '../src/adapters/qdrant/vector-index.js';
import { openSqlite, type SqliteDatabase } from '../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../src/adapters/sqlite/vector-index.js';
import { createUrlPolicy } from '../src/domain/url-policy.js';
import type { DocumentStateStore } from '../src/ports/document-state-store.js';
import type { DocumentTextStore } from '../src/ports/document-text-store.js';
import type { Embedder } from '../src/ports/embedder.js';
import type { RecordStore } from '../src/ports/record-store.js';
import type { VectorIndex } from '../src/ports/vector-index.js';
import type { DownloaderOptions } from './stages/download.js';
import type { IngestDeps } from './types.js';

/**
 * The adapter choices, in one visible place: PostgreSQL (DATABASE_URL) or the embedded SQLite file for records,
 * document state and text; Qdrant (QDRANT_URL) or the SQLite index for chunks; the configured embedder.
 * The API's src/deps.ts makes the same choices through the store half (buildStores) of this module.
 */

export interface Stores {
  records: RecordStore;
  states: DocumentStateStore;
  texts: DocumentTextStore;
  index: VectorIndex;
  /** Which backends were chosen, for the startup log line. */
  backends: { records: 'postgres' | 'sqlite'; index: 'qdrant' | 'sqlite' };
  close(): Promise<void>;
}

export interface BuildStoresOptions {
  /** Let the vector index drop chunks built by another embedder (the worker's --reindex). @default false */
  reindex?: boolean;
}

/** Opens the stores the configuration names; on a failure, closes what was opened and rethrows. */
export async function buildStores(config: Config, opts: BuildStoresOptions = {}): Promise<Stores> {
  const closers: (() => Promise<void> | void)[] = [];
  const closeAll = async (): Promise<void> => {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => undefined);
    closers.length = 0;
  };
  try {
    let db: SqliteDatabase | null = null;
    const sqlite = (): SqliteDatabase => {
      if (!db) {
        const opened = openSqlite({ dataDir: config.DATA_DIR });
        closers.push(() => {
          opened.close();
        });
        db = opened;
      }
      return db;
    };
    let pool: PgPool | null = null;
    if (config.DATABASE_URL) {
      const p = createPgPool(config.DATABASE_URL);
      closers.push(() => p.end());
      pool = p;
    }

    let records: RecordStore;
    let states: DocumentStateStore;
    let texts: DocumentTextStore;
    if (pool) {
      records = await createPgRecordStore({ pool });
      closers.push(() => records.close());
      states = await createPgDocumentStateStore({ pool });
      closers.push(() => states.close());
      texts = await createPgDocumentTextStore({ pool });
      closers.push(() => texts.close());
    } else {
      const d = sqlite();
      records = await createSqliteRecordStore({ db: d });
      closers.push(() => records.close());
      states = await createSqliteDocumentStateStore({ db: d });
      closers.push(() => states.close());
      texts = await createSqliteDocumentTextStore({ db: d });
      closers.push(() => texts.close());
    }

    const index: VectorIndex = config.QDRANT_URL
      ? await createQdrantVectorIndex({
          url: config.QDRANT_URL,
          collection: config.QDRANT_COLLECTION,
          ...(config.QDRANT_API_KEY ? { apiKey: config.QDRANT_API_KEY } : {}),
          reindex: opts.reindex ?? false,
        })
      : await createSqliteVectorIndex({ db: sqlite(), reindex: opts.reindex ?? false });
    closers.push(() => index.close());

    return {
      records,
      states,
      texts,
      index,
      backends: { records: pool ? 'postgres' : 'sqlite', index: config.QDRANT_URL ? 'qdrant' : 'sqlite' },
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

export function buildEmbedder(config: Config, logger: Logger): Promise<Embedder> {
  return createEmbedder(config.EMBEDDER, {
    modelsDir: config.MODELS_DIR,
    allowRemoteModels: config.ALLOW_REMOTE_MODELS,
    openai: {
      ...(config.OPENAI_BASE_URL ? { baseURL: config.OPENAI_BASE_URL } : {}),
      ...(config.OPENAI_API_KEY ? { apiKey: config.OPENAI_API_KEY } : {}),
    },
    logger,
  });
}

export interface BuiltIngestDeps extends IngestDeps {
  backends: Stores['backends'];
  close(): Promise<void>;
}

/** Stores plus embedder: everything runIngest needs. */
export async function buildIngestDeps(config: Config, logger: Logger, opts: BuildStoresOptions = {}): Promise<BuiltIngestDeps> {
  const stores = await buildStores(config, opts);
  let embedder: Embedder;
  try {
    embedder = await buildEmbedder(config, logger);
  } catch (err) {
    await stores.close();
    throw err;
  }
  return {
    records: stores.records,
    states: stores.states,
    texts: stores.texts,
    index: stores.index,
    embedder,
    backends: stores.backends,
    async close() {
      await embedder.close().catch(() => undefined);
      await stores.close();
    },
  };
}

/** Download limits and allow-list from the configuration (DOWNLOAD_*). */
export function downloaderOptionsFromConfig(config: Config): DownloaderOptions {
  return {
    policy: createUrlPolicy(config.DOWNLOAD_ALLOW_HOSTS),
    maxBytes: config.DOWNLOAD_MAX_BYTES,
    concurrency: config.DOWNLOAD_CONCURRENCY,
    perHostConcurrency: config.DOWNLOAD_PER_HOST_CONCURRENCY,
    timeoutMs: config.DOWNLOAD_TIMEOUT_MS,
    retries: config.DOWNLOAD_RETRIES,
  };
}
