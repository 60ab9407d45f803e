import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';
import { serviceEnv } from '../support/processes.js';

/**
 * `npm run mcp` as an assistant runs it: spawned by the SDK's stdio client, on a fresh embedded store that the server
 * fills with the demo data itself (DEMO_DATA, as `npm start` does). Every stdout line must be a protocol message (the
 * client reports any other line as an error); the logs are on stderr.
 */

async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('npm run mcp over stdio', () => {
  let dataDir: string;
  let transport: StdioClientTransport;
  let client: Client;
  const stderr: string[] = [];
  const clientErrors: Error[] = [];

  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
  const logLines = (): Record<string, unknown>[] =>
    stderr
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-stdio-'));
    const env = serviceEnv({ DATA_DIR: dataDir, DEMO_DATA: 'true', EMBEDDER: 'use', PORT: '3999' });
    transport = new StdioClientTransport({
      command: 'npm',
      args: ['run', '--silent', 'mcp'],
      cwd: repoRoot,
      env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    client = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
    client.onerror = (err) => clientErrors.push(err);
    await client.connect(transport);
    // The server answers at once; the demo documents are indexed in the background.
    await until(() => logLines().some((l) => l.msg === 'demo documents indexed'), 200_000, 'the demo documents were not indexed');
  }, 240_000);

  afterAll(async () => {
    await client?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('names the five tools and logs to stderr only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ask', 'fetch', 'get_project', 'search', 'search_projects']);
    expect(logLines().some((l) => l.name === 'mcp' && l.msg === 'MCP server on stdio')).toBe(true);
    expect(clientErrors).toEqual([]);
  });

  it("returns the service's own data: a project found by a word, its record, a cited answer, a fetched passage", async () => {
    const found = await call('search_projects', { query: 'rice' });
    const projects = (found.structuredContent as { projects: { projectId: number; registry: string }[] }).projects;
    expect(projects.map((p) => p.projectId)).toEqual([900004]);

    const record = await call('get_project', { projectId: 900004, registry: 'Verra' });
    expect((record.structuredContent as { record: { name: string; location: string } }).record).toMatchObject({
      name: 'Sundara Rice Paddy Water Management (demo)',
    });

    const answer = await call('ask', {
      projects: [
        { projectId: 900001, registry: 'Verra' },
        { projectId: 900004, registry: 'Verra' },
      ],
      question: 'What did the validator find?',
      topK: 4,
    });
    const body = answer.structuredContent as {
      answered: boolean;
      citations: { documentTitle: string; page: number; quote: string; text: string; pageUri: string }[];
    };
    expect(body.answered).toBe(true);
    expect(body.citations).toHaveLength(4);
    const cited = body.citations[0];
    expect(cited?.pageUri).toMatch(/^http:\/\/localhost:3999\/demo\/documents\/[\w.-]+\.pdf#page=\d+$/);
    expect(cited?.text).toContain(cited?.quote);
    expect(textOf(answer)).toContain('Sources:\n[1] ');

    const search = await call('search', { query: 'validation findings corrective action requests' });
    const results = (JSON.parse(textOf(search)) as { results: { id: string; url: string }[] }).results;
    const top = results[0];
    if (!top) throw new Error('search found nothing');
    const passage = await call('fetch', { id: top.id });
    expect(passage.structuredContent).toMatchObject({ id: top.id, url: top.url });
    expect((passage.structuredContent as { text: string }).text.length).toBeGreaterThan(100);
  });

  it('answers a malformed call with an error result and keeps running', async () => {
    const bad = await call('search_projects', { limit: 'ten' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe('invalid_request: limit: must be a number');
    const alsoBad = await call('ask', { projects: [], question: 'What?' });
    expect(textOf(alsoBad)).toBe('invalid_request: projects: must list at least one project');
    const good = await call('search_projects', { query: 'wetland' });
    expect(good.isError).toBeFalsy();
    expect(clientErrors).toEqual([]);
  });

  it('ends when the client closes the session', async () => {
    const pid = transport.pid;
    expect(pid).not.toBeNull();
    await client.close();
    const alive = (): boolean => {
      try {
        process.kill(pid ?? -1, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 15_000, interval: 100 }).toBe(false);
    expect(logLines().some((l) => l.msg === 'shutting down')).toBe(true);
  });
});

describe('npm run mcp given a line that is not JSON-RPC', () => {
  it('logs it on stderr, answers the next messages, and writes only protocol messages to stdout', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'mcp-stdio-raw-'));
    const child = spawn('npm', ['run', '--silent', 'mcp'], {
      cwd: repoRoot,
      env: serviceEnv({ DATA_DIR: dataDir, DEMO_DATA: 'false', EMBEDDER: 'use' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const send = (message: unknown): boolean => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
      send('this is not json');
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'get_project', arguments: { projectId: 'x', registry: 'Verra' } },
      });
      await until(() => stdout.includes('"id":2'), 120_000, 'no answer to the tool call');
      const lines = stdout.split('\n').filter((l) => l !== '');
      const messages = lines.map((l) => JSON.parse(l) as { jsonrpc: string; id: number; result: { isError?: boolean } });
      for (const m of messages) expect(m.jsonrpc).toBe('2.0');
      expect(messages.map((m) => m.id)).toEqual([1, 2]);
      expect(messages[1]?.result.isError).toBe(true);
      expect(stderr).toMatch(/"msg":"MCP protocol error"/);
      child.stdin.end();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
