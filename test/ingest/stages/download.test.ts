import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { download } from '../../../ingest/stages/download.js';
import type { DocumentWorkItem, StageContext } from '../../../ingest/types.js';
import { createHttpDownloader } from '../../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../../src/adapters/download/url-policy.js';
import { startStaticServer, type StaticServer } from '../../support/static-server.js';
import { makePdf } from '../support/make-pdf.js';

/**
 * The download stage over the real HTTP downloader and a local server: what a document's outcome becomes for each
 * way a download ends. The downloader's own checks are tested in test/adapters/download/http-downloader.test.ts.
 */

const PDF = makePdf(['A small document for the download stage.']);
let server: StaticServer;

function route(req: IncomingMessage, res: ServerResponse): boolean {
  const { pathname } = new URL(req.url ?? '/', 'http://x');
  if (pathname === '/ok.pdf') {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF.length });
    res.end(PDF);
    return true;
  }
  if (pathname === '/boundary.kml') {
    res.writeHead(200, { 'content-type': 'application/vnd.google-earth.kml+xml' });
    res.end('<?xml version="1.0"?><kml></kml>');
    return true;
  }
  if (pathname === '/busy.pdf') {
    res.writeHead(503);
    res.end();
    return true;
  }
  return false;
}

beforeAll(async () => {
  server = await startStaticServer({ handlers: [route] });
});
afterAll(async () => {
  await server.close();
});

function context(): StageContext {
  const downloader = createHttpDownloader({ policy: createUrlPolicy([server.hostPort]), retries: 0, timeoutMs: 2000 });
  // The stage reads only the downloader and the signal.
  return { downloader } as unknown as StageContext;
}

const item = (uri: string): DocumentWorkItem => ({
  ref: { registry: 'Verra', projectId: 1 },
  documentId: 'd',
  uri,
  title: 'd.pdf',
  documentType: 'Other',
  uploadDate: null,
  previous: null,
});

describe('download stage', () => {
  it('puts the bytes, their hash and type on the item', async () => {
    const out = await download(item(`${server.baseUrl}/ok.pdf`), context());
    expect(out.outcome).toBeUndefined();
    expect(out.content?.bytes.equals(PDF)).toBe(true);
    expect(out.content?.contentType).toBe('application/pdf');
    expect(out.content?.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('skips a uri that plainly serves another kind of file, with the reason', async () => {
    const out = await download(item(`${server.baseUrl}/boundary.kml`), context());
    expect(out.outcome).toEqual({ kind: 'skipped', reason: expect.stringMatching(/not a PDF .*skipped/) });
  });

  it('fails a server error as retryable, with its kind for the metrics', async () => {
    const out = await download(item(`${server.baseUrl}/busy.pdf`), context());
    expect(out.outcome).toMatchObject({ kind: 'failed', retryable: true, downloadFailure: 'http_503' });
    expect(out.outcome?.kind === 'failed' && out.outcome.reason).toMatch(/^download: /);
  });

  it('fails a host outside the allow-list as refused, not retryable', async () => {
    const out = await download(item('https://example.invalid/a.pdf'), context());
    expect(out.outcome).toMatchObject({ kind: 'failed', downloadFailure: 'refused' });
    expect(out.outcome?.kind === 'failed' && out.outcome.retryable).toBeFalsy();
  });

  it('fails a uri that still holds a {...} placeholder with that reason, before any request', async () => {
    const requested = server.requests.length;
    const ctx = context();
    expect((await download(item('{BASE}/pdf/VCS5533_project_description.pdf'), ctx)).outcome).toEqual({
      kind: 'failed',
      reason: 'download: the uri still holds the placeholder {BASE}: import the records again with --replace-base <url>',
      downloadFailure: 'placeholder',
    });
    expect((await download(item('https://{HOST}/a.pdf'), ctx)).outcome).toEqual({
      kind: 'failed',
      reason: 'download: the uri still holds the placeholder {HOST}',
      downloadFailure: 'placeholder',
    });
    expect(server.requests.length).toBe(requested);
  });
});
