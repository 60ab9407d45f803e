import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { createTestApp, type TestApp } from './fixture.js';

/**
 * The Node server around the app (src/http/server.ts), over raw sockets: the connection cap and timeouts against
 * slow clients (issue 16.2) and JSON error bodies for requests Node refuses before the app (issue 16.8).
 */

let t: TestApp;
let s: HttpServer;

beforeAll(async () => {
  t = await createTestApp();
  s = await startHttpServer(t.app.fetch, {
    port: 0,
    hostname: '127.0.0.1',
    maxConnections: 4,
    perAddressShare: 1,
    headersTimeoutMs: 1000,
    requestTimeoutMs: 2000,
    keepAliveTimeoutMs: 1000,
    logger: createLogger({ level: 'silent', name: 'test' }),
  });
});
afterAll(async () => {
  await s.drain(1000);
  await t.close();
});

interface Raw {
  status: number;
  headers: string;
  body: string;
  /** ms from the first byte sent until the server closed the connection */
  closedAfterMs: number;
}

/** Sends `pieces` (the later ones after `gapMs` each) on a fresh connection; reads until the server closes it. */
function raw(pieces: Array<string | Buffer>, gapMs = 0): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(s.address.port, '127.0.0.1');
    const parts: Buffer[] = [];
    const started = Date.now();
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server did not close the connection within 10 s'));
    }, 10_000);
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      const text = Buffer.concat(parts).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({
        status,
        headers: head < 0 ? text : text.slice(0, head),
        body: head < 0 ? '' : text.slice(head + 4),
        closedAfterMs: Date.now() - started,
      });
    });
    socket.once('connect', () => {
      pieces.forEach((p, i) => setTimeout(() => !socket.destroyed && socket.write(p), i * gapMs));
    });
  });
}

function errorCode(r: Raw): string {
  expect(r.headers.toLowerCase()).toContain('content-type: application/json');
  return (JSON.parse(r.body) as { error: { code: string } }).error.code;
}

describe('slow clients (issue 16.2)', () => {
  it('closes a connection whose headers do not arrive within HEADERS_TIMEOUT_MS, with a JSON 408', async () => {
    const r = await raw(['GET /healthz HTTP/1.1\r\nHost: x\r\n']);
    expect(r.closedAfterMs).toBeLessThan(5000);
    expect(r.status).toBe(408);
    expect(errorCode(r)).toBe('invalid_request');
  });

  it('closes a connection whose body does not arrive within REQUEST_TIMEOUT_MS', async () => {
    const body = '{"projectId": 5533, "registry": "Verra"}';
    const r = await raw([
      `POST /project-documents/metadata HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    ]);
    expect(r.closedAfterMs).toBeLessThan(6000);
  });

  it('at MAX_CONNECTIONS, a new connection takes the place of the oldest one still sending its request (issue 45)', async () => {
    const closed: boolean[] = [];
    const idle: net.Socket[] = [];
    for (let i = 0; i < 4; i++) {
      idle.push(
        await new Promise<net.Socket>((resolve) => {
          const c = net.connect(s.address.port, '127.0.0.1', () => resolve(c));
          c.on('error', () => undefined);
          c.on('close', () => (closed[i] = true));
        }),
      );
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 100));
    const extra = await raw(['GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    expect(extra.status).toBe(200);
    expect(closed).toEqual([true]);
    for (const c of idle) c.destroy();
    await new Promise((r) => setTimeout(r, 100));
  });
});

describe('requests Node refuses before the app get the JSON error envelope (issue 16.8)', () => {
  const cases: Array<[string, Array<string | Buffer>, number, string]> = [
    [
      'a Content-Length that is not a number',
      ['POST /project-documents/metadata HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
      400,
      'invalid_request',
    ],
    [
      'Content-Length together with Transfer-Encoding',
      ['POST /project-documents/metadata HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
      400,
      'invalid_request',
    ],
    ['an unknown method', ['FROB /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], 400, 'invalid_request'],
    [
      'a header line with a NUL byte',
      [Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 'latin1')],
      400,
      'invalid_request',
    ],
    ['headers over 16 kB', [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], 431, 'payload_too_large'],
    ['a backslash in the path', ['GET /a\\b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], 400, 'invalid_request'],
    ['a path of "*"', ['GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'], 400, 'invalid_request'],
  ];
  for (const [name, pieces, status, code] of cases) {
    it(`${status} ${code}: ${name}`, async () => {
      const r = await raw(pieces);
      expect(r.status).toBe(status);
      expect(errorCode(r)).toBe(code);
    });
  }

  it('405 method_not_allowed for CONNECT, answered rather than a closed socket (issue 45)', async () => {
    const r = await raw(['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    expect(r.status).toBe(405);
    expect(errorCode(r)).toBe('method_not_allowed');
  });

  it('HEAD responses carry X-Request-Id, as GET responses do (issue 45)', async () => {
    for (const path of ['/healthz', '/readyz', '/no-such-path']) {
      const r = await raw([`HEAD ${path} HTTP/1.1\r\nHost: x\r\nX-Request-Id: head-${path.length}\r\nConnection: close\r\n\r\n`]);
      expect(r.headers.toLowerCase(), path).toContain(`x-request-id: head-${path.length}`);
      expect(r.body).toBe('');
    }
  });

  it('the server keeps serving afterwards', async () => {
    const r = await raw(['GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    expect(r.status).toBe(200);
  });
});
