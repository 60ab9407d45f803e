import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../errors.js';
import type { AppEnv } from '../env.js';
import { requireJsonContentType } from './content-type.js';

export interface JsonBodyOptions {
  maxBytes: number;
}

/**
 * Deepest nesting of objects and arrays a request body may have (the body object itself is level 1; the API's own
 * bodies need 3). Deeper bodies are refused before they are parsed: a deep value costs the stack of every recursive
 * reader after the parser (JSON.stringify overflows at a few thousand levels).
 */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder();

/**
 * Whether a JSON text nests objects and arrays deeper than `max`, by one pass over its bytes: brackets inside strings
 * are text (UTF-8 multi-byte sequences never hold an ASCII byte, so bytes can be scanned as they are).
 */
export function jsonDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c)
        i++; // backslash: the next byte is escaped
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > max) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}

function tooLarge(maxBytes: number): AppError {
  return new AppError('payload_too_large', `the request body is larger than the limit of ${maxBytes} bytes`, {
    details: [{ message: 'body too large', maxBytes }],
  });
}

/**
 * The body of a Node request, straight from the IncomingMessage. It has usually arrived with the headers, so this
 * takes a tick, where reading `c.req.raw` would first build a WHATWG Request and a web stream around the message
 * (on @hono/node-server, a few hundred microseconds before a search can start embedding its query). Past `maxBytes`
 * it rejects without buffering more and discards the rest.
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        incoming.resume();
        reject(tooLarge(maxBytes));
        return;
      }
      parts.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size));
    };
    const onError = (err: Error): void => {
      done();
      reject(err);
    };
    // A client that goes away mid-body may close the message without an error event.
    const onClose = (): void => onError(new Error('the connection closed before the body ended'));
    const done = (): void => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/** The body of a WHATWG Request (other runtimes, `app.request` in tests), with the same limit. */
async function readRequest(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    parts.push(value);
  }
  return Buffer.concat(parts, size);
}

/**
 * Size (413), nesting depth and JSON syntax (400) of the body, read and parsed once: a Content-Length over the limit
 * is refused before anything is read, a chunked body while it is read, a body nested deeper than MAX_JSON_DEPTH before
 * it is parsed. The parsed value is the request's `jsonBody` variable and what `c.req.json()` returns (Hono's own
 * `json()` would serialise its cached value and parse it again), so the route's validator reads this very value.
 */
function readJsonBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  return async function readJsonBodyMiddleware(c, next) {
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > maxBytes) throw tooLarge(maxBytes);
    const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
    let bytes: Uint8Array;
    try {
      bytes = incoming ? await readIncoming(incoming, maxBytes) : await readRequest(c.req.raw, maxBytes);
    } catch (err) {
      if (err instanceof AppError) throw err;
      // The client broke off the body: its fault, not the server's (a 400, not a 500 logged as unexpected).
      throw new AppError('invalid_request', `the request body could not be read: ${err instanceof Error ? err.message : String(err)}`, {
        details: [{ path: '', message: 'body not received completely' }],
      });
    }
    if (jsonDeeperThan(bytes, MAX_JSON_DEPTH)) {
      throw new AppError('invalid_request', `the request body nests objects and arrays deeper than the limit of ${MAX_JSON_DEPTH} levels`, {
        details: [{ path: '', message: 'nested too deeply', maxDepth: MAX_JSON_DEPTH }],
      });
    }
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(bytes));
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new AppError('invalid_request', `the request body is not valid JSON: ${why}`, {
        details: [{ path: '', message: 'not valid JSON' }],
      });
    }
    const parsed = Promise.resolve(value);
    c.req.bodyCache.json = parsed;
    c.req.json = <T>() => parsed as Promise<T>;
    c.set('jsonBody', value);
    return next();
  };
}

/**
 * The guards of every JSON endpoint, in order: content type (415), size (413), JSON syntax (400). Given to a route
 * as its `middleware`, so they run only on paths that exist (an unknown path stays a 404).
 */
export function jsonBody(opts: JsonBodyOptions): MiddlewareHandler<AppEnv>[] {
  if (!Number.isInteger(opts.maxBytes) || opts.maxBytes < 1) {
    throw new TypeError(`jsonBody: maxBytes must be a positive integer (got ${String(opts.maxBytes)})`);
  }
  return [requireJsonContentType(), readJsonBody(opts.maxBytes)];
}
