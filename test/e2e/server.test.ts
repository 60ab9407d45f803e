import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath, repoRoot } from '../support/corpus.js';

const TSX = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const EVAL_RECORDS = corpusPath('records', 'eval-projects.raw.jsonl');

interface Started {
  child: ChildProcessWithoutNullStreams;
  baseUrl: string;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

/** Environment for a child: the test's own variables stripped of anything the service reads, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS']) if (process.env[k] !== undefined) base[k] = process.env[k];
  return { ...base, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env };
}

/** Starts `tsx src/main.ts` and waits for its `listening` log line (PORT=0: the OS picks a free port). */
async function startServer(env: Record<string, string>): Promise<Started> {
  const child = spawn(TSX, ['src/main.ts'], { cwd: repoRoot, env: childEnv(env) });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr.join('')}`)), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        stdout.push(line);
        try {
          const j = JSON.parse(line) as { msg?: string; port?: number };
          if (j.msg === 'listening' && typeof j.port === 'number') {
            clearTimeout(timer);
            resolve(`http://127.0.0.1:${j.port}`);
          }
        } catch {
          // not a log line
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening: ${stderr.join('')}`));
    });
  });
  return { child, baseUrl, stdout, stderr, exited };
}

/** Runs a command to completion, collecting its output. */
function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(TSX, args, { cwd: repoRoot, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

async function post(baseUrl: string, p: string, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}${p}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

const evalRecords = readFileSync(EVAL_RECORDS, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { registry: string; resourceIdentifier: string });

describe('the API process with a worker importing beside it', () => {
  let dataDir: string;
  let server: Started;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'h3-e2e-'));
    server = await startServer({ DATA_DIR: dataDir, DEMO_DATA: 'false' });
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves health checks and a 404 for a project not yet imported', async () => {
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
    const res = await post(server.baseUrl, '/project-documents/metadata', { projectId: 5533, registry: 'Verra' });
    expect(res.status).toBe(404);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('sees records imported by the ingest CLI while it runs, without a restart', async () => {
    const imported = await run(['ingest/main.ts', '--records', EVAL_RECORDS, '--no-documents'], {
      DATA_DIR: dataDir,
      DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
    });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/7 inserted/);

    const one = await post(server.baseUrl, '/project-documents/metadata', { projectId: '5533', registry: 'verra' });
    expect(one.status).toBe(200);
    const cleaned = (await one.json()) as { resourceIdentifier: number; registry: string; location: string };
    expect(cleaned).toMatchObject({ resourceIdentifier: 5533, registry: 'verra', location: 'India' });

    const list = evalRecords.map((r) => ({ project_id: r.resourceIdentifier, registry: r.registry }));
    const batch = await post(server.baseUrl, '/project-documents/batch-metadata', { projectList: list, raw: true });
    expect(batch.status).toBe(200);
    const text = await batch.text();
    const positions = evalRecords.map((r) => text.indexOf(`"${r.resourceIdentifier}":{`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const byId = JSON.parse(text) as Record<string, unknown>;
    for (const r of evalRecords) expect(byId[r.resourceIdentifier]).toEqual(r);
  });

  it('logs each request as a JSON line with its request id', async () => {
    const res = await fetch(`${server.baseUrl}/healthz`, { headers: { 'X-Request-Id': 'e2e-probe-1' } });
    expect(res.headers.get('x-request-id')).toBe('e2e-probe-1');
    await new Promise((r) => setTimeout(r, 200));
    const line = server.stdout.map((l) => JSON.parse(l) as Record<string, unknown>).find((j) => j.requestId === 'e2e-probe-1');
    expect(line).toMatchObject({ msg: 'request', method: 'GET', path: '/healthz', status: 200 });
  });

  it('on SIGTERM finishes the request in flight, refuses new connections, and exits 0 after closing its stores', async () => {
    // A request whose body is only half sent when SIGTERM arrives: it must still be answered.
    const url = new URL(`${server.baseUrl}/project-documents/metadata`);
    const body = JSON.stringify({ projectId: 5533, registry: 'Verra' });
    const inFlight = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 700);
      }, 300);
    });
    const started = Date.now();
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.text)).toMatchObject({ resourceIdentifier: 5533 });
    // Once shutting down, the listening socket is closed: a new connection is refused.
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    const answeredAt = Date.now();
    const code = await server.exited;
    expect(code).toBe(0);
    // Keep-alive sockets (the one just answered too) do not hold the shutdown up until their 5 s keep-alive timeout.
    expect(Date.now() - answeredAt).toBeLessThan(3000);
    expect(answeredAt - started).toBeLessThan(5000);
    const lines = server.stdout.map((l) => JSON.parse(l) as { msg?: string });
    const msgs = lines.map((l) => l.msg);
    expect(msgs).toContain('stopped');
    expect(msgs.indexOf('stopped')).toBeGreaterThan(msgs.lastIndexOf('request'));
  });
});

describe('configuration errors', () => {
  for (const [name, value] of [
    ['PORT', 'not-a-port'],
    ['MAX_BATCH_PROJECTS', '0'],
    ['DATABASE_URL', 'mysql://localhost/db'],
  ] as const) {
    it(`exits 1 naming ${name} when it is ${JSON.stringify(value)}, without a stack trace`, async () => {
      const r = await run(['src/main.ts'], { [name]: value, DEMO_DATA: 'false', DATA_DIR: path.join(tmpdir(), 'h3-never-created') });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(name);
      expect(r.stderr).toContain(JSON.stringify(value));
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }
});

describe('demo data', () => {
  const demoRecords = path.join(repoRoot, 'demo', 'records.jsonl');
  let dataDir: string;
  let server: Started | undefined;
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('loads demo/records.jsonl into an empty store, with document links served by the API itself', async () => {
    expect(existsSync(demoRecords), 'demo/records.jsonl is missing').toBe(true);
    dataDir = mkdtempSync(path.join(tmpdir(), 'h3-demo-'));
    server = await startServer({ DATA_DIR: dataDir, DEMO_DATA: 'true' });
    const started = server;
    // Listening, but the demo is not indexed yet: not ready, and saying why.
    const waiting = await fetch(`${started.baseUrl}/readyz`);
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get('retry-after')).toBe('5');
    expect(((await waiting.json()) as { error: { message: string } }).error.message).toMatch(/demo documents are being indexed/);
    const first = JSON.parse(readFileSync(demoRecords, 'utf8').split('\n')[0] ?? '{}') as { registry: string; resourceIdentifier: string };
    // Demo data is loaded just after listening; wait for its log line.
    for (let i = 0; i < 50 && !started.stdout.some((l) => l.includes('demo data loaded')); i++)
      await new Promise((r) => setTimeout(r, 100));
    const res = await post(started.baseUrl, '/project-documents/metadata', {
      projectId: first.resourceIdentifier,
      registry: first.registry,
    });
    expect(res.status).toBe(200);
    const cleaned = (await res.json()) as { documentGroups: Array<{ documents: Array<{ uri: string }> }> };
    const uris = cleaned.documentGroups.flatMap((g) => g.documents.map((d) => d.uri));
    expect(uris.length).toBeGreaterThan(0);
    const port = new URL(started.baseUrl).port;
    for (const uri of uris) {
      expect(uri).toMatch(new RegExp(`^http://localhost:${port}/demo/documents/[^/]+\\.pdf$`));
      const pdf = await fetch(uri.replace('localhost', '127.0.0.1'));
      expect(pdf.status, uri).toBe(200);
      expect(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
    }
  });

  it('/readyz answers ready once the demo documents are indexed, and the search example of docs/api.md then answers as it shows', async () => {
    const started = server;
    if (!started) throw new Error('the server of the previous test did not start');
    await expect
      .poll(() => started.stdout.some((l) => l.includes('"demo documents indexed"')), { timeout: 170_000, interval: 250 })
      .toBe(true);
    const ready = await fetch(`${started.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks['demo documents']).toBe('ok');
    // The search example of docs/api.md, as it shows it answered.
    const res = await post(started.baseUrl, '/projects-documents/batch-search', {
      projectList: [
        { project_id: 900001, registry: 'Verra' },
        { project_id: 900004, registry: 'Verra' },
      ],
      query: 'What did the validator find?',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { answered: boolean; answer: string; citations: unknown[] };
    expect(body.citations.length).toBe(8);
    expect(body.answered).toBe(true);
    expect(body.answer).toBe('Verra 900001: All findings are closed [1].');
    // The perProject example of docs/api.md: each project's answer names its proponent as its documents do, or says they
    // do not (900004's record names a proponent its documents never mention).
    const perProject = await post(started.baseUrl, '/projects-documents/batch-search', {
      projectList: [900001, 900002, 900004].map((id) => ({ project_id: id, registry: 'Verra' })),
      query: 'Who is the project proponent?',
      perProject: true,
    });
    expect(perProject.status).toBe(200);
    const each = ((await perProject.json()) as { projects: { projectId: number; answered: boolean; answer: string }[] }).projects;
    expect(each.map((p) => p.answered)).toEqual([true, true, false]);
    expect(each[0]?.answer).toContain('The sole project proponent is Fundacion Cuenca Viva');
    expect(each[1]?.answer).toMatch(/^The project is developed jointly by three proponents: Kisaru Clean Energy Ltd/);
    expect(each[2]?.answer).toMatch(/^The indexed documents of Verra 900004 do not appear to answer this question/);
    // Without perProject, one answer gives the best-scoring statements, whichever projects make them.
    const batch = await post(started.baseUrl, '/projects-documents/batch-search', {
      projectList: [900001, 900002, 900003, 900004, 900005].map((id) => ({ project_id: id, registry: 'Verra' })),
      query: 'Who is the project proponent?',
    });
    expect(batch.status).toBe(200);
    const one = ((await batch.json()) as { answer: string }).answer;
    for (const named of [
      'Verra 900001: The sole project proponent is Fundacion Cuenca Viva',
      'Verra 900003: The proponent is the Prairie Marsh Trust of Winnipeg',
      'Verra 900005: The proponent is Corredor Verde S.A. of Asuncion',
    ]) {
      expect(one).toContain(named);
    }
  }, 180_000);
});
