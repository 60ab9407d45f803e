import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegistryClient } from '../../ingest/deps.js';
import { fetchRegistryRecords, parseIdList } from '../../ingest/registry-fetch.js';
import { createVerraClient } from '../../src/adapters/verra/registry-client.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

let server: Server;
let baseUrl = '';
let record4086 = Buffer.alloc(0);

beforeAll(async () => {
  if (corpusAvailable) record4086 = await readFile(corpusPath('records', 'verra_4086_raw.json'));
  server = createServer((req, res) => {
    const path = req.url ?? '';
    if (path.endsWith('/resourceSummary/4086')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(record4086);
    } else if (path.endsWith('/resourceSummary/7')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>app</body></html>');
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describeWithService(
  'fetching live records into the store (replayed registry)',
  {
    available: corpusAvailable,
    why: 'corpus not found',
  },
  () => {
    it('stores found records, lists missing ones and failures per id, and is idempotent', async () => {
      const db = openSqlite({ dataDir: ':memory:' });
      const store = await createSqliteRecordStore({ db });
      try {
        const client = createVerraClient({ baseUrl, intervalCap: 50, intervalMs: 100 });
        const r = await fetchRegistryRecords(client, store, [4086, 5533, 7]);
        expect(r.inserted).toBe(1);
        expect(r.notFound).toEqual([5533]);
        expect(r.failed).toHaveLength(1);
        expect(r.failed[0]).toMatchObject({ projectId: 7, retryable: false });
        expect(r.failed[0]?.error).toMatch(/HTML page instead of JSON/);
        const stored = await store.get({ registry: 'Verra', projectId: 4086 });
        expect(stored?.format).toBe('registry-json');
        expect(stored?.raw).toMatchObject({ registry: 'Verra', resourceIdentifier: '4086' });
        const again = await fetchRegistryRecords(client, store, [4086]);
        expect(again).toMatchObject({ inserted: 0, updated: 0, unchanged: 1 });
      } finally {
        await store.close();
        db.close();
      }
    });
  },
);

describe('registry fetch arguments', () => {
  it('parses id lists and names a bad entry', () => {
    expect(parseIdList('4086,5533, 4086 6000')).toEqual([4086, 5533, 6000]);
    expect(() => parseIdList('4086,abc')).toThrow(/"abc" is not a positive integer/);
    expect(() => parseIdList(' , ')).toThrow(/empty list/);
  });

  it('has a live client for Verra only', () => {
    expect(buildRegistryClient('verra', { VERRA_BASE_URL: 'https://registry.verra.org' }).registry).toBe('Verra');
    expect(() => buildRegistryClient('Gold Standard', { VERRA_BASE_URL: 'https://registry.verra.org' })).toThrow(/Verra only.*--export/);
  });
});
