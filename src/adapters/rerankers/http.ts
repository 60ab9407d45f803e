import { z } from 'zod';
import { parseRetryAfter } from '../../domain/retry-after.js';
import { httpUrl, isRetryableStatus, retryPolicy, withRetry } from '../../http-retry.js';
import type { Logger } from '../../logger.js';
import type { Reranker } from '../../ports/reranker.js';
import type { ScoredChunk } from '../../ports/vector-index.js';

/**
 * The two wire formats of the rerank servers in use:
 * - `tei`: Hugging Face Text Embeddings Inference serving a cross-encoder (`POST /rerank`, `{query, texts}` ->
 *   `[{index, score}]`), e.g. `BAAI/bge-reranker-base` in the docker-compose `reranker` profile;
 * - `cohere`: Cohere's `/v2/rerank` shape (`{model, query, documents, top_n}` -> `{results: [{index,
 *   relevance_score}]}`), which Jina, Voyage-compatible gateways, vLLM and llama.cpp's `llama-server --reranking`
 *   (`/v1/rerank`) also speak.
 */
export type RerankApi = 'tei' | 'cohere';

export interface HttpRerankerOptions {
  /** The rerank endpoint itself, e.g. `http://reranker/rerank` or `https://api.cohere.com/v2/rerank`. */
  url: string;
  api: RerankApi;
  /** Sent as `model` (the cohere format needs it; TEI serves one model and ignores it). */
  model?: string | undefined;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string | undefined;
  logger: Logger;
  /** Candidates sent to the model; the rest keep their fused order after them. @default 20 */
  window?: number;
  /** Characters of each candidate sent (cross-encoders read 512 tokens at most). @default 2000 */
  passageChars?: number;
  /** Time for one rerank call (a search waits for it). @default 10000 */
  timeoutMs?: number;
  /** Attempts after the first, for a 429/5xx or a dropped connection (not for a time-out). @default 1 */
  retries?: number;
  fetch?: typeof globalThis.fetch;
}

const TeiReply = z.array(z.object({ index: z.number().int().nonnegative(), score: z.number() }));
const CohereReply = z.object({
  results: z.array(z.object({ index: z.number().int().nonnegative(), relevance_score: z.number() })),
});

/** A failed rerank call: retryable for rate limits, server errors and the network. */
class RerankError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'RerankError';
  }
}

/** The model's scores as relevance in [0, 1]: as given when they are probabilities, else through a logistic. */
export function asRelevance(scores: readonly number[]): number[] {
  const probabilities = scores.every((s) => s >= 0 && s <= 1);
  return scores.map((s) => (probabilities ? s : 1 / (1 + Math.exp(-s))));
}

/** A rerank server's client: relevance in [0, 1] of each text to a query (NaN for a text the reply left out). */
export interface RerankClient {
  readonly id: string;
  score(query: string, texts: string[]): Promise<number[]>;
}

/**
 * The rerank server's client shared by the reranker (passages) and the reader (sentences): the wire format, the
 * time-out, and the retry policy of 429/5xx and dropped connections. Errors are thrown; callers decide what a failure
 * costs.
 */
