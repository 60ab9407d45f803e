import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../ingest/demo.js';
import { loadConfig, type Config } from '../../src/config.js';
import { buildDeps, buildDownloader, demoDir, type ApiDeps } from '../../src/deps.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { createMcpServer, createMcpToolset } from '../../src/mcp/server.js';

/**
 * The MCP server in process, with the SDK's own client over its in-memory transport, on the demo data indexed by the
 * worker's real pipeline (seedDemo) into a fresh embedded store: the tools return the service's data, bad calls are
 * error results carrying the HTTP API's messages, and passage ids survive a restart.
 */

const logger = createLogger({ level: 'silent', name: 'mcp-test' });

interface Citation {
  id: number;
  projectId: number;
  documentTitle: string;
  documentType: string;
  page: number;
  text: string;
  quote: string;
  uri: string;
  pageUri: string;
}

async function connect(deps: ApiDeps): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(createMcpToolset(deps), logger).connect(serverSide);
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** seedDemo's arguments as src/main.ts builds them (the demo documents are all in the repository's demo folder). */
function demoArgs(deps: ApiDeps, config: Config): Parameters<typeof seedDemo> {
  return [
    { ...deps.stores, embedder: deps.embedder, summarizer: deps.summarizer, countries: deps.countries },
    { baseUrl: 'http://127.0.0.1:3999', demoDir, downloader: buildDownloader(config), logger, signal: new AbortController().signal },
  ];
}

