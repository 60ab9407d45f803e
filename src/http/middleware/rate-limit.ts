import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../env.js';

export interface RateLimitOptions {
  /** Requests per minute per client; 0 turns the limiter off. */
  perMinute: number;
  /** Who a request counts against. @default the API key auth accepted, else the peer address */
  clientKey?: (c: Context<AppEnv>) => string;
  /** Paths never limited (health checks, so probes cannot be locked out). */
  isExempt?: (path: string) => boolean;
  /**
   * Which answers count: a request is counted when it arrives and handed back when its status does not count (the
   * failed-authentication limiter counts only 401s). @default every answer counts
   */
  counts?: (status: number) => boolean;
  /** What the 429 says is being limited. @default 'requests' */
  what?: string;
  /** Clock in ms, for tests. @default Date.now */
  now?: () => number;
  /** Clients tracked before idle ones are swept. @default 10000 */
  maxClients?: number;
}

/** Width of one counting slot of the sliding window. */
const SLOT_MS = 1000;
/**
 * Slots a request looks back over: the current one and the 60 before. A 60 s interval touches at most 61 slots, so
 * no 60 s interval ever holds more than the limit.
 */
const WINDOW_SLOTS = 61;

interface Window {
  /** Requests counted per slot, indexed by slot number modulo WINDOW_SLOTS. */
  counts: Uint32Array;
  /** The newest slot counted; older slots than `last - WINDOW_SLOTS + 1` hold stale counts until reset. */
  last: number;
}

/** The peer address of a request, or `unknown` for in-process requests (app.request in tests has no socket). */
export function clientAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

function defaultClientKey(c: Context<AppEnv>): string {
  // Only a key auth has accepted names the client: with auth off, an arbitrary X-API-Key must not buy a fresh window.
  const keyId = c.get('apiKeyId');
  if (keyId !== undefined) return `key:${keyId}`;
  return `addr:${clientAddress(c)}`;
}

/**
 * At most `perMinute` requests per client in any 60 seconds: a sliding window of one-second slots, so a client may
 * send its whole minute's allowance at once but never more than that in a minute (a token bucket would allow twice
 * the limit in the first minute: the full bucket, then its refill). Over the limit is a 429 `rate_limited` with
 * Retry-After (whole seconds until a request will be accepted). State is per process; several API processes each
 * allow the full rate.
 */
export function rateLimit(opts: RateLimitOptions): MiddlewareHandler<AppEnv> {
  if (!Number.isInteger(opts.perMinute) || opts.perMinute < 0) {
    throw new TypeError(`rateLimit: perMinute must be a non-negative integer (got ${String(opts.perMinute)})`);
  }
  const limit = opts.perMinute;
  const now = opts.now ?? Date.now;
  const clientKey = opts.clientKey ?? defaultClientKey;
  const isExempt = opts.isExempt ?? (() => false);
  const counts = opts.counts;
  const what = opts.what ?? 'requests';
  const maxClients = opts.maxClients ?? 10_000;
  const windows = new Map<string, Window>();

  /** Brings a window forward to `slot`, emptying the slots that left it. */
  const advance = (w: Window, slot: number): void => {
    const gap = slot - w.last;
    if (gap <= 0) return;
    if (gap >= WINDOW_SLOTS) w.counts.fill(0);
    else for (let s = w.last + 1; s <= slot; s++) w.counts[s % WINDOW_SLOTS] = 0;
    w.last = slot;
  };
  const total = (w: Window): number => w.counts.reduce((a, b) => a + b, 0);

  const sweep = (slot: number): void => {
    for (const [k, w] of windows) if (slot - w.last >= WINDOW_SLOTS) windows.delete(k);
  };

  return async function rateLimitMiddleware(c, next) {
    if (limit === 0 || isExempt(c.req.path)) return next();
    const t = now();
    const slot = Math.floor(t / SLOT_MS);
    const key = clientKey(c);
    let w = windows.get(key);
    if (w === undefined) {
      if (windows.size >= maxClients) sweep(slot);
      w = { counts: new Uint32Array(WINDOW_SLOTS), last: slot };
      windows.set(key, w);
    } else {
      advance(w, slot);
    }
    let used = total(w);
    if (used >= limit) {
      // The first moment enough of the oldest slots have left the window.
      let wait = 1;
      for (; wait <= WINDOW_SLOTS; wait++) {
        used -= w.counts[(slot + wait) % WINDOW_SLOTS] ?? 0;
        if (used < limit) break;
      }
      const retryAfter = Math.max(1, Math.ceil(((slot + wait) * SLOT_MS - t) / 1000));
      throw new AppError('rate_limited', `rate limit of ${limit} ${what} per minute exceeded; retry in ${retryAfter} s`, {
        headers: { 'Retry-After': String(retryAfter) },
        details: [{ message: `too many ${what}`, limitPerMinute: limit, retryAfterSeconds: retryAfter }],
      });
    }
    const index = slot % WINDOW_SLOTS;
    w.counts[index] = (w.counts[index] ?? 0) + 1;
    await next();
    // Counted on arrival, so concurrent requests cannot all slip under the limit; handed back when not counting.
    if (counts !== undefined && !counts(c.res.status)) {
      const win = w;
      if (win.last - slot < WINDOW_SLOTS && (win.counts[index] ?? 0) > 0) win.counts[index] = (win.counts[index] ?? 0) - 1;
    }
  };
}
