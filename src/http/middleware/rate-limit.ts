import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../types.js';

export interface RateLimitOptions {
  /** Requests per minute per client; 0 turns the limiter off. */
  perMinute: number;
  /** Who a request counts against. @default the API key auth accepted, else the peer address */
  clientKey?: (c: Context<AppEnv>) => string;
  /** Paths never limited (health checks, so probes cannot be locked out). */
  isExempt?: (path: string) => boolean;
  /** Clock in ms, for tests. @default Date.now */
  now?: () => number;
  /** Clients tracked before idle ones are swept. @default 10000 */
  maxClients?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

function defaultClientKey(c: Context<AppEnv>): string {
  // Only a key auth has accepted names the client: with auth off, an arbitrary X-API-Key must not buy a fresh bucket.
  const keyId = c.get('apiKeyId');
  if (keyId !== undefined) return `key:${keyId}`;
  try {
    return `addr:${getConnInfo(c).remote.address ?? 'unknown'}`;
  } catch {
    // In-process requests (app.request in tests) have no socket.
    return 'addr:unknown';
  }
}

/**
 * Token bucket per client: `perMinute` requests in a burst, refilled continuously at perMinute/60 per second.
 * Over the limit is a 429 `rate_limited` with Retry-After (whole seconds until a request will be accepted).
 * State is per process; several API processes each allow the full rate.
 */
export function rateLimit(opts: RateLimitOptions): MiddlewareHandler<AppEnv> {
  if (!Number.isInteger(opts.perMinute) || opts.perMinute < 0) {
    throw new TypeError(`rateLimit: perMinute must be a non-negative integer (got ${String(opts.perMinute)})`);
  }
  const capacity = opts.perMinute;
  const perMs = capacity / 60_000;
  const now = opts.now ?? Date.now;
  const clientKey = opts.clientKey ?? defaultClientKey;
  const isExempt = opts.isExempt ?? (() => false);
  const maxClients = opts.maxClients ?? 10_000;
  const buckets = new Map<string, Bucket>();

  const sweep = (t: number): void => {
    // A bucket that has refilled completely is the same as no bucket.
    for (const [k, b] of buckets) if (b.tokens + (t - b.at) * perMs >= capacity) buckets.delete(k);
  };

  return async function rateLimitMiddleware(c, next) {
    if (capacity === 0 || isExempt(c.req.path)) return next();
    const t = now();
    const key = clientKey(c);
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      if (buckets.size >= maxClients) sweep(t);
      bucket = { tokens: capacity, at: t };
      buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(capacity, bucket.tokens + (t - bucket.at) * perMs);
      bucket.at = t;
    }
    if (bucket.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new AppError('rate_limited', `rate limit of ${capacity} requests per minute exceeded; retry in ${retryAfter} s`, {
        headers: { 'Retry-After': String(retryAfter) },
        details: [{ message: 'too many requests', limitPerMinute: capacity, retryAfterSeconds: retryAfter }],
      });
    }
    bucket.tokens -= 1;
    return next();
  };
}
