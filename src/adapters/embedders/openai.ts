import OpenAI, { APIConnectionError, APIError } from 'openai';
import PQueue from 'p-queue';
import { z } from 'zod';
import { estimateTokens } from '../../domain/chunking.js';
import { DependencyError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../ports/embedder.js';
import { assertTexts, toUnitVector } from './common.js';

export interface OpenAIEmbedderOptions {
  /** Model name sent to the server, e.g. `text-embedding-3-small`. */
  model: string;
  /** Any OpenAI-compatible server. @default https://api.openai.com/v1 */
  baseURL?: string;
  /** @default a placeholder, for compatible servers that need none */
  apiKey?: string;
  /**
   * Requested output size (sent as `dimensions`, which text-embedding-3 models honour). When unset, one probe
   * request at start learns the model's size, so `id` and `dimensions` are known before anything is indexed.
   */
  dimensions?: number;
  /** @default 128 (OpenAI accepts 2048 inputs per request; compatible servers often far fewer) */
  maxBatchSize?: number;
  /**
   * Estimated tokens of one request's inputs at most (OpenAI refuses more than 300,000 per request); a batch closes at
   * whichever of this and maxBatchSize it reaches first. @default 250000
   */
  maxBatchTokens?: number;
  /**
   * Requests in flight at most, over every embed() call of this embedder (the worker's batches and the API's queries
   * share it), so a large document cannot flood a rate-limited endpoint. @default 4
   */
  maxInFlight?: number;
  /** @default 8191 for OpenAI's text-embedding models, else 512 */
  maxInputTokens?: number;
  /**
   * Retries of 408/409/429/5xx and connection errors, by the SDK. It waits as a 429's `Retry-After` (seconds or an
   * HTTP date) or `retry-after-ms` says, else 0.5 s doubling to 8 s with jitter. @default 3
   */
  maxRetries?: number;
  /** Per request. @default 60000 */
  timeoutMs?: number;
  /** For tests and proxies. @default globalThis.fetch */
  fetch?: typeof fetch;
  logger?: Logger;
}

const DEPENDENCY = 'openai-embeddings';

// Only the fields we use; anything else a compatible server adds is ignored.
const responseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })).min(1),
});

function isOpenAIModel(model: string): boolean {
  return /^text-embedding-(3-small|3-large|ada-002)$/.test(model);
}

/** Turns SDK failures into DependencyError that says whether another attempt later can help. */
function toDependencyError(err: unknown, where: string): Error {
  if (err instanceof DependencyError) return err;
  if (err instanceof APIConnectionError) {
    return new DependencyError(DEPENDENCY, `cannot reach ${where}: ${err.message}`, { retryable: true, cause: err });
  }
  if (err instanceof APIError) {
    const status = err.status;
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    return new DependencyError(DEPENDENCY, `${where} answered ${status ?? 'an error'}: ${err.message}`, {
      retryable,
      cause: err,
    });
  }
  // A body that is not JSON surfaces from the SDK as a SyntaxError: the server is not speaking the API.
  const message = err instanceof Error ? err.message : String(err);
  return new DependencyError(DEPENDENCY, `malformed response from ${where}: ${message}`, {
    retryable: false,
    cause: err,
  });
}

/**
 * Embeddings from the OpenAI API or any server that speaks POST /v1/embeddings (vLLM, llama.cpp, Ollama, LiteLLM).
 * Vectors are re-normalised because compatible servers do not all return unit vectors.
 */
