import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../types.js';

export interface ApiKeyAuthOptions {
  /** Accepted keys; an empty list turns authentication off (CONTRACT 4). */
  keys: readonly string[];
  /** Paths served without a key (health checks). */
  isPublic?: (path: string) => boolean;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Strips HTTP's optional whitespace (space, tab) only: any other difference, a non-breaking space included, is part of the key. */
const trimOws = (s: string): string => s.replace(/^[ \t]+|[ \t]+$/g, '');

/** The key from `Authorization: Bearer <key>` or `X-API-Key: <key>`, or undefined. Keys are taken exactly as sent. */
export function presentedApiKey(header: (name: string) => string | undefined): string | undefined {
  const auth = header('authorization');
  if (auth !== undefined) {
    const m = /^Bearer[ \t]+(.+)$/i.exec(trimOws(auth));
    if (m?.[1] !== undefined) return m[1];
  }
  const key = header('x-api-key');
  return key === undefined || trimOws(key) === '' ? undefined : trimOws(key);
}

/**
 * Matches a presented key against the configured ones: the index of the key it matches, or -1. Keys are compared as
 * SHA-256 digests with timingSafeEqual, and every key is compared, so the time taken says nothing about how much of a
 * key was right or which key was close. The worker's metrics listener uses it too.
 */
export function apiKeyMatcher(keys: readonly string[]): { enabled: boolean; match(presented: string): number } {
  const digests = keys.filter((k) => k.length > 0).map(digest);
  return {
    enabled: digests.length > 0,
    match(presented) {
      const candidate = digest(presented);
      let matched = -1;
      digests.forEach((d, i) => {
        if (timingSafeEqual(candidate, d)) matched = i;
      });
      return matched;
    },
  };
}

/** Requires one of the configured API keys (apiKeyMatcher). */
export function apiKeyAuth(opts: ApiKeyAuthOptions): MiddlewareHandler<AppEnv> {
  const keys = apiKeyMatcher(opts.keys);
  const isPublic = opts.isPublic ?? (() => false);
  return async function apiKeyAuthMiddleware(c, next) {
    if (!keys.enabled || isPublic(c.req.path)) return next();
    const presented = presentedApiKey((name) => c.req.header(name));
    const headers = { 'WWW-Authenticate': 'Bearer' };
    if (presented === undefined) {
      throw new AppError('unauthorized', 'an API key is required: send "Authorization: Bearer <key>" or "X-API-Key: <key>"', { headers });
    }
    const matched = keys.match(presented);
    if (matched < 0) throw new AppError('unauthorized', 'the API key is not valid', { headers });
    // The rate limiter counts per accepted key; an id rather than the key keeps the key out of logs and memory.
    c.set('apiKeyId', `key${matched + 1}`);
    return next();
  };
}
