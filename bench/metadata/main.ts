/**
 * Metadata API throughput and latency against the real server (`tsx src/main.ts` as a child process, embedded SQLite,
 * JSON logs at info to a file), beside a bare Hono hello-world server and a bare Hono route returning the stored record
 * bytes from the same SQLite file (stored-bytes-server.ts: the limit of this stack), measured in the same run.
 *
 *   npx tsx bench/metadata/main.ts [--duration 10] [--connections 10]
 *
 * The store holds 100 copies of the real Verra 4086 record (ids 910001..910100). Load comes from the autocannon CLI
 * in its own process. Prints one JSON line per scenario and a markdown table for bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' } },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
if (!Number.isInteger(duration) || duration < 1) throw new Error(`--duration must be a whole number of seconds (got ${values.duration})`);
if (!Number.isInteger(connections) || connections < 1)
  throw new Error(`--connections must be a positive integer (got ${values.connections})`);

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const autocannonBin = path.join(repoRoot, 'node_modules', '.bin', 'autocannon');
const work = mkdtempSync(path.join(tmpdir(), 'bench-metadata-'));
const FIRST_ID = 910001;
const PROJECTS = 100;

async function seed(dataDir: string): Promise<void> {
  const sample = JSON.parse(readFileSync(path.resolve(repoRoot, '../shared/corpus/records/verra_4086_raw.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const db = openSqlite({ dataDir });
  const store = await createSqliteRecordStore({ db });
  await store.upsert(
    Array.from({ length: PROJECTS }, (_, i) => ({
      ref: { registry: 'Verra', projectId: FIRST_ID + i },
      format: 'registry-json' as const,
      raw: { ...sample, registry: 'Verra', resourceIdentifier: String(FIRST_ID + i) },
    })),
  );
  await store.close();
  db.close();
}

/** Spawns a server and resolves with its port, read from the first stdout line carrying one. */
function startChild(args: string[], env: NodeJS.ProcessEnv, logFile?: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
    const log = logFile === undefined ? undefined : createWriteStream(logFile);
    let buf = '';
    let found = false;
    child.stdout?.on('data', (d: Buffer) => {
      log?.write(d);
      if (found) return;
      buf += d.toString();
      for (const line of buf.split('\n')) {
        try {
          const j = JSON.parse(line) as { port?: number };
          if (typeof j.port === 'number') {
            found = true;
            resolve({ child, port: j.port });
            return;
          }
        } catch {
          // partial line or not JSON
        }
      }
    });
    child.once('exit', (code) => {
      if (!found) reject(new Error(`${args.join(' ')} exited with ${code} before listening`));
    });
  });
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  throughput: { average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

function autocannon(url: string, opts: { method: 'GET' | 'POST'; body?: string; connections: number }): Promise<AutocannonResult> {
  const args = ['-j', '-c', String(opts.connections), '-d', String(duration), '-m', opts.method, '-W', '[', '-c', '1', '-d', '2', ']'];
  if (opts.body !== undefined) {
    const file = path.join(work, `body-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, opts.body);
    args.push('-H', 'Content-Type=application/json', '-i', file);
  }
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(autocannonBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${err}`));
      try {
        // With a warmup, the CLI prints the warmup's result first; the measured run is the last line.
        const last = out.trim().split('\n').pop() ?? '';
        resolve(JSON.parse(last) as AutocannonResult);
      } catch {
        reject(new Error(`autocannon printed no JSON: ${out.slice(0, 200)} ${err.slice(0, 200)}`));
      }
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const dataDir = path.join(work, 'data');
  await seed(dataDir);
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  const api = await startChild(
    ['src/main.ts'],
    { ...baseEnv, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO_DATA: 'false', LOG_LEVEL: 'info', MAX_BATCH_PROJECTS: '100' },
    path.join(work, 'api.log'),
  );
  const hello = await startChild(['bench/metadata/hello-server.ts'], baseEnv);
  const stored = await startChild(['bench/metadata/stored-bytes-server.ts'], { ...baseEnv, DATA_DIR: dataDir });
  const apiUrl = `http://127.0.0.1:${api.port}`;
  const batch100 = JSON.stringify({
    projectList: Array.from({ length: PROJECTS }, (_, i) => ({ project_id: FIRST_ID + i, registry: 'Verra' })),
  });

  const scenarios: Array<{ name: string; url: string; method: 'GET' | 'POST'; body?: string; connections: number }> = [
    { name: 'hello-world GET (bare Hono)', url: `http://127.0.0.1:${hello.port}/hello`, method: 'GET', connections },
    {
      name: 'stored bytes from SQLite (bare Hono)',
      url: `http://127.0.0.1:${stored.port}/project-documents/metadata`,
      method: 'POST',
      body: JSON.stringify({ projectId: FIRST_ID, registry: 'Verra' }),
      connections,
    },
    {
      name: 'metadata, cleaned',
      url: `${apiUrl}/project-documents/metadata`,
      method: 'POST',
      body: JSON.stringify({ projectId: FIRST_ID, registry: 'Verra' }),
      connections,
    },
    {
      name: 'metadata, raw',
      url: `${apiUrl}/project-documents/metadata`,
      method: 'POST',
      body: JSON.stringify({ projectId: FIRST_ID, registry: 'Verra', raw: true }),
      connections,
    },
    {
      name: 'batch-metadata x100, 1 connection',
      url: `${apiUrl}/project-documents/batch-metadata`,
      method: 'POST',
      body: batch100,
      connections: 1,
    },
    {
      name: `batch-metadata x100, ${connections} connections`,
      url: `${apiUrl}/project-documents/batch-metadata`,
      method: 'POST',
      body: batch100,
      connections,
    },
  ];

  const rows: string[] = [];
  const results = new Map<string, { reqPerSec: number; p50Ms: number }>();
  try {
    for (const s of scenarios) {
      const r = await autocannon(s.url, s);
      const line = {
        scenario: s.name,
        connections: s.connections,
        durationS: duration,
        reqPerSec: Math.round(r.requests.average),
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        maxMs: r.latency.max,
        mbPerSec: Math.round((r.throughput.average / 1e6) * 10) / 10,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      };
      console.log(JSON.stringify(line));
      results.set(s.name, line);
      rows.push(
        `| ${s.name} | ${s.connections} | ${line.reqPerSec} | ${line.p50Ms} | ${line.p99Ms} | ${line.mbPerSec} | ${line.non2xx + line.errors} |`,
      );
    }
  } finally {
    await stop(api.child);
    await stop(hello.child);
    await stop(stored.child);
    rmSync(work, { recursive: true, force: true });
  }
  console.log('\n| scenario | connections | req/s | p50 ms | p99 ms | MB/s | non-2xx + errors |\n|---|---|---|---|---|---|---|');
  console.log(rows.join('\n'));
  const cleaned = results.get('metadata, cleaned');
  const limit = results.get('stored bytes from SQLite (bare Hono)');
  if (cleaned !== undefined && limit !== undefined) {
    // Goal (issue 16.14): the service's cleaned record at >= 0.7 of the bare route serving the stored bytes.
    console.log(`\ncleaned / stored bytes: ${(cleaned.reqPerSec / limit.reqPerSec).toFixed(2)} (goal >= 0.70)`);
  }
  const batch = results.get('batch-metadata x100, 1 connection');
  if (batch !== undefined) console.log(`batch of 100, 1 connection: p50 ${batch.p50Ms} ms (goal <= 10 ms)`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
});
