/**
 * What HTTP adds to a batch search: `npx tsx bench/search/transport.ts [--requests 500]`
 *
 * Serves the real app (routes, middleware, validation, JSON) with a search service that answers at once with a
 * response of the size bench/search/main.ts gets (8 citations of 60 words, 5 projects), and times POST
 * /projects-documents/batch-search from a node:http client on one kept-alive connection (http-client.ts), in three situations:
 * back to back (a hot event loop), after the loop idled 12 ms (about one query embedding), and after a real query
 * embedding (USE lite, worker thread). The difference between the first and the others is the cost of waking an
 * idle event loop, which a search that waits for its embedding always pays, whatever the route does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { buildEmbedder } from '../../ingest/deps.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createMetadataService } from '../../src/services/metadata.js';
import type { SearchResponse, SearchService } from '../../src/services/search.js';
import { keepAliveJsonPoster } from './http-client.js';

const i = process.argv.indexOf('--requests');
const requests = i >= 0 ? Number(process.argv[i + 1]) : 500;
if (!Number.isInteger(requests) || requests < 10) throw new Error('--requests must be an integer >= 10');

const QUERY = 'What is the crediting period of the project?';
const RESPONSE: SearchResponse = {
  answer: 'The crediting period is 20 years [1], from 15/07/2022 [2]. '.repeat(8),
  citations: Array.from({ length: 8 }, (_, k) => ({
    id: k + 1,
    projectId: 1 + (k % 5),
    registry: 'Verra',
    documentTitle: 'doc0.pdf',
    documentType: 'Project Description',
    uri: 'https://example.org/1/doc0.pdf',
    page: 3 + k,
    text: `${'project crediting period monitoring baseline '.repeat(12).trim()}.`,
    quote: 'project crediting period monitoring baseline.',
    score: 0.5,
  })),
  answered: true,
  answerModel: 'extractive',
  projects: Array.from({ length: 5 }, (_, k) => ({ projectId: k + 1, registry: 'Verra', indexedDocuments: 3 })),
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-transport-'));
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DEMO_DATA: 'false', DATABASE_URL: '', QDRANT_URL: '' });
  const logger = createLogger({ level: 'warn', name: 'bench-transport' });
  const db = openSqlite({ dataDir });
  const records = await createSqliteRecordStore({ db });
  const embedder = await buildEmbedder(config, logger);
  const search: SearchService = { search: async () => RESPONSE };
  const app = createApp({
    config,
    logger,
    metadata: createMetadataService({ records, countries: createCountryLookup() }),
    readiness: [],
    search,
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const client = keepAliveJsonPoster(`http://127.0.0.1:${port}/projects-documents/batch-search`);
  const payload = JSON.stringify({ projectList: [1, 2, 3, 4, 5].map((p) => ({ project_id: p, registry: 'Verra' })), query: QUERY });
  const post = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await client.post(payload);
    JSON.parse(res.text);
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`status ${res.status}: ${res.text.slice(0, 300)}`);
    return ms;
  };
  const before: Record<string, () => Promise<unknown>> = {
    'back to back (hot event loop)': async () => undefined,
    'after 12 ms idle': () => new Promise((resolve) => setTimeout(resolve, 12)),
    'after a query embedding (USE lite)': () => embedder.embed([QUERY], 'query'),
  };
  const rows = ['| HTTP round trip, instant search service | p50 ms | p90 ms | p99 ms |', '|---|---|---|---|'];
  try {
    for (const [name, wait] of Object.entries(before)) {
      const ms: number[] = [];
      for (let r = 0; r < requests + 50; r++) {
        await wait();
        const t = await post();
        if (r >= 50) ms.push(t);
      }
      ms.sort((a, b) => a - b);
      rows.push(`| ${name} | ${percentile(ms, 50).toFixed(2)} | ${percentile(ms, 90).toFixed(2)} | ${percentile(ms, 99).toFixed(2)} |`);
    }
  } finally {
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await embedder.close();
    await records.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${requests} requests per row (after 50 warm-up)\n${rows.join('\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