export function createRerankClient(opts: Omit<HttpRerankerOptions, 'window' | 'passageChars'>): RerankClient {
  const endpoint = httpUrl(opts.url, 'rerank server: url').toString();
  if (opts.api === 'cohere' && !opts.model) throw new Error('rerank server: the cohere format needs a model name');
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const retry = retryPolicy(
    { retries: opts.retries ?? 1 },
    { retries: 1, retryBaseDelayMs: 200, retryMaxDelayMs: 1000, maxRetryAfterMs: 2000 },
    'rerank server',
  );
  const doFetch = opts.fetch ?? globalThis.fetch;
  const log = opts.logger.child({ component: 'rerank-client' });

  function body(query: string, texts: string[]): unknown {
    return opts.api === 'tei'
      ? { query, texts, truncate: true, raw_scores: false, ...(opts.model ? { model: opts.model } : {}) }
      : { model: opts.model, query, documents: texts, top_n: texts.length };
  }

  function scoresOf(reply: unknown, count: number): number[] {
    const pairs =
      opts.api === 'tei'
        ? TeiReply.parse(reply).map((r) => [r.index, r.score] as const)
        : CohereReply.parse(reply).results.map((r) => [r.index, r.relevance_score] as const);
    const out = new Array<number>(count).fill(Number.NaN);
    for (const [index, score] of pairs) if (index < count && Number.isFinite(score)) out[index] = score;
    return out;
  }

  async function attempt(query: string, texts: string[]): Promise<number[]> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}),
        },
        body: JSON.stringify(body(query, texts)),
        signal: timeout,
      });
    } catch (err) {
      // A search has waited out the time allowed already: it is not made to wait for it twice.
      const what = timeout.aborted ? `no answer within ${timeoutMs} ms` : `network error: ${(err as Error).message}`;
      throw new RerankError(`rerank server ${what}`, !timeout.aborted);
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      throw new RerankError(
        `rerank server answered ${res.status}: ${text.slice(0, 200)}`,
        isRetryableStatus(res.status),
        parseRetryAfter(res.headers.get('retry-after')),
      );
    }
    let reply: unknown;
    try {
      reply = JSON.parse(text);
    } catch {
      throw new RerankError(`rerank server answered with a body that is not JSON: ${text.slice(0, 200)}`, false);
    }
    try {
      return scoresOf(reply, texts.length);
    } catch {
      throw new RerankError(`rerank server answered in another format than ${opts.api}: ${text.slice(0, 200)}`, false);
    }
  }

  return {
    id: `http:${opts.model ?? opts.api}`,
    async score(query, texts) {
      const raw = await withRetry(() => attempt(query, texts), retry, {
        classify: (err) =>
          err instanceof RerankError
            ? { retryable: err.retryable, retryAfterMs: err.retryAfterMs }
            : { retryable: false, retryAfterMs: null },
        onRetry: ({ attempt: n, delayMs, error }) => log.warn({ attempt: n, waitMs: delayMs }, error.message),
      });
      const finite = raw.filter((x) => Number.isFinite(x));
      const relevance = asRelevance(finite);
      let i = 0;
      return raw.map((x) => (Number.isFinite(x) ? (relevance[i++] ?? Number.NaN) : Number.NaN));
    },
  };
}

/**
 * Cross-encoder reranking by a rerank server (RERANKER=http): it reads the question with each of the top `window`
 * fused candidates and scores their relevance, which a bi-encoder and BM25 only approximate. The candidates it
 * scored come first, by its score, which becomes their `score`; the rest follow in fused order, their score capped
 * below the last scored one, so citations stay ordered by relevance. A failed call, a timeout or a reply of another
 * shape keeps the fused order and is logged: reranking improves a search, it does not fail one.
 */
export function createHttpReranker(opts: HttpRerankerOptions): Reranker {
  const window = opts.window ?? 20;
  if (!Number.isInteger(window) || window < 2) throw new RangeError(`rerank server: window must be an integer >= 2, got ${window}`);
  const passageChars = opts.passageChars ?? 2000;
  const client = createRerankClient(opts);
  const log = opts.logger.child({ component: 'reranker' });
  return {
    id: client.id,
    window,
    async rerank(query: string, candidates: ScoredChunk[], topK: number): Promise<ScoredChunk[]> {
      const shown = candidates.slice(0, window);
      if (shown.length <= 1) return candidates.slice(0, topK);
      let relevance: number[];
      try {
        relevance = await client.score(
          query,
          shown.map((c) => c.text.slice(0, passageChars)),
        );
      } catch (err) {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'reranking failed; fused order kept');
        return candidates.slice(0, topK);
      }
      const scored = shown.map((c, i) => ({ c, s: relevance[i] ?? Number.NaN })).filter((x) => Number.isFinite(x.s));
      if (scored.length === 0) {
        log.warn('rerank server scored no candidate; fused order kept');
        return candidates.slice(0, topK);
      }
      const ranked = scored.map((x) => ({ ...x.c, score: x.s })).sort((a, b) => b.score - a.score);
      const floor = ranked[ranked.length - 1]?.score ?? 0;
      const kept = new Set(scored.map((x) => x.c));
      const rest = candidates.filter((c) => !kept.has(c)).map((c) => ({ ...c, score: Math.min(c.score, floor) }));
      return [...ranked, ...rest].slice(0, topK);
    },
  };
}
