import pRetry from 'p-retry';
import { defined } from './defined.js';

/**
 * The one retry policy of the service's outgoing HTTP (document downloads, registry API calls): a bounded number of
 * attempts for failures a retry can help with, exponential backoff with jitter, and a server's Retry-After obeyed
 * (or, when it asks for longer than the caller will wait, the failure given up at once).
 */

/**
 * A configured endpoint of the service's outgoing HTTP as a URL, or an Error naming it (`what`, e.g. "Verra client:
 * baseUrl") when it is not an http(s) URL.
 */
export function httpUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch (err) {
    throw new Error(`${what} is not a URL (got ${JSON.stringify(value)})`, { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${what} must be http(s) (got ${JSON.stringify(value)})`);
  }
  return url;
}

/** Statuses worth asking again: request time-out, too early, rate limited, and the transient server errors. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/** Network error codes a new connection may not meet again. */
export const RETRYABLE_NET_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

export interface RetryPolicy {
  /** Attempts after the first one, for retryable failures only. */
  retries: number;
  /** First backoff delay; doubles each retry, with jitter. */
  retryBaseDelayMs: number;
  /** Cap on a backoff delay. */
  retryMaxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the failure is thrown instead. */
  maxRetryAfterMs: number;
}

/** What the policy needs to know of a failure. */
export interface RetryVerdict {
  retryable: boolean;
  /** The delay the server asked for (parseRetryAfter), or null. */
  retryAfterMs: number | null;
}

export interface RetryOptions {
  /** Reads a failure; one that is not retryable is thrown at once. */
  classify(err: Error): RetryVerdict;
  signal?: AbortSignal | undefined;
  /** Called before each wait (for logging). */
  onRetry?: ((info: { attempt: number; delayMs: number; error: Error }) => void) | undefined;
  /** The error to throw when the server asks to wait longer than maxRetryAfterMs. @default the failure itself */
  retryAfterTooLong?: ((error: Error, retryAfterMs: number) => Error) | undefined;
}

/**
 * A client's policy: the settings it was given over its own defaults, checked once at its construction (RangeError
 * naming the bad one).
 */
export function retryPolicy(given: Partial<RetryPolicy>, defaults: RetryPolicy, owner: string): RetryPolicy {
  const policy: RetryPolicy = {
    retries: given.retries ?? defaults.retries,
    retryBaseDelayMs: given.retryBaseDelayMs ?? defaults.retryBaseDelayMs,
    retryMaxDelayMs: given.retryMaxDelayMs ?? defaults.retryMaxDelayMs,
    maxRetryAfterMs: given.maxRetryAfterMs ?? defaults.maxRetryAfterMs,
  };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${owner} ${name} must be an integer >= 0, got ${value}`);
  }
  return policy;
}

/**
 * The wait before attempt `attemptNumber + 1`: the server's Retry-After when it gave one, else
 * base * 2^(attempt - 1) capped, half of it fixed and half random, so many workers do not retry in lockstep.
 */
export function retryDelay(policy: RetryPolicy, attemptNumber: number, retryAfterMs: number | null): number {
  if (retryAfterMs !== null) return retryAfterMs;
  const exp = Math.min(policy.retryMaxDelayMs, policy.retryBaseDelayMs * 2 ** (attemptNumber - 1));
  return Math.round(exp / 2 + (Math.random() * exp) / 2);
}

/** Runs `fn` until it succeeds, fails for good, or the attempts run out; rejects with the last failure. */
export function withRetry<T>(fn: (attemptNumber: number) => Promise<T>, policy: RetryPolicy, opts: RetryOptions): Promise<T> {
  const { signal } = opts;
  return pRetry(fn, {
    retries: policy.retries,
    // The wait is computed in onFailedAttempt (it needs Retry-After), so p-retry itself must not wait.
    minTimeout: 0,
    maxTimeout: 0,
    factor: 1,
    randomize: false,
    ...defined({ signal }),
    shouldRetry: (err) => !signal?.aborted && opts.classify(err).retryable,
    onFailedAttempt: async (err) => {
      if (err.retriesLeft <= 0 || signal?.aborted) return;
      const verdict = opts.classify(err);
      if (!verdict.retryable) return;
      if (verdict.retryAfterMs !== null && verdict.retryAfterMs > policy.maxRetryAfterMs) {
        throw opts.retryAfterTooLong?.(err, verdict.retryAfterMs) ?? err;
      }
      const delayMs = retryDelay(policy, err.attemptNumber, verdict.retryAfterMs);
      opts.onRetry?.({ attempt: err.attemptNumber, delayMs, error: err });
      await sleep(delayMs, signal);
    },
  });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
