import { z } from 'zod';
import { DEFAULT_MAX_TOP_K, DEFAULT_TOP_K, TOP_K_CEILING } from './domain/search-limits.js';

/**
 * One configuration for the API and the worker, read from the environment once at start.
 * A bad value stops the process with a message naming the variable (see formatConfigError).
 */
const TRUE_WORDS: readonly string[] = ['true', '1', 'yes'];
const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no', '']).transform((v) => TRUE_WORDS.includes(v));

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const csv = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The embedder EMBEDDER names; src/deps.ts builds it. */
export type EmbedderSpec =
  | { kind: 'use' }
  /** multilingual-e5-small, 4-bit, in-process (adapters/embedders/e5.ts). */
  | { kind: 'e5' }
  | { kind: 'onnx'; modelId: string }
  /** `dimensions` asks text-embedding-3 models for shorter vectors, and matches the id the index records. */
  | { kind: 'openai'; model: string; dimensions?: number };

/** The chat model LLM names (with OPENAI_MODEL); `extractive` is none. src/deps.ts builds it. */
export type LlmSpec = { kind: 'extractive' } | { kind: 'openai'; model: string } | { kind: 'local'; modelPath: string };

/** A Hugging Face model id (`owner/name` or `name`), which also keeps `..` out of the model's path under MODELS_DIR. */
const HF_MODEL_ID = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/;

/**
 * Parses EMBEDDER: `use` | `e5` | `onnx:<model id>` | `openai:<model>` | `openai:<model>@<dimensions>`. The only parser of
 * the setting; a bad value becomes an issue naming what was expected.
 */
function embedderSpec(value: string, ctx: z.RefinementCtx): EmbedderSpec {
  const s = value.trim();
  const fail = (message: string): EmbedderSpec => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (s === 'use') return { kind: 'use' };
  if (s === 'e5') return { kind: 'e5' };
  if (s.startsWith('onnx:')) {
    const modelId = s.slice('onnx:'.length).trim();
    if (modelId.length === 0) return fail('expected onnx:<model id>, e.g. onnx:Xenova/all-MiniLM-L6-v2');
    if (!HF_MODEL_ID.test(modelId) || modelId.includes('..')) {
      return fail('expected onnx:<Hugging Face model id>, e.g. onnx:Xenova/all-MiniLM-L6-v2');
    }
    return { kind: 'onnx', modelId };
  }
  if (s.startsWith('openai:')) {
    const m = /^(.+?)(?:@(\d+))?$/.exec(s.slice('openai:'.length).trim());
    const model = m?.[1]?.trim() ?? '';
    if (model.length === 0) return fail('expected openai:<model>, e.g. openai:text-embedding-3-small');
    if (m?.[2] === undefined) return { kind: 'openai', model };
    const dimensions = Number(m[2]);
    if (!(Number.isInteger(dimensions) && dimensions > 0 && dimensions <= 65_536)) {
      return fail('dimensions after @ must be an integer from 1 to 65536');
    }
    return { kind: 'openai', model, dimensions };
  }
  return fail('expected "use", "e5", "onnx:<model id>" or "openai:<model>"');
}

const embedderSetting = z.string().default('use').transform(embedderSpec);

/** LLM (already checked against its pattern) as a spec; null for `openai` without OPENAI_MODEL. */
function llmSpec(llm: string, openaiModel: string | undefined): LlmSpec | null {
  if (llm === 'openai') return openaiModel ? { kind: 'openai', model: openaiModel } : null;
  if (llm.startsWith('local:')) return { kind: 'local', modelPath: llm.slice('local:'.length) };
  return { kind: 'extractive' };
}

/** One EMBEDDER value on its own (benchmarks comparing embedders); throws ConfigError as loadConfig would. */
export function parseEmbedderSetting(value: string): EmbedderSpec {
  const result = embedderSetting.safeParse(value);
  if (result.success) return result.data;
  throw new ConfigError(`EMBEDDER: ${result.error.issues.map((i) => i.message).join('; ')} (got ${JSON.stringify(value)})`);
}

