import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../errors.js';
import { quoted } from '../echo.js';
import type { AppEnv } from '../env.js';

/**
 * application/json or application/<x>+json, with parameters such as `; charset=utf-8`. The same pattern as
 * @hono/zod-openapi's own media-type gate, which runs after this, so the two never disagree.
 */
const JSON_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/** Refuses a body not declared as JSON with 415 `unsupported_media_type`, before any of it is read. */
export function requireJsonContentType(): MiddlewareHandler<AppEnv> {
  return async function requireJsonContentTypeMiddleware(c, next) {
    const type = c.req.header('content-type');
    if (type === undefined || !JSON_TYPE.test(type.trim())) {
      throw new AppError(
        'unsupported_media_type',
        `the request body must be JSON sent with "Content-Type: application/json" ` +
          `(got ${type === undefined ? 'no Content-Type' : quoted(type)})`,
      );
    }
    return next();
  };
}
