import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

/**
 * Graceful shutdown of the real API process (issue 16.3 and 16.4): every request a client got to send before
 * SIGTERM is answered, and the process started by `npm start` is the one that stops.
 */

interface Started {
  child: ChildProcess;
  baseUrl: string;
  lines: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];
/** API processes below a spawned command, killed after each test in case the test failed before they stopped. */
const apiPids: number[] = [];
afterEach(() => {
  for (const pid of apiPids.splice(0)) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[k] !== undefined) base[k] = process.env[k];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'h16-shutdown-'));
  dirs.push(dataDir);
  return { ...base, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', DEMO_DATA: 'false', DATA_DIR: dataDir, ...env };
}

/** Spawns `command` and waits for the API's `listening` log line. */
async function start(command: string, args: string[], env: Record<string, string> = {}): Promise<Started> {
  const child = spawn(command, args, { cwd: repoRoot, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let j: Record<string, unknown>;
        try {
          j = JSON.parse(line) as Record<string, unknown>;
        } catch {
          continue; // npm's own lines
        }
        lines.push(j);
        if (j.msg === 'listening' && typeof j.port === 'number') {
          clearTimeout(timer);
          resolve(`http://127.0.0.1:${j.port}`);
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening: ${stderr}`));
    });
  });
  return { child, baseUrl, lines, exited };
}

interface Answer {
  status: number;
  body: string;
}

/** One request on its own connection; resolves with the answer, or with the socket error it met. */
function send(baseUrl: string, method: 'GET' | 'POST', p: string, body?: string): Promise<Answer | Error> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: p,
        method,
        agent: false,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', (err) => resolve(err));
      },
    );
    req.on('error', (err) => resolve(err));
    req.end(body);
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('SIGTERM with requests accepted but not yet read (issue 16.4)', () => {
  it('answers every request sent before SIGTERM, refuses new connections, then exits 0', async () => {
    const server = await start(process.execPath, ['--import', 'tsx', 'src/main.ts']);
    const pid = server.child.pid as number;
    // Stopped, the process cannot read anything: the kernel completes the connections and holds the requests, just
    // as it does for a server whose event loop is busy with other requests when SIGTERM arrives.
    process.kill(pid, 'SIGSTOP');
    const metadata = JSON.stringify({ projectId: 4086, registry: 'Verra' });
    const pending = Array.from({ length: 32 }, (_, i) =>
      i % 2 === 0 ? send(server.baseUrl, 'GET', '/healthz') : send(server.baseUrl, 'POST', '/project-documents/metadata', metadata),
    );
    await new Promise((r) => setTimeout(r, 300));
    process.kill(pid, 'SIGTERM');
    process.kill(pid, 'SIGCONT');
    const answers = await Promise.all(pending);
    const failed = answers.filter((a): a is Error => a instanceof Error).map((e) => e.message);
    expect(failed).toEqual([]);
    for (const [i, a] of answers.entries()) {
      expect((a as Answer).status).toBe(i % 2 === 0 ? 200 : 404);
      expect(() => JSON.parse((a as Answer).body) as unknown).not.toThrow();
    }
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    expect(await server.exited).toBe(0);
    expect(server.lines.map((l) => l.msg)).toContain('stopped');
  }, 60_000);
});

describe('`npm start` (issue 16.3)', () => {
  it('SIGTERM to the npm process stops the server: no process keeps serving', async () => {
    const server = await start('npm', ['start', '--silent']);
    const pid = server.lines.find((l) => l.msg === 'listening')?.pid as number;
    expect(typeof pid).toBe('number');
    apiPids.push(pid);
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    await server.exited;
    // The API process itself (npm's child, whatever lies between) has stopped, and nothing answers on its port.
    for (let i = 0; i < 100 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pidAlive(pid)).toBe(false);
    await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
    expect(server.lines.map((l) => l.msg)).toContain('stopped');
  }, 60_000);
});
