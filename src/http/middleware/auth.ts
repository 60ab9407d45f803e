import type { MiddlewareHandler } from 'hono';
import { apiKeyMatcher, presentedApiKey } from '../../api-keys.js';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../env.js';

export interface ApiKeyAuthOptions {
  /** Accepted keys; an empty list turns authentication off (CONTRACT 4). */
  keys: readonly string[];
  /** Paths served without a key (health checks). */
  isPublic?: (path: string) => boolean;
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
