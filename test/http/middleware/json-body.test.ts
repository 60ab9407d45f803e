import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../src/http/middleware/json-body.js';
import { createTestApp, type TestApp } from '../fixture.js';

/**
 * The JSON body guards on a real Node server, where the body is read from the IncomingMessage itself (app.request
 * in the other HTTP tests goes through the WHATWG Request path instead).
 */

const PATH = '/project-documents/metadata';
let t: TestApp;
let server: ServerType;
let port: number;

beforeAll(async () => {
  t = await createTestApp(); // MAX_BODY_BYTES=4096
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

/** POSTs `pieces` as separate writes; chunked unless `contentLength` is given. */
function post(pieces: string[], contentLength?: number): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: PATH,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(contentLength === undefined ? { 'transfer-encoding': 'chunked' } : { 'content-length': contentLength }),
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (b: Buffer) => parts.push(b));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    for (const p of pieces) req.write(p);
    req.end();
  });
}

describe('JSON body on a Node server', () => {
  it('reads a body sent in several chunks', async () => {
    const res = await post(['{"projectId": 55', '33, "regis', 'try": "Verra"}']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ resourceIdentifier: 5533 });
  });

  it('413 for a chunked body past the limit, read no further; the server keeps answering', async () => {
    const res = await post(['{"projectId": 5533, "pad": "', 'x'.repeat(3000), 'x'.repeat(3000), '"}']);
    expect(res.status).toBe(413);
    expect(res.body.error?.code).toBe('payload_too_large');
    expect((await post(['{"projectId": 5533, "registry": "Verra"}'])).status).toBe(200);
  });

  it('413 from a declared Content-Length over the limit', async () => {
    const body = JSON.stringify({ projectId: 5533, pad: 'x'.repeat(5000) });
    const res = await post([body], Buffer.byteLength(body));
    expect(res.status).toBe(413);
    expect(res.body.error?.code).toBe('payload_too_large');
  });

  it('a client that breaks off mid-body costs a 400 at most, never a 500 or an "unexpected error" log', async () => {
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: PATH,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.write('{"projectId": 55');
      setTimeout(() => req.destroy(), 50);
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(t.logs.filter((l) => l.msg === 'unexpected error')).toEqual([]);
    expect(t.logs.some((l) => l.msg === 'request' && (l as { status?: number }).status === 400)).toBe(true);
    expect((await post(['{"projectId": 5533, "registry": "Verra"}'])).status).toBe(200);
  });

  it('400 for a body that is not JSON, or empty', async () => {
    for (const pieces of [['{"projectId": ', '5533,'], []]) {
      const res = await post(pieces);
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('invalid_request');
      expect(res.body.error?.message).toMatch(/not valid JSON/);
    }
  });
});

describe('deeply nested JSON (issue 16.5)', () => {
  let big: TestApp;
  let bigServer: ServerType;
  let bigPort: number;
  beforeAll(async () => {
    big = await createTestApp({ MAX_BODY_BYTES: '65536' });
    bigServer = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: big.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    bigPort = (bigServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => bigServer.close(() => resolve()));
    await big.close();
  });
  /** POSTs one JSON text to `p` with a Content-Length. */
  function postTo(p: string, body: string): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: bigPort,
          path: p,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (b: Buffer) => parts.push(b));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
  /** A valid body with an extra field nested `depth` levels deep: `{"extra": {"a": {"a": ... 1}}}`. */
  function nested(base: Record<string, unknown>, depth: number): string {
    let inner = '1';
    for (let i = 0; i < depth - 1; i++) inner = i % 2 === 0 ? `{"a":${inner}}` : `[${inner}]`;
    return `${JSON.stringify(base).slice(0, -1)},"extra":${inner}}`;
  }
  const bodies: Array<[string, Record<string, unknown>]> = [
    ['/project-documents/metadata', { projectId: 5533, registry: 'Verra' }],
    ['/project-documents/batch-metadata', { projectList: [{ project_id: 5533, registry: 'Verra' }] }],
    ['/projects-documents/batch-search', { projectList: [{ project_id: 5533, registry: 'Verra' }], query: 'crediting period' }],
  ];

  for (const [p, base] of bodies) {
    it(`${p}: 400 invalid_request naming the limit for 4,500 levels, never a 500 or "Malformed JSON"`, async () => {
      const body = nested(base, 4500);
      expect(body.length).toBeLessThan(20_000);
      const res = await postTo(p, body);
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('invalid_request');
      expect(res.body.error?.message).toContain(`${MAX_JSON_DEPTH} levels`);
    });

    it(`${p}: a body nested exactly ${MAX_JSON_DEPTH} levels is read`, async () => {
      // The body object itself is level 1, so the extra field may hold MAX_JSON_DEPTH - 1 levels.
      const res = await postTo(p, nested(base, MAX_JSON_DEPTH - 1));
      expect(res.status).not.toBe(500);
      expect(res.body.error?.code ?? 'ok').not.toBe('invalid_request');
    });
  }

  it('counts brackets inside strings as text, not nesting', async () => {
    const res = await postTo(
      '/project-documents/metadata',
      JSON.stringify({ projectId: 5533, registry: 'Verra', note: '['.repeat(3000) + '\\"{' }),
    );
    expect(res.status).toBe(200);
  });
});
