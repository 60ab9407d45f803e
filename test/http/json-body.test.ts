import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './fixture.js';

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
      const req = request({ host: '127.0.0.1', port, path: PATH, method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
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
