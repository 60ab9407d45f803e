/**
 * MCP tool latency: `npx tsx bench/mcp/main.ts [--projects 1000] [--chunks 30000] [--requests 30] [--filter 5]`
 *
 * Builds an embedded index (the default adapters) of synthetic chunks, with page texts and document states, over
 * many projects, then measures, interleaved so that each sees the same machine load:
 * - `ask` over `--filter` projects through the SDK's client in process, beside the search service called directly
 *   (what the MCP layer adds: argument validation, JSON Schema'd results, the in-memory transport);
 * - `search`, which searches every project with indexed documents (the deep-research convention has no project
 *   filter): how its cost grows with the number of projects, beside the batch search over `--filter` projects;
 * - `fetch` of a passage `search` returned;
 * - POST /mcp (`ask`) over a real HTTP server beside POST /projects-documents/batch-search for the same question.
 * Numbers, not pass/fail; the extractive answer throughout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildEmbedder } from '../../ingest/deps.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../src/adapters/sqlite/vector-index.js';
import { loadConfig } from '../../src/config.js';
import { buildSearch } from '../../src/deps.js';
import { documentIdFor } from '../../src/domain/chunking.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createMcpServer, createMcpToolset } from '../../src/mcp/server.js';
import type { ChunkWithVector } from '../../src/ports/vector-index.js';
import { createDiscoveryService } from '../../src/services/discovery.js';
import { createMetadataService } from '../../src/services/metadata.js';
import { createPassageService } from '../../src/services/passages.js';
import { rng } from '../../test/support/rng.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
  return v;
}

const QUESTIONS = [
  'What is the crediting period of the project?',
  'What average annual GHG removals are estimated?',
  'Which methodology VM0047 applies to the project activity?',
  'What is the non-permanence risk rating for the buffer?',
  'How is leakage monitored and quantified?',
  'What planting density and spacing are used?',
];

const ms = (from: number): number => performance.now() - from;

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return `${name.padEnd(44)} p50 ${at(50).toFixed(1).padStart(7)} ms   p90 ${at(90).toFixed(1).padStart(7)} ms   (n=${samples.length})`;
}

async function main(): Promise<void> {
  const projectCount = arg('projects', 1000);
  const totalChunks = arg('chunks', 30_000);
  const requests = arg('requests', 30);
  const filter = Math.min(arg('filter', 5), projectCount);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-mcp-'));
  const logger = createLogger({ level: 'warn', name: 'bench-mcp' });
  const config = loadConfig({ ...process.env, DATA_DIR: dataDir, DEMO_DATA: 'false', DATABASE_URL: '', QDRANT_URL: '', LLM: 'extractive' });
  const embedder = await buildEmbedder(config, logger);
  const db = openSqlite({ dataDir });
  try {
    const index = await createSqliteVectorIndex({ db });
    await index.open({ embedderId: embedder.id, dimensions: embedder.dimensions });
    const states = await createSqliteDocumentStateStore({ db });
    const records = await createSqliteRecordStore({ db });
    const texts = await createSqliteDocumentTextStore({ db });

    const rand = rng(43);
    const base =
      'project carbon forest credit period monitoring emission reduction removal baseline leakage buffer risk validation verification hectare planting density spacing methodology area land community species tree soil biomass annual estimate'.split(
        ' ',
      );
    const vocab = [...base, ...Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`), 'VM0047', 'VM0007', '26,752'];
    const word = (): string => vocab[Math.floor(vocab.length * Math.pow(rand(), 2.2))] ?? 'project';
    const unitVector = (): Float32Array => {
      const v = Float32Array.from({ length: embedder.dimensions }, () => rand() * 2 - 1);
      const norm = Math.hypot(...v);
      return v.map((x) => x / norm);
    };
    const perProject = Math.ceil(totalChunks / projectCount);
    const started = performance.now();
    for (let p = 1; p <= projectCount; p++) {
      const ref = { registry: 'Verra', projectId: p };
      const docs = [0, 1, 2].map((d) => {
        const uri = `https://example.org/${p}/doc${d}.pdf`;
        return { uri, id: documentIdFor(uri), title: `doc${d}.pdf` };
      });
      const chunks: ChunkWithVector[] = [];
      const pages = new Map<string, string[]>();
      for (let i = 0; i < perProject; i++) {
        const doc = docs[i % 3] ?? docs[0];
        if (!doc) throw new Error('no document');
        const page = 1 + Math.floor(i / 3);
        const text = `${Array.from({ length: 60 }, word).join(' ')}.`;
        chunks.push({
          id: `${p}:${i}`,
          registry: 'Verra',
          projectId: p,
          documentId: doc.id,
          documentTitle: doc.title,
          documentType: 'Project Description',
          uri: doc.uri,
          page,
          offset: 0,
          text,
          vector: unitVector(),
        });
        const docPages = pages.get(doc.id) ?? [];
        docPages[page - 1] = `${text}\n${Array.from({ length: 120 }, word).join(' ')}.`;
        pages.set(doc.id, docPages);
      }
      await index.upsert(chunks);
      for (const doc of docs) {
        const docPages = Array.from(pages.get(doc.id) ?? [], (t) => t ?? '');
        await texts.put(ref, doc.id, docPages);
        await states.put({
          ...ref,
          documentId: doc.id,
          uri: doc.uri,
          title: doc.title,
          documentType: 'Project Description',
          uploadDate: null,
          status: 'indexed',
          reason: null,
          contentHash: 'x',
          pages: docPages.length,
          chunks: Math.ceil(perProject / 3),
          embedderId: embedder.id,
        });
      }
      await records.upsert([
        { ref, format: 'registry-json', raw: { registry: 'Verra', resourceIdentifier: String(p), resourceName: `Project ${p}` } },
      ]);
    }
    process.stderr.write(`index: ${totalChunks} chunks over ${projectCount} projects in ${(ms(started) / 1000).toFixed(1)} s\n`);

    const stores = { index, states, records, texts };
    const { search, summarizer } = await buildSearch(config, logger, stores, embedder);
    const countries = createCountryLookup();
    const services = {
      metadata: createMetadataService({ records, countries }),
      search,
      discovery: createDiscoveryService({ records, documents: states }),
      passages: createPassageService({ search, documents: states, texts }),
    };
    const mcpDeps = { config, ...services };
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(createMcpToolset(mcpDeps), logger).connect(serverSide);
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(clientSide);

    const app = createApp({ ...mcpDeps, logger, readiness: [] });
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const httpClient = new Client({ name: 'bench-http', version: '1' });
    await httpClient.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));

    const some = Array.from({ length: filter }, (_, i) => ({ projectId: 1 + Math.floor((i * projectCount) / filter), registry: 'Verra' }));
    const requested = some.map((p) => ({ ref: { registry: 'Verra', projectId: p.projectId }, requestedRegistry: 'Verra' }));
    const samples: Record<string, number[]> = {};
    const time = async (name: string, run: () => Promise<unknown>): Promise<void> => {
      const t = performance.now();
      await run();
      (samples[name] ??= []).push(ms(t));
    };
    let lastId = '';
    // One untimed round first: model worker and caches warm.
    for (let round = -1; round < requests; round++) {
      const question = QUESTIONS[(round + QUESTIONS.length) % QUESTIONS.length] ?? 'crediting period';
      const timed = round >= 0;
      const step = async (name: string, run: () => Promise<unknown>): Promise<void> => (timed ? time(name, run) : void (await run()));
      await step(`search service, ${filter} projects`, () => search.search({ projects: requested, query: question }));
      await step(`MCP ask, ${filter} projects (in process)`, () =>
        client.callTool({ name: 'ask', arguments: { projects: some, question } }),
      );
      await step(`HTTP POST batch-search, ${filter} projects`, () =>
        fetch(`${baseUrl}/projects-documents/batch-search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ projectList: some, query: question }),
        }).then((r) => r.json()),
      );
      await step(`HTTP POST /mcp ask, ${filter} projects`, () =>
        httpClient.callTool({ name: 'ask', arguments: { projects: some, question } }),
      );
      await step(`MCP search, all ${projectCount} projects`, async () => {
        const r = await client.callTool({ name: 'search', arguments: { query: question } });
        lastId = (r.structuredContent as { results: { id: string }[] }).results[0]?.id ?? lastId;
      });
      await step('MCP fetch', () => client.callTool({ name: 'fetch', arguments: { id: lastId } }));
    }
    process.stdout.write(
      `MCP tools on ${totalChunks} synthetic chunks over ${projectCount} projects, embedder ${embedder.id}, ${requests} requests each\n`,
    );
    for (const [name, values] of Object.entries(samples)) process.stdout.write(`${summary(name, values)}\n`);

    await client.close();
    await httpClient.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await summarizer.close();
    await index.close();
    await embedder.close();
  } finally {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