/** EMBEDDER as written, e.g. for a log line or a hint naming the setting. */
export function formatEmbedderSpec(spec: EmbedderSpec): string {
  switch (spec.kind) {
    case 'use':
      return 'use';
    case 'e5':
      return 'e5';
    case 'onnx':
      return `onnx:${spec.modelId}`;
    case 'openai':
      return spec.dimensions === undefined ? `openai:${spec.model}` : `openai:${spec.model}@${spec.dimensions}`;
  }
}

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    /** @default 3000 */
    PORT: int(0, 65535).default(3000),
    /** Interface to listen on. @default 127.0.0.1 (docker-compose sets 0.0.0.0) */
    HOST: z.string().min(1).default('127.0.0.1'),
    /** Address clients use to reach the API; demo document links and the OpenAPI `servers` use it. @default http://localhost:<PORT> */
    PUBLIC_BASE_URL: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Embedded storage folder (SQLite database). @default ./data */
    DATA_DIR: z.string().min(1).default('./data'),
    /** PostgreSQL for records and document state; the embedded SQLite store is used when unset. */
    DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
    /** Qdrant for vectors; the embedded index is used when unset. */
    QDRANT_URL: optionalString.pipe(z.url().optional()),
    QDRANT_API_KEY: optionalString,
    /** @default chunks */
    QDRANT_COLLECTION: z.string().min(1).default('chunks'),
    /** Comma-separated API keys; auth is off when empty (CONTRACT 4). */
    API_KEYS: csv,
    /** @default 100 */
    MAX_BATCH_PROJECTS: int(1, 10_000).default(100),
    /** @default 1048576 (1 MiB) */
    MAX_BODY_BYTES: int(1024, 100 * 1024 * 1024).default(1024 * 1024),
    /** With API_KEYS set: requests without a valid key per minute per address before it gets 429s; 0 turns it off. @default 60 */
    AUTH_FAILURES_PER_MINUTE: int(0, 1_000_000).default(60),
    /** Requests per minute per client (API key or address); 0 turns rate limiting off. @default 0 */
    RATE_LIMIT_PER_MINUTE: int(0, 1_000_000).default(0),
    /** Serve GET /metrics without an API key (a Prometheus scraper on a private network). @default false */
    METRICS_PUBLIC: bool.default(false),
    /**
     * Open HTTP connections at most; keep it below the open-file limit. At the cap a new connection replaces the
     * oldest one still sending its request (docs/security.md). @default 512
     */
    MAX_CONNECTIONS: int(1, 1_000_000).default(512),
    /**
     * Share of MAX_CONNECTIONS one client address (an IPv6 /64) may hold; 1 turns the per-address limit off (behind a
     * reverse proxy every connection comes from the proxy's address). @default 0.1 (51 of 512)
     */
    MAX_CONNECTIONS_PER_ADDRESS_SHARE: z.coerce.number().gt(0).max(1).default(0.1),
    /** Time a client has to send a request's headers. @default 10000 */
    HEADERS_TIMEOUT_MS: int(100, 600_000).default(10_000),
    /** Time a client has to send a whole request, body included (at least HEADERS_TIMEOUT_MS). @default 30000 */
    REQUEST_TIMEOUT_MS: int(100, 3_600_000).default(30_000),
    /** Idle time after a response before a keep-alive connection is closed. @default 5000 */
    KEEP_ALIVE_TIMEOUT_MS: int(100, 600_000).default(5_000),
    /** After SIGTERM/SIGINT, time the requests already sent get to be answered before their connections are cut. @default 10000 */
    SHUTDOWN_GRACE_MS: int(0, 600_000).default(10_000),
    /** Load the demo records into an empty store on start. @default true, false when NODE_ENV=production */
    DEMO_DATA: bool.optional(),
    /**
     * Ingest: embed each chunk's sentences too, so a passage is matched by its best sentence as well (several times
     * the texts to embed at ingest, and the vectors a search reads). `auto`: on for `onnx:` sentence-transformers
     * models, where retrieval measured better; off for `use` (no gain, slower ingest) and `openai:` (paid calls
     * multiplied); numbers in bench/README.md "Measurements cited by code". Documents already indexed follow at the next
     * `--reindex`. @default auto
     */
    SENTENCE_VECTORS: z.enum(['auto', 'true', 'false', '1', '0', 'yes', 'no']).default('auto'),
    /** Max citations a search may ask for. @default 50 */
    SEARCH_MAX_TOP_K: int(1, TOP_K_CEILING).default(DEFAULT_MAX_TOP_K),
    /** @default 8 */
    SEARCH_DEFAULT_TOP_K: int(1, TOP_K_CEILING).default(DEFAULT_TOP_K),
    /**
     * Embedded index: the largest candidate set whose vectors a search reads while its query is being embedded, to
     * score them in memory; 0 scores every search in SQL. @default 5000 (PRELOAD_CHUNKS)
     */
    VECTOR_PRELOAD_CHUNKS: int(0, 1_000_000).default(5000),

    /**
     * `use` (Universal Sentence Encoder lite, default), `onnx:<model id>`, `openai:<model>` or
     * `openai:<model>@<dimensions>`; parsed into an EmbedderSpec here, once.
     */
    EMBEDDER: embedderSetting,
    /** Folder of local models (ONNX sentence-transformers in transformers.js layout, GGUF files). @default ./models */
    MODELS_DIR: z.string().min(1).default('./models'),
    /**
     * Threads a local ONNX model (`EMBEDDER=onnx:...`) computes one batch with; 0: onnxruntime's default, one per core.
     * Several worker processes on one machine: cores / processes (bench/README.md "threads"). USE lite computes in
     * JavaScript on one thread whatever this says. @default 0
     */
    EMBED_THREADS: int(0, 256).default(0),
    /** Allow downloading models from the Hugging Face hub when a model is not in MODELS_DIR. @default false */
    ALLOW_REMOTE_MODELS: bool.default(false),

    /** `extractive` (default), `openai`, or `local:<path to .gguf>`. Defaults to `openai` when OPENAI_MODEL is set. */
    LLM: optionalString.pipe(
      z
        .string()
        .regex(/^(extractive|openai|local:.+)$/, 'expected "extractive", "openai" or "local:<path>"')
        .optional(),
    ),
    OPENAI_BASE_URL: optionalString.pipe(z.url().optional()),
    OPENAI_API_KEY: optionalString,
    OPENAI_MODEL: optionalString,
    /** `EMBEDDER=openai:...`: embedding requests in flight at most, per process. @default 4 */
    OPENAI_EMBED_MAX_IN_FLIGHT: int(1, 256).default(4),
    /** `EMBEDDER=openai:...`: texts per embedding request at most. @default 128 */
    OPENAI_EMBED_BATCH_SIZE: int(1, 2048).default(128),
    /** @default 30000 */
    LLM_TIMEOUT_MS: int(100, 600_000).default(30_000),
    /**
     * `none` (default); `llm`: rerank fused candidates with the configured LLM; `http`: with a cross-encoder behind a
     * rerank server (RERANKER_URL, RERANKER_API).
     */
    RERANKER: z.enum(['none', 'llm', 'http']).default('none'),
    /** `RERANKER=http`: the rerank endpoint, e.g. `http://reranker/rerank` (TEI) or `https://api.cohere.com/v2/rerank`. */
    RERANKER_URL: optionalString.pipe(z.url().optional()),
    /** `RERANKER=http`: `tei` (Text Embeddings Inference) or `cohere` (Cohere, Jina, vLLM, llama-server). @default tei */
    RERANKER_API: z.enum(['tei', 'cohere']).default('tei'),
    /** `RERANKER=http`: model name sent (required by the `cohere` format). */
    RERANKER_MODEL: optionalString,
    /** `RERANKER=http`: sent as a Bearer token when set. */
    RERANKER_API_KEY: optionalString,
    /** `RERANKER=http`: fused candidates sent to the reranker per search. @default 20 */
    RERANKER_WINDOW: int(2, 200).default(20),
    /** `RERANKER=http`: time for one rerank call; past it the fused order is kept. @default 10000 */
    RERANKER_TIMEOUT_MS: int(100, 600_000).default(10_000),
    /**
     * What picks the answering sentences (docs/answers.md): `extractive` (default, BM25 over the passages' sentences,
     * no model); `http`: a cross-encoder behind the rerank server of RERANKER_URL / RERANKER_API scores them; `llm`:
     * the configured chat model (LLM) names them.
     */
    READER: z.enum(['extractive', 'http', 'llm']).default('extractive'),
    /** `READER=http`: the best sentence's relevance (0-1) at which a question is taken as answered. @default 0.5 */
    READER_MIN_RELEVANCE: z.coerce.number().min(0).max(1).default(0.5),

    /** Extra hosts documents may be downloaded from (`host` or `host:port`); loopback/private only when named. */
    DOWNLOAD_ALLOW_HOSTS: csv,
    /** @default 52428800 (50 MB) */
    DOWNLOAD_MAX_BYTES: int(1, 2 ** 40).default(50 * 1024 * 1024),
    /** @default 4 */
    DOWNLOAD_CONCURRENCY: int(1, 64).default(4),
    /** @default 2 */
    DOWNLOAD_PER_HOST_CONCURRENCY: int(1, 64).default(2),
    /** @default 60000 */
    DOWNLOAD_TIMEOUT_MS: int(100, 3_600_000).default(60_000),
    /** @default 3 */
    DOWNLOAD_RETRIES: int(0, 10).default(3),

    /** Time for extracting one PDF's text, in a child process that is killed past it. @default 120000 */
    EXTRACT_TIMEOUT_MS: int(100, 3_600_000).default(120_000),
    /** JavaScript heap of one extraction process, in MB (its --max-old-space-size; pdf.js needs some of it). @default 1024 */
    EXTRACT_MAX_MEMORY_MB: int(256, 65_536).default(1024),
    /** Most pages of a PDF; one with more fails before any page is read. @default 3000 */
    EXTRACT_MAX_PAGES: int(1, 10_000_000).default(3000),
    /** Most characters of text extracted from one PDF. @default 10000000 */
    EXTRACT_MAX_TEXT_CHARS: int(1000, 2 ** 31).default(10_000_000),
    /**
     * Most characters of text on one PDF page; a page with more fails the PDF (a page whose content inflates to copies
     * of a line). The corpus's largest page holds 4,300. @default 100000
     */
    EXTRACT_MAX_PAGE_CHARS: int(1000, 2 ** 31).default(100_000),
    /**
     * Pages of one PDF read by OCR at most (pages without a usable text layer; docs/ocr-and-tables.md); 0 turns OCR
     * off, and a PDF without any text is then `needs_ocr`. @default 200
     */
    OCR_MAX_PAGES: int(0, 100_000).default(200),
    /** Resolution a page is rendered at for OCR, in dots per inch. @default 150 */
    OCR_DPI: int(50, 600).default(150),
    /** An OCR'd line with a lower mean word confidence (0-100) is dropped: photographs, stamps. @default 40 */
    OCR_MIN_CONFIDENCE: int(0, 100).default(40),
    /**
     * CPU time for reading one page by OCR (CPU, so a busy machine does not cut pages short); a page that takes
     * more is left without text. A PDF's EXTRACT_TIMEOUT_MS grows by ten times this for each page it reads by OCR.
     * @default 30000
     */
    OCR_PAGE_CPU_MS: int(1000, 3_600_000).default(30_000),

    /** Verra registry API base. @default https://registry.verra.org */
    VERRA_BASE_URL: z.url().default('https://registry.verra.org'),

    /**
     * Scale-out ingestion (DATABASE_URL set): seconds after a worker's last heartbeat (every quarter lease) before
     * its job goes to another worker: how long a dead worker's document waits. @default 60
     */
    INGEST_JOB_LEASE_SECONDS: int(4, 86_400).default(60),
    /** Attempts after the first for a document whose failure may pass (a timeout, a 5xx, a worker that died). @default 3 */
    INGEST_RETRY_LIMIT: int(0, 20).default(3),
    /** Seconds before a document's first retry; doubled for each next one. @default 30 */
    INGEST_RETRY_DELAY_SECONDS: int(0, 86_400).default(30),
    /** How often an idle worker asks the queue for a job, in seconds. @default 2 */
    INGEST_POLL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
    /** Documents one worker process runs at once (downloaded and extracted side by side, embedded one at a time). @default 2 */
    WORKER_CONCURRENCY: int(1, 64).default(2),
    /** Port of the worker's GET /metrics listener; unset: no listener (0: any free port, logged). */
    METRICS_PORT: optionalString
      .transform((v) => (v === undefined ? undefined : Number(v)))
      .pipe(z.number().int().min(0).max(65535).optional()),
  })
  .superRefine((c, ctx) => {
    if (c.HEADERS_TIMEOUT_MS > c.REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: 'must not exceed REQUEST_TIMEOUT_MS' });
    }
    if (c.SEARCH_DEFAULT_TOP_K > c.SEARCH_MAX_TOP_K) {
      ctx.addIssue({ code: 'custom', path: ['SEARCH_DEFAULT_TOP_K'], message: 'must not exceed SEARCH_MAX_TOP_K' });
    }
  })
  .transform((c, ctx) => {
    const llm = llmSpec(c.LLM ?? (c.OPENAI_MODEL ? 'openai' : 'extractive'), c.OPENAI_MODEL);
    if (llm === null) ctx.addIssue({ code: 'custom', path: ['OPENAI_MODEL'], message: 'required when LLM=openai' });
    if (c.RERANKER === 'llm' && llm?.kind === 'extractive') {
      ctx.addIssue({
        code: 'custom',
        path: ['RERANKER'],
        message: 'RERANKER=llm needs a chat model: set LLM=openai (with OPENAI_MODEL) or LLM=local:<path to .gguf>',
      });
    }
    if (c.READER === 'llm' && llm?.kind === 'extractive') {
      ctx.addIssue({
        code: 'custom',
        path: ['READER'],
        message: 'READER=llm needs a chat model: set LLM=openai (with OPENAI_MODEL) or LLM=local:<path to .gguf>',
      });
    }
    if (c.READER === 'http' && !c.RERANKER_URL) {
      ctx.addIssue({
        code: 'custom',
        path: ['RERANKER_URL'],
        message: 'required when READER=http (the rerank server that scores sentences)',
      });
    }
    if (c.RERANKER === 'http' && !c.RERANKER_URL) {
      ctx.addIssue({ code: 'custom', path: ['RERANKER_URL'], message: 'required when RERANKER=http' });
    }
    if (c.RERANKER === 'http' && c.RERANKER_API === 'cohere' && !c.RERANKER_MODEL) {
      ctx.addIssue({ code: 'custom', path: ['RERANKER_MODEL'], message: 'required when RERANKER_API=cohere' });
    }
    return {
      ...c,
      LLM: llm ?? { kind: 'extractive' as const },
      DEMO_DATA: c.DEMO_DATA ?? c.NODE_ENV !== 'production',
      // The reasons for this default are on the setting above.
      SENTENCE_VECTORS: c.SENTENCE_VECTORS === 'auto' ? c.EMBEDDER.kind === 'onnx' : TRUE_WORDS.includes(c.SENTENCE_VECTORS),
    };
  });

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError naming every bad variable and the value it had. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = configSchema.safeParse(env);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => {
    const name = String(i.path[0] ?? '(config)');
    const value = env[name];
    return `  ${name}: ${i.message}${value === undefined ? '' : ` (got ${JSON.stringify(value)})`}`;
  });
  throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
}