export async function createOpenAIEmbedder(opts: OpenAIEmbedderOptions): Promise<Embedder> {
  const model = opts.model.trim();
  if (model.length === 0) throw new TypeError('openai embedder: model must not be empty');
  if (opts.dimensions !== undefined && !(Number.isInteger(opts.dimensions) && opts.dimensions > 0)) {
    throw new TypeError(`openai embedder: dimensions must be a positive integer, got ${opts.dimensions}`);
  }
  const maxBatchSize = opts.maxBatchSize ?? 128;
  const maxBatchTokens = opts.maxBatchTokens ?? 250_000;
  const maxInFlight = opts.maxInFlight ?? 4;
  for (const [name, v] of [
    ['maxBatchSize', maxBatchSize],
    ['maxBatchTokens', maxBatchTokens],
    ['maxInFlight', maxInFlight],
  ] as const) {
    if (!(Number.isInteger(v) && v > 0)) throw new TypeError(`openai embedder: ${name} must be a positive integer, got ${v}`);
  }
  const inFlight = new PQueue({ concurrency: maxInFlight });

  const client = new OpenAI({
    // The SDK refuses to start without a key; local compatible servers usually ignore it. Both values are passed
    // explicitly so the SDK does not fall back to reading the environment behind the config's back.
    apiKey: opts.apiKey ?? 'unused',
    baseURL: opts.baseURL ?? 'https://api.openai.com/v1',
    maxRetries: opts.maxRetries ?? 3,
    timeout: opts.timeoutMs ?? 60_000,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const where = `${client.baseURL.replace(/\/$/, '')}/embeddings`;

  async function request(texts: string[], dims: number | undefined): Promise<Float32Array[]> {
    let raw: unknown;
    try {
      raw = await client.embeddings.create({
        model,
        input: texts,
        // Float keeps us compatible with servers that do not implement base64.
        encoding_format: 'float',
        ...(opts.dimensions !== undefined ? { dimensions: opts.dimensions } : {}),
      });
    } catch (err) {
      throw toDependencyError(err, where);
    }
    const parsed = responseSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new DependencyError(
        DEPENDENCY,
        `malformed response from ${where}: ${issue ? `${issue.path.join('.') || '(body)'}: ${issue.message}` : 'unexpected shape'}`,
        { retryable: false },
      );
    }
    const byIndex = new Map(parsed.data.data.map((d) => [d.index, d.embedding]));
    return texts.map((_, i) => {
      const v = byIndex.get(i);
      if (!v) {
        throw new DependencyError(DEPENDENCY, `malformed response from ${where}: no embedding for input ${i}`, {
          retryable: false,
        });
      }
      if (dims !== undefined && v.length !== dims) {
        throw new DependencyError(
          DEPENDENCY,
          `malformed response from ${where}: embedding ${i} has ${v.length} dimensions, expected ${dims}`,
          { retryable: false },
        );
      }
      try {
        return toUnitVector(v, `embedding ${i} from ${where}`);
      } catch (err) {
        throw new DependencyError(DEPENDENCY, `malformed response from ${where}: ${(err as Error).message}`, {
          retryable: false,
        });
      }
    });
  }

  let dimensions = opts.dimensions;
  if (dimensions === undefined) {
    const [probe] = await request(['dimension probe'], undefined);
    if (!probe) throw new DependencyError(DEPENDENCY, `malformed response from ${where}: empty`, { retryable: false });
    dimensions = probe.length;
    opts.logger?.info({ model, dimensions, baseURL: client.baseURL }, 'openai embedder: learned dimensions');
  }
  const dims = dimensions;
  let closed = false;

  return {
    id: `openai:${model}@${dims}`,
    dimensions: dims,
    maxBatchSize,
    maxInputTokens: opts.maxInputTokens ?? (isOpenAIModel(model) ? 8191 : 512),
    async embed(texts) {
      if (closed) throw new Error('openai embedder: closed');
      assertTexts(texts);
      if (texts.length === 0) return [];
      const parts = await Promise.all(
        tokenBatches(texts, maxBatchSize, maxBatchTokens).map((batch) =>
          inFlight.add(() => request(batch, dims), { throwOnTimeout: true }),
        ),
      );
      return parts.flat();
    },
    async close() {
      closed = true;
    },
  };
}

/**
 * Consecutive slices of `texts` with at most `maxTexts` texts and at most `maxTokens` estimated tokens each (a text
 * over the budget on its own goes alone: the server judges it).
 */
export function tokenBatches(texts: readonly string[], maxTexts: number, maxTokens: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let tokens = 0;
  for (const t of texts) {
    const n = estimateTokens(t);
    if (current.length > 0 && (current.length >= maxTexts || tokens + n > maxTokens)) {
      out.push(current);
      current = [];
      tokens = 0;
    }
    current.push(t);
    tokens += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}
