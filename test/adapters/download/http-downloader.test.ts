import type { LookupAddress } from 'node:dns';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpDownloader, type DownloaderOptions } from '../../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../../src/adapters/download/url-policy.js';
import { parseRetryAfter } from '../../../src/domain/retry-after.js';
import { DownloadError } from '../../../src/ports/downloader.js';
import { makePdf } from '../../ingest/support/make-pdf.js';
import { startStaticServer, type StaticServer } from '../../support/static-server.js';

const PDF = makePdf(['A small document used by the download tests.']);

let server: StaticServer;
let inFlight = 0;
let maxInFlight = 0;
const hits = new Map<string, number>();
let bytesSentOnHuge = 0;

function route(req: IncomingMessage, res: ServerResponse): boolean {
  const url = new URL(req.url ?? '/', 'http://x');
  const n = (hits.get(url.pathname) ?? 0) + 1;
  hits.set(url.pathname, n);
  const pdf = (type = 'application/pdf'): void => {
    res.writeHead(200, { 'content-type': type, 'content-length': PDF.length });
    res.end(PDF);
  };
  switch (url.pathname) {
    case '/ok.pdf':
      pdf();
      return true;
    case '/octet.pdf':
      pdf('application/octet-stream');
      return true;
    case '/slow-concurrency.pdf': {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        pdf();
      }, 150);
      return true;
    }
    case '/html.pdf':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Sign in to continue</body></html>');
      return true;
    case '/area.kml':
      res.writeHead(200, { 'content-type': 'application/vnd.google-earth.kml+xml' });
      res.end('<?xml version="1.0"?><kml></kml>');
      return true;
    case '/missing.pdf':
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('no');
      return true;
    case '/flaky.pdf':
      // 503 with Retry-After: 1 (seconds) on the first request, then the document.
      if (n === 1) {
        res.writeHead(503, { 'retry-after': '1' });
        res.end();
      } else pdf();
      return true;
    case '/always-429.pdf':
      res.writeHead(429, { 'retry-after': '0' });
      res.end();
      return true;
    case '/reset.pdf':
      if (n === 1) req.socket.destroy();
      else pdf();
      return true;
    case '/redirect-ok':
      res.writeHead(302, { location: '/ok.pdf' });
      res.end();
      return true;
    case '/redirect-out':
      res.writeHead(301, { location: 'http://evil.example.test/x.pdf' });
      res.end();
      return true;
    case '/redirect-file':
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
      return true;
    case '/loop':
      res.writeHead(302, { location: '/loop' });
      res.end();
      return true;
    case '/declared-huge.pdf':
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(10 * 1024 * 1024) });
      res.end();
      return true;
    case '/streamed-huge.pdf': {
      // No content-length: the cap must stop the download while streaming.
      res.writeHead(200, { 'content-type': 'application/pdf' });
      const block = Buffer.alloc(64 * 1024, 0x20);
      block.write('%PDF-1.4\n');
      let sent = 0;
      const pump = (): void => {
        while (sent < 50 * 1024 * 1024) {
          sent += block.length;
          bytesSentOnHuge = sent;
          if (!res.write(block)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => undefined);
      pump();
      return true;
    }
    case '/stall.pdf':
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.write(PDF.subarray(0, 20));
      // ... and never finishes.
      return true;
    default:
      return false;
  }
}

beforeAll(async () => {
  server = await startStaticServer({ handlers: [route] });
});
afterAll(async () => {
  await server.close();
});

function downloader(extra: Partial<DownloaderOptions> = {}) {
  return createHttpDownloader({
    policy: createUrlPolicy([server.hostPort]),
    retries: 2,
    retryBaseDelayMs: 10,
    timeoutMs: 2000,
    ...extra,
  });
}

async function failure(p: Promise<unknown>): Promise<DownloadError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DownloadError) return err;
    throw err;
  }
  throw new Error('expected the download to fail');
}

