import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildDownloader, buildIngestDeps, buildPdfExtractor } from '../../../ingest/deps.js';
import { runIngest } from '../../../ingest/pipeline.js';
import { loadConfig } from '../../../src/config.js';
import { buildDeps, type ApiDeps } from '../../../src/deps.js';
import { createApp } from '../../../src/http/app.js';
import { startHttpServer, type HttpServer } from '../../../src/http/server.js';
import { createLogger } from '../../../src/logger.js';
import { corpusAvailable, corpusPath } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';
import { startStaticServer, type StaticServer } from '../../support/static-server.js';

/**
 * POST /mcp on the API process, over a real HTTP exchange with the SDK's Streamable HTTP client, on a real PDF of the
 * shared corpus ingested by the worker's pipeline (the registration request form of the GFL HFC-23 project; the
 * question and page are dev-022 of ../shared/corpus/qa-dev.jsonl). API keys are on: the path needs one like any other.
 */

const FORM = 'CDM_GFL-HFC23_registration_request_form.pdf';
const PROJECT = 990101;
const KEY = 'mcp-test-key-0123456789';
const logger = createLogger({ level: 'silent', name: 'mcp-http-test' });

function record(base: string) {
  return {
    registry: 'Verra',
    resourceIdentifier: String(PROJECT),
    resourceName: 'GFL HFC-23 decomposition (MCP test)',
    description: 'HFC-23 decomposition at a refrigerant plant; test record over a corpus PDF.',
    attributes: [],
    participationSummaries: [],
    documentGroups: [
      {
        code: 'VCS_REGISTRATION_DOCUMENTS',
        description: 'VCS Registration Documents',
        documents: [
          {
            documentName: FORM,
            documentType: 'Registration Representation',
            uploadDate: '2025-01-01T00:00:00.000Z',
            uri: `${base}/pdf/${FORM}`,
          },
        ],
      },
    ],
    childResources: [],
  };
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describeWithService(
  'MCP over POST /mcp on a corpus PDF',
  { available: corpusAvailable, why: `corpus not found at ${corpusPath()}` },
  () => {
    let dataDir: string;
    let files: StaticServer;
    let deps: ApiDeps;
    let http: HttpServer;
    let url: URL;
    const clients: Client[] = [];

    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-http-'));
      files = await startStaticServer({ root: corpusPath('pdf'), mount: '/pdf' });
      const config = loadConfig({
        DATA_DIR: dataDir,
        DEMO_DATA: 'false',
        EMBEDDER: 'use',
        DOWNLOAD_ALLOW_HOSTS: files.hostPort,
        LOG_LEVEL: 'silent',
        API_KEYS: KEY,
      });
      const ingest = await buildIngestDeps(config, logger);
      try {
        await ingest.records.upsert([
          { ref: { registry: 'Verra', projectId: PROJECT }, format: 'registry-json', raw: record(files.baseUrl) },
        ]);
        const extractor = buildPdfExtractor(config);
        const summary = await runIngest({
          deps: ingest,
          projects: [{ registry: 'Verra', projectId: PROJECT }],
          logger,
          downloader: buildDownloader(config),
          extractor,
        }).finally(() => extractor.close());
        expect(summary.failures).toEqual([]);
        expect(summary.documents.indexed).toBe(1);
      } finally {
        await ingest.close();
      }
      // The API as src/main.ts composes it, on the store the worker filled.
      deps = await buildDeps(config, logger);
      http = await startHttpServer(createApp(deps).fetch, {
        port: 0,
        hostname: '127.0.0.1',
        maxConnections: 64,
        perAddressShare: 1,
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 60_000,
        keepAliveTimeoutMs: 5_000,
        logger,
      });
      url = new URL(`http://127.0.0.1:${http.address.port}/mcp`);
    }, 180_000);

    afterAll(async () => {
      for (const c of clients) await c.close();
      await http?.drain(1000);
      await deps?.close();
      await files?.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    async function connect(headers: Record<string, string>): Promise<Client> {
      const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      clients.push(client);
      return client;
    }

    const call = async (client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;

    it('refuses a client without a key, or with a wrong one, with the API 401', async () => {
      await expect(connect({})).rejects.toMatchObject({ code: 401, message: expect.stringContaining('"code":"unauthorized"') });
      await expect(connect({ Authorization: 'Bearer wrong-key' })).rejects.toMatchObject({
        code: 401,
        message: expect.stringContaining('the API key is not valid'),
      });
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    });

    it("with a key, returns the service's own data: the project by a word, its record, a cited answer on its page", async () => {
      const client = await connect({ Authorization: `Bearer ${KEY}` });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_projects', 'get_project', 'ask', 'search', 'fetch']);

      const found = await call(client, 'search_projects', { query: 'decomposition' });
      expect((found.structuredContent as { projects: unknown[] }).projects).toEqual([
        expect.objectContaining({ projectId: PROJECT, registry: 'Verra', indexedDocuments: 1 }),
      ]);

      const project = await call(client, 'get_project', { projectId: PROJECT, registry: 'VCS' });
      const cleaned = (project.structuredContent as { record: { name: string; documentGroups: { documents: { title: string }[] }[] } })
        .record;
      expect(cleaned.name).toBe('GFL HFC-23 decomposition (MCP test)');
      expect(cleaned.documentGroups.flatMap((g) => g.documents.map((d) => d.title))).toEqual([FORM]);

      const asked = await call(client, 'ask', {
        projects: [{ projectId: PROJECT, registry: 'VCS' }],
        question: 'What validation opinion number did SGS give in the F-CDM-REG registration request for the GFL HFC-23 project?',
        topK: 5,
      });
      const answer = asked.structuredContent as {
        answered: boolean;
        citations: { documentTitle: string; page: number; text: string; quote: string; pageUri: string }[];
      };
      const hit = answer.citations.find((c) => c.documentTitle === FORM && c.page === 10);
      expect(hit, JSON.stringify(answer.citations.map((c) => [c.documentTitle, c.page]))).toBeDefined();
      expect(hit?.text).toContain('102154/01/05');
      expect(hit?.text).toContain(hit?.quote);
      expect(hit?.pageUri).toBe(`${files.baseUrl}/pdf/${FORM}#page=10`);
    });

    it('search over every project finds the page, and fetch reads it by the id (X-API-Key accepted too)', async () => {
      const client = await connect({ 'X-API-Key': KEY });
      const search = await call(client, 'search', { query: 'SGS validation opinion 102154/01/05' });
      const results = (search.structuredContent as { results: { id: string; title: string; url: string }[] }).results;
      const page10 = results.find((r) => r.url.endsWith('#page=10'));
      expect(page10, JSON.stringify(results)).toBeDefined();
      expect(page10?.title).toBe(`${FORM}, page 10 (Verra ${PROJECT})`);
      const fetched = await call(client, 'fetch', { id: page10?.id });
      const passage = fetched.structuredContent as { id: string; text: string; metadata: { documentType: string; pages: number } };
      expect(passage.id).toBe(page10?.id);
      expect(passage.text).toContain('102154/01/05');
      expect(passage.metadata.documentType).toBe('Registration Representation');
      expect(passage.metadata.pages).toBeGreaterThanOrEqual(10);
    });

    it('answers a malformed call with an error result, and the next call normally', async () => {
      const client = await connect({ Authorization: `Bearer ${KEY}` });
      const bad = await call(client, 'ask', { projects: [{ projectId: -3, registry: 'Verra' }], question: 'Who validated it?' });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/^invalid_request: projects\.0\.projectId: /);
      const missing = await call(client, 'get_project', { registry: 'Verra' });
      expect(textOf(missing)).toBe('invalid_request: body: a project id is required (as project_id, projectId or id)');
      const good = await call(client, 'get_project', { projectId: PROJECT, registry: 'Verra' });
      expect(good.isError).toBeFalsy();
    });

    it('answers other methods on /mcp with 405 and a body that is not JSON with 415, as the rest of the API', async () => {
      const get = await fetch(url, { headers: { authorization: `Bearer ${KEY}`, accept: 'text/event-stream' } });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      const text = await fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'text/plain' },
        body: 'hi',
      });
      expect(text.status).toBe(415);
      expect(((await text.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
    });
  },
);
