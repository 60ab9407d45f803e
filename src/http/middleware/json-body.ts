import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../types.js';
import { limitBody } from './body-limit.js';
import { requireJsonContentType } from './content-type.js';

export interface JsonBodyOptions {
  maxBytes: number;
}

/** 400 `invalid_request` for a body that does not parse. Hono caches the result, so validators do not parse again. */
function parseJsonBody(): MiddlewareHandler<AppEnv> {
  return async function parseJsonBodyMiddleware(c, next) {
    try {
      await c.req.json();
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new AppError('invalid_request', `the request body is not valid JSON: ${why}`, {
        details: [{ path: '', message: 'not valid JSON' }],
      });
    }
    return next();
  };
}

/**
 * The guards of every JSON endpoint, in order: content type (415), size (413), JSON syntax (400). Given to a route
 * as its `middleware`, so they run only on paths that exist (an unknown path stays a 404).
 */
export function jsonBody(opts: JsonBodyOptions): MiddlewareHandler<AppEnv>[] {
  return [requireJsonContentType(), limitBody({ maxBytes: opts.maxBytes }), parseJsonBody()];
}