describe('download: allow-list and address checks', () => {
  it('downloads an allowed PDF and hashes it', async () => {
    const r = await downloader().download(`${server.baseUrl}/ok.pdf`);
    expect(r.bytes.equals(PDF)).toBe(true);
    expect(r.contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.contentType).toBe('application/pdf');
  });

  it('refuses hosts outside the allow-list without connecting', async () => {
    const before = server.requests.length;
    const e = await failure(createHttpDownloader({ policy: createUrlPolicy([]) }).download(`${server.baseUrl}/ok.pdf`));
    expect(e.message).toMatch(/not in the download allow-list/);
    expect(e.kind).toBe('refused');
    expect(e.retryable).toBe(false);
    expect(server.requests.length).toBe(before);
  });

  it('refuses other schemes and URLs with credentials', async () => {
    const d = downloader();
    expect((await failure(d.download('file:///etc/passwd'))).message).toMatch(/scheme file is not allowed/);
    expect((await failure(d.download('ftp://registry.verra.org/x.pdf'))).message).toMatch(/scheme ftp/);
    expect((await failure(d.download(`http://u:p@${server.hostPort}/ok.pdf`))).message).toMatch(/credentials/);
    expect((await failure(d.download('{BASE}/pdf/x.pdf'))).message).toMatch(/invalid URL/);
  });

  it('refuses a loopback literal that is allowed only as a default (not named by the operator)', async () => {
    const d = createHttpDownloader({ policy: createUrlPolicy([], ['127.0.0.1']) });
    const e = await failure(d.download(`${server.baseUrl}/ok.pdf`));
    expect(e.message).toMatch(/127\.0\.0\.1 .* is loopback; refused unless the host is named in DOWNLOAD_ALLOW_HOSTS/);
    expect(e.kind).toBe('refused');
  });

  it('refuses an allowed name that resolves to a private or loopback address (checked at connect time)', async () => {
    const port = Number(server.hostPort.split(':')[1]);
    const to = (address: string) =>
      ((host: string, opts: unknown, cb: (e: Error | null, a: LookupAddress[]) => void) =>
        cb(null, [{ address, family: 4 }])) as unknown as DownloaderOptions['lookup'];
    const policy = createUrlPolicy([], ['docs.registry.test']);
    const before = server.requests.length;
    for (const address of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '0.0.0.0']) {
      const d = createHttpDownloader({ policy, lookup: to(address), retries: 0 });
      const e = await failure(d.download(`http://docs.registry.test:${port}/ok.pdf`));
      expect(e.message).toMatch(new RegExp(`address ${address.replace(/\./g, '\\.')} of host docs\\.registry\\.test is`));
      expect(e.kind).toBe('refused');
    }
    expect(server.requests.length).toBe(before);
    // The same name named explicitly by the operator may resolve to loopback (a local mirror).
    const explicit = createHttpDownloader({ policy: createUrlPolicy([`docs.registry.test:${port}`], []), lookup: to('127.0.0.1') });
    const ok = await explicit.download(`http://docs.registry.test:${port}/ok.pdf`);
    expect(ok.bytes.equals(PDF)).toBe(true);
  });

  it('refuses a name whose addresses mix public and private (any of them could be dialled)', async () => {
    const lookup = ((host: string, opts: unknown, cb: (e: Error | null, a: LookupAddress[]) => void) =>
      cb(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '192.168.1.10', family: 4 },
      ])) as unknown as DownloaderOptions['lookup'];
    const d = createHttpDownloader({ policy: createUrlPolicy([], ['docs.registry.test']), lookup, retries: 0 });
    const e = await failure(d.download('http://docs.registry.test/x.pdf'));
    expect(e.message).toMatch(/192\.168\.1\.10 .* is private/);
  });
});

describe('download: redirects', () => {
  it('follows an allowed redirect', async () => {
    const r = await downloader().download(`${server.baseUrl}/redirect-ok`);
    expect(r.finalUrl).toBe(`${server.baseUrl}/ok.pdf`);
    expect(r.bytes.equals(PDF)).toBe(true);
  });

  it('re-checks every hop: a redirect to another host or scheme is refused', async () => {
    expect((await failure(downloader().download(`${server.baseUrl}/redirect-out`))).message).toMatch(
      /redirect to http:\/\/evil\.example\.test\/x\.pdf refused: host evil\.example\.test:80 is not in the download allow-list/,
    );
    expect((await failure(downloader().download(`${server.baseUrl}/redirect-file`))).message).toMatch(
      /redirect to file:.* refused: scheme file/,
    );
  });

  it('stops a redirect loop', async () => {
    const e = await failure(downloader({ maxRedirects: 3 }).download(`${server.baseUrl}/loop`));
    expect(e.message).toBe('more than 3 redirects');
    expect(e.kind).toBe('redirect');
  });
});

