import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * API keys as both processes check them: the API's auth middleware (src/http/middleware/auth.ts) and the worker's
 * metrics listener (ingest/metrics.ts), so neither reaches into the other's layer.
 */

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
 * key was right or which key was close.
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