describe('MCP server in process on the demo data', () => {
  let dataDir: string;
  let config: Config;
  let deps: ApiDeps;
  let client: Client;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-server-'));
    config = loadConfig({ DATA_DIR: dataDir, DEMO_DATA: 'false', EMBEDDER: 'use', LOG_LEVEL: 'silent' });
    deps = await buildDeps(config, logger);
    await (
      await seedDemo(...demoArgs(deps, config))
    ).indexing;
    client = await connect(deps);
  }, 240_000);

  afterAll(async () => {
    await client?.close();
    await deps?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** What the HTTP API answers for the same request: status and error message. */
  async function httpError(p: string, body: unknown): Promise<{ status: number; message: string }> {
    const res = await createApp(deps).request(p, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, message: ((await res.json()) as { error: { message: string } }).error.message };
  }

  it('lists the five tools, each with a description and input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_projects', 'get_project', 'ask', 'search', 'fetch']);
    for (const t of tools) {
      expect(t.description?.length).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    const ask = tools.find((t) => t.name === 'ask');
    expect(ask?.inputSchema.required).toEqual(['projects', 'question']);
    // The fields carry the words the HTTP routes document them with.
    const searchProjects = tools.find((t) => t.name === 'search_projects');
    expect((searchProjects?.inputSchema.properties?.query as { description?: string }).description).toMatch(/case and accents are ignored/);
  });

  it('search_projects finds a project by a word, with its indexed documents', async () => {
    const result = await call(client, 'search_projects', { query: 'cookstoves' });
    expect(result.isError).toBeFalsy();
    const found = result.structuredContent as { projects: { projectId: number; name: string; indexedDocuments: number }[]; total: number };
    expect(found.total).toBe(1);
    expect(found.projects[0]).toMatchObject({ projectId: 900002, registry: 'Verra' });
    expect(found.projects[0]?.indexedDocuments).toBe(1);
    expect(textOf(result)).toContain(`${found.projects[0]?.name} (Verra 900002`);
  });

  it('get_project returns the cleaned record, and the raw one on request', async () => {
    const cleaned = await call(client, 'get_project', { projectId: 900001, registry: 'verra' });
    const body = cleaned.structuredContent as { registry: string; raw: boolean; record: Record<string, unknown> };
    expect(body.registry).toBe('verra');
    expect(body.raw).toBe(false);
    expect(body.record).toMatchObject({
      name: 'Rio Verde Valley Agroforestry Restoration (demo)',
      registry: 'verra',
      resourceIdentifier: 900001,
    });
    expect(body.record.location).toBe('Colombia');
    expect(textOf(cleaned)).toMatch(/^Rio Verde Valley Agroforestry Restoration \(demo\) \(verra 900001\)\nLocation: Colombia/);

    const raw = await call(client, 'get_project', { projectId: '900001', registry: 'Verra', raw: true });
    expect((raw.structuredContent as { record: Record<string, unknown> }).record).toMatchObject({ resourceIdentifier: '900001' });
  });

  it('ask answers with citations giving document, type, page, verbatim quote and the link to the page', async () => {
    const result = await call(client, 'ask', {
      projects: [{ projectId: 900001, registry: 'Verra' }],
      question: 'What did the validator find?',
    });
    expect(result.isError).toBeFalsy();
    const answer = result.structuredContent as { answer: string; answered: boolean; citations: Citation[]; projects: unknown[] };
    expect(answer.answered).toBe(true);
    expect(answer.answer).toContain('All findings are closed');
    const cited = answer.citations.find((c) => c.documentTitle === 'VAL_900001_rio_verde_agroforestry.pdf' && c.page === 2);
    expect(cited, JSON.stringify(answer.citations.map((c) => [c.documentTitle, c.page]))).toBeDefined();
    for (const c of answer.citations) {
      expect(c.text).toContain(c.quote);
      expect(c.pageUri).toBe(`${c.uri}#page=${c.page}`);
      expect(c.documentType).not.toBe('');
    }
    expect(answer.projects).toEqual([{ projectId: 900001, registry: 'Verra', indexedDocuments: 2 }]);
    expect(textOf(result)).toContain(`VAL_900001_rio_verde_agroforestry.pdf (${cited?.documentType}), page 2, Verra 900001`);
  });

  it('search returns passage ids across all projects that fetch reads back', async () => {
    const result = await call(client, 'search', { query: 'improved cookstoves firewood' });
    const found = JSON.parse(textOf(result)) as { results: { id: string; title: string; url: string }[] };
    expect(found).toEqual(result.structuredContent);
    expect(found.results.length).toBeGreaterThan(0);
    expect(found.results.length).toBeLessThanOrEqual(10);
    const top = found.results[0];
    expect(top?.id).toMatch(/^verra:900002:[0-9a-f]{32}:\d+$/);
    expect(top?.title).toMatch(/^PD_DRAFT_900002_kisaru_cookstoves\.pdf, page \d+ \(Verra 900002\)$/);
    // Several projects' passages are searched: a rice project's query finds the rice project.
    const rice = await call(client, 'search', { query: 'rice paddies methane' });
    const riceIds = (rice.structuredContent as { results: { id: string }[] }).results.map((r) => r.id);
    expect(riceIds[0]).toMatch(/^verra:900004:/);

    const fetched = await call(client, 'fetch', { id: top?.id });
    expect(fetched.isError).toBeFalsy();
    const passage = fetched.structuredContent as {
      id: string;
      title: string;
      text: string;
      url: string;
      metadata: Record<string, unknown>;
    };
    expect(JSON.parse(textOf(fetched))).toEqual(passage);
    expect(passage.id).toBe(top?.id);
    expect(passage.title).toBe(top?.title);
    expect(passage.url).toBe(top?.url);
    expect(passage.text.toLowerCase()).toContain('cookstove');
    expect(passage.metadata).toMatchObject({
      registry: 'Verra',
      projectId: 900002,
      documentTitle: 'PD_DRAFT_900002_kisaru_cookstoves.pdf',
    });
    expect(passage.url).toBe(`${String(passage.metadata.uri)}#page=${String(passage.metadata.page)}`);
  });

  it('answers a malformed call with an error result carrying the HTTP API message, and keeps answering', async () => {
    const bad = await call(client, 'get_project', { projectId: 'abc', registry: 'Verra' });
    expect(bad.isError).toBe(true);
    const http = await httpError('/project-documents/metadata', { projectId: 'abc', registry: 'Verra' });
    expect(http.status).toBe(400);
    expect(textOf(bad)).toBe(`invalid_request: ${http.message}`);

    const noQuestion = await call(client, 'ask', { projects: [{ projectId: 900001, registry: 'Verra' }], question: '   ' });
    expect(noQuestion.isError).toBe(true);
    expect(textOf(noQuestion)).toBe('invalid_request: question: must not be empty');

    const unknownRegistry = await call(client, 'ask', { projects: [{ projectId: 1, registry: 'Nowhere' }], question: 'What?' });
    expect(textOf(unknownRegistry)).toMatch(/^unknown_registry: projects\.0\.registry: unknown registry "Nowhere"; known: Verra/);

    const badFetch = await call(client, 'fetch', { id: 'not-an-id' });
    expect(badFetch.isError).toBe(true);
    expect(textOf(badFetch)).toMatch(/^invalid_request: id: "not-an-id" is not a passage id given by search/);

    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/unknown tool "no_such_tool"/);

    const after = await call(client, 'search_projects', { query: 'wetland' });
    expect((after.structuredContent as { projects: { projectId: number }[] }).projects.map((p) => p.projectId)).toEqual([900003]);
  });

  it('says clearly that a project is unknown, with the message of the HTTP API', async () => {
    const result = await call(client, 'get_project', { projectId: 4242, registry: 'Verra' });
    expect(result.isError).toBe(true);
    const http = await httpError('/project-documents/metadata', { projectId: 4242, registry: 'Verra' });
    expect(http.status).toBe(404);
    expect(textOf(result)).toBe(`not_found: ${http.message}`);
    expect(textOf(result)).toBe('not_found: no project 4242 in registry "Verra"');

    const gone = await call(client, 'fetch', { id: `verra:4242:${'0'.repeat(32)}:1` });
    expect(textOf(gone)).toMatch(/^not_found: no indexed passage verra:4242:0{32}:1: Verra 4242 has no such indexed document/);
  });

  it('gives the same passage ids after a restart and a re-ingest of the unchanged documents', async () => {
    const query = 'What are the emission reductions of the wetland project?';
    const before = (await call(client, 'search', { query })).structuredContent as { results: { id: string }[] };
    await client.close();
    await deps.close();

    deps = await buildDeps(config, logger);
    // A later start indexes the demo projects again; their unchanged documents keep their ids.
    await (
      await seedDemo(...demoArgs(deps, config))
    ).indexing;
    client = await connect(deps);
    const after = (await call(client, 'search', { query })).structuredContent as { results: { id: string }[] };
    expect(after.results.map((r) => r.id)).toEqual(before.results.map((r) => r.id));
    const first = before.results[0];
    if (!first) throw new Error('the search found nothing');
    expect((await call(client, 'fetch', { id: first.id })).isError).toBeFalsy();
  });
});
