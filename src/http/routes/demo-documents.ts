import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { AppError } from '../../errors.js';
import { quoted } from '../echo.js';
import type { AppEnv } from '../env.js';

export const DEMO_DOCUMENTS_PREFIX = '/demo/documents/';

/** A plain file name: no separators, no leading dot, so `..` and absolute paths cannot be expressed. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*\.pdf$/;

/**
 * GET /demo/documents/<name>.pdf: the demo records' documents, read-only from `dir`, so the demo works with no
 * network. Only plain names ending in .pdf directly inside `dir` are served; anything else is a 404.
 */
export function registerDemoDocuments(app: OpenAPIHono<AppEnv>, dir: string): void {
  const root = path.resolve(dir);
  app.get(`${DEMO_DOCUMENTS_PREFIX}:name`, async (c) => {
    const name = c.req.param('name');
    const notFound = () => new AppError('not_found', `no demo document ${quoted(name)}`);
    if (!SAFE_NAME.test(name)) throw notFound();
    const file = path.join(root, name);
    if (path.dirname(file) !== root) throw notFound();
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENAMETOOLONG') throw notFound();
      throw err;
    }
    return c.body(new Uint8Array(bytes), 200, {
      'Content-Type': 'application/pdf',
      'Content-Length': String(bytes.length),
      'Cache-Control': 'public, max-age=3600',
    });
  });
}