describe('download: size, time and content checks', () => {
  it('refuses a declared size over the cap without reading the body', async () => {
    const e = await failure(downloader({ maxBytes: 1024 * 1024 }).download(`${server.baseUrl}/declared-huge.pdf`));
    expect(e.message).toMatch(/is 10485760 bytes, over the 1048576-byte limit/);
    expect(e.kind).toBe('too_large');
  });

  it('aborts while streaming once the cap is passed', async () => {
    const e = await failure(downloader({ maxBytes: 1024 * 1024 }).download(`${server.baseUrl}/streamed-huge.pdf`));
    expect(e.message).toMatch(/larger than the 1048576-byte limit .*download stopped/);
    expect(e.kind).toBe('too_large');
    expect(e.retryable).toBe(false);
    await new Promise((r) => setTimeout(r, 100));
    expect(bytesSentOnHuge).toBeLessThan(20 * 1024 * 1024);
  });

  it('times out a server that stops sending, and retries it', async () => {
    hits.delete('/stall.pdf');
    const t0 = Date.now();
    const e = await failure(downloader({ timeoutMs: 300, retries: 1 }).download(`${server.baseUrl}/stall.pdf`));
    expect(e.message).toMatch(/timed out after 300 ms \(after 2 attempts\)/);
    expect(e.kind).toBe('timeout');
    // Still retryable after the downloader's own attempts: the queue worker tries the document again later.
    expect(e.retryable).toBe(true);
    expect(hits.get('/stall.pdf')).toBe(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
  });

  it('fails a body that is not a PDF, naming its type and first bytes', async () => {
    const e = await failure(downloader().download(`${server.baseUrl}/html.pdf`));
    expect(e.outcome).toBe('failed');
    expect(e.message).toBe('content is not a PDF (content-type text/html; no %PDF- header, starts with "<html><body>Sign")');
    expect(e.kind).toBe('not_pdf');
  });

  it('skips a document served as a non-PDF type (KML)', async () => {
    const e = await failure(downloader().download(`${server.baseUrl}/area.kml`));
    expect(e.outcome).toBe('skipped');
    expect(e.message).toMatch(/not a PDF \(content-type application\/vnd\.google-earth\.kml\+xml\)/);
  });

  it('accepts a PDF served as application/octet-stream (magic bytes decide)', async () => {
    const r = await downloader().download(`${server.baseUrl}/octet.pdf`);
    expect(r.bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe('download: retries', () => {
  it('does not retry a 404', async () => {
    hits.delete('/missing.pdf');
    const e = await failure(downloader().download(`${server.baseUrl}/missing.pdf`));
    expect(e.message).toBe('HTTP 404 Not Found');
    expect(e.kind).toBe('http_404');
    expect(e.retryable).toBe(false);
    expect(hits.get('/missing.pdf')).toBe(1);
  });

  it('retries a 503 after the Retry-After the server asked for', async () => {
    hits.delete('/flaky.pdf');
    const retries: number[] = [];
    const t0 = Date.now();
    const r = await downloader({ onRetry: (i) => retries.push(i.delayMs) }).download(`${server.baseUrl}/flaky.pdf`);
    expect(r.bytes.equals(PDF)).toBe(true);
    expect(retries).toEqual([1000]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(hits.get('/flaky.pdf')).toBe(2);
  });

  it('gives up at once when Retry-After asks for longer than maxRetryAfterMs', async () => {
    hits.delete('/flaky.pdf');
    const e = await failure(downloader({ maxRetryAfterMs: 500 }).download(`${server.baseUrl}/flaky.pdf`));
    expect(e.message).toMatch(/^HTTP 503 .*retry after 1 s, longer than the downloader waits/);
    expect(e.kind).toBe('http_503');
    expect(hits.get('/flaky.pdf')).toBe(1);
  });

  it('gives up on a persistent 429 after the configured retries', async () => {
    hits.delete('/always-429.pdf');
    const e = await failure(downloader({ retries: 2 }).download(`${server.baseUrl}/always-429.pdf`));
    expect(e.message).toBe('HTTP 429 Too Many Requests (after 3 attempts)');
    expect(e.kind).toBe('http_429');
    expect(hits.get('/always-429.pdf')).toBe(3);
  });

  it('retries a dropped connection', async () => {
    hits.delete('/reset.pdf');
    const r = await downloader().download(`${server.baseUrl}/reset.pdf`);
    expect(r.bytes.equals(PDF)).toBe(true);
    expect(hits.get('/reset.pdf')).toBe(2);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter(new Date(10_000 + 5000).toUTCString(), 10_000)).toBe(5000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });
});

describe('download: concurrency', () => {
  it('keeps at most perHostConcurrency downloads in flight to one host', async () => {
    maxInFlight = 0;
    const d = downloader({ concurrency: 8, perHostConcurrency: 2 });
    await Promise.all(Array.from({ length: 6 }, () => d.download(`${server.baseUrl}/slow-concurrency.pdf`)));
    expect(maxInFlight).toBe(2);
  });

  it('keeps at most concurrency downloads in flight in total', async () => {
    maxInFlight = 0;
    const d = downloader({ concurrency: 1, perHostConcurrency: 4 });
    await Promise.all(Array.from({ length: 3 }, () => d.download(`${server.baseUrl}/slow-concurrency.pdf`)));
    expect(maxInFlight).toBe(1);
  });

  it('rejects bad options with the value received', () => {
    expect(() => createHttpDownloader({ policy: createUrlPolicy(), concurrency: 0 })).toThrow(/concurrency must be an integer >= 1, got 0/);
  });
});
