import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoFilesFirst } from '../../ingest/demo.js';
import { createHttpDownloader } from '../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../src/adapters/download/url-policy.js';
import { repoRoot } from '../support/corpus.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';

/**
 * The demo seeding's downloader: the demo PDFs behind this server's own links read from disk (so API_KEYS does not
 * lock the server out of its own files), every other link fetched by the downloader the composition root built.
 * seedDemo as a whole runs in test/e2e/server.test.ts.
 */

const demoDir = path.join(repoRoot, 'demo');
const NAME = 'PD_900001_rio_verde_agroforestry.pdf';
let server: StaticServer;

beforeAll(async () => {
  server = await startStaticServer({ root: path.join(demoDir, 'documents'), mount: '/files' });
});
afterAll(async () => {
  await server.close();
});

describe('demoFilesFirst', () => {
  const prefix = 'http://localhost:3000/demo/documents/';
  const downloader = () =>
    demoFilesFirst(prefix, demoDir, createHttpDownloader({ policy: createUrlPolicy([server.hostPort]), retries: 0 }));

  it('reads a demo document from the demo folder, with the hash of the bytes the link serves', async () => {
    const bytes = readFileSync(path.join(demoDir, 'documents', NAME));
    const requested = server.requests.length;
    const content = await downloader().download(`${prefix}${NAME}`);
    expect(content.bytes.equals(bytes)).toBe(true);
    expect(content).toMatchObject({
      contentType: 'application/pdf',
      contentHash: createHash('sha256').update(bytes).digest('hex'),
      finalUrl: `${prefix}${NAME}`,
    });
    expect(server.requests.length).toBe(requested);
  });

  it('hands every other link to the downloader it wraps', async () => {
    const content = await downloader().download(`${server.baseUrl}/files/${NAME}`);
    expect(content.bytes.equals(readFileSync(path.join(demoDir, 'documents', NAME)))).toBe(true);
    expect(server.requests).toContain(`/files/${NAME}`);
  });

  it('never reads outside the demo folder: a name that is not a plain PDF file name goes to the downloader', async () => {
    // The downloader refuses localhost (not allow-listed): proof that the disk was not read.
    await expect(downloader().download(`${prefix}..%2Frecords.jsonl`)).rejects.toThrow(/not allowed|refused|allow/i);
    await expect(downloader().download(`${prefix}missing.pdf`)).rejects.toThrow();
  });
});
