import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../types.js';

export interface LimitBodyOptions {
  maxBytes: number;
}

/**
 * 413 `payload_too_large` for a body over `maxBytes`: at once from Content-Length, or while reading a chunked body
 * (never buffering more than the limit).
 */
export function limitBody(opts: LimitBodyOptions): MiddlewareHandler<AppEnv> {
  if (!Number.isInteger(opts.maxBytes) || opts.maxBytes < 1) {
    throw new TypeError(`limitBody: maxBytes must be a positive integer (got ${String(opts.maxBytes)})`);
  }
  const { maxBytes } = opts;
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new AppError('payload_too_large', `the request body is larger than the limit of ${maxBytes} bytes`, {
        details: [{ message: 'body too large', maxBytes }],
      });
    },
  });
}
