import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../logger.js';
import type { AppEnv } from '../env.js';

/** An incoming id is kept only when it is short and harmless in a log line and a header. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestContextOptions {
  logger: Logger;
}

/**
 * Gives every request an id (the caller's X-Request-Id when it is safe, else a new UUID) and a child logger
 * carrying it; returns the id in X-Request-Id and logs one line per request when it ends. Registered first, so
 * error responses from any later stage carry the header too.
 */
export function requestContext(opts: RequestContextOptions): MiddlewareHandler<AppEnv> {
  const { logger } = opts;
  return async function requestContextMiddleware(c, next) {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming !== undefined && SAFE_ID.test(incoming) ? incoming : randomUUID();
    const log = logger.child({ requestId });
    c.set('requestId', requestId);
    c.set('logger', log);
    const started = performance.now();
    // Set before the response exists too: a HEAD response is rebuilt from the GET response's initial headers
    // (@hono/node-server's lightweight Response), so a header added only afterwards would be missing from it.
    c.header('X-Request-Id', requestId);
    await next();
    c.res.headers.set('X-Request-Id', requestId);
    const status = c.res.status;
    const line = { method: c.req.method, path: c.req.path, status, ms: Math.round((performance.now() - started) * 10) / 10 };
    if (status >= 500) log.error(line, 'request failed');
    else log.info(line, 'request');
  };
}
