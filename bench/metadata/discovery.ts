/**
 * Project discovery (POST /projects/search) over 10,000 projects, on both record stores.
 *
 *   npx tsx bench/metadata/discovery.ts [--projects 10000] [--duration 10] [--connections 1] [--queries 400]
 *
 * Seeds synthetic Verra-shaped records (deterministic: names, descriptions, proponents, methodologies, countries,
 * types and statuses drawn from fixed vocabularies) through the record store, then measures, for each store
 * (SQLite always; PostgreSQL when DATABASE_URL is set, in a fresh database dropped afterwards):
 * - in-process `searchProjects` latency over --queries varied searches (a word, plus two filters);
 * - HTTP latency against the real server (`tsx src/main.ts`, DEMO_DATA=false) with autocannon, for one fixed body:
 *   a word query with two filters, and the same without filters.
 * Prints one JSON line per measure and a markdown table for bench/README.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPgPool } from '../../src/adapters/postgres/database.js';
import { createPgRecordStore } from '../../src/adapters/postgres/record-store.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { ProjectRecordInput, ProjectSearchQuery, RecordStore } from '../../src/ports/record-store.js';
import { rng } from '../../test/support/rng.js';

const { values } = parseArgs({
  options: {
    projects: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '1' },
    queries: { type: 'string', default: '400' },
  },
});
const PROJECTS = Number(values.projects);
const duration = Number(values.duration);
const connections = Number(values.connections);
const QUERIES = Number(values.queries);
for (const [name, v] of Object.entries({ projects: PROJECTS, duration, connections, queries: QUERIES })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a positive integer`);
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsx = path.join(repoRoot, 'node_modules', '.bin', 'tsx');
const autocannonBin = path.join(repoRoot, 'node_modules', '.bin', 'autocannon');
const work = mkdtempSync(path.join(tmpdir(), 'bench-discovery-'));

const PLACES = [
  'Rio',
  'Alto',
  'Kisaru',
  'Northbrook',
  'Sundara',
  'Mekong',
  'Andes',
  'Sahel',
  'Borneo',
  'Chaco',
  'Zambezi',
  'Atlas',
  'Ganges',
  'Yucatan',
  'Katanga',
  'Pampas',
  'Taiga',
  'Delta',
  'Savanna',
  'Highland',
];
const ACTIVITIES = [
  'Forest',
  'Cookstoves',
  'Wetland',
  'Mangrove',
  'Rice',
  'Solar',
  'Wind',
  'Biogas',
  'Landfill',
  'Hydro',
  'Peatland',
  'Agroforestry',
  'REDD+',
  'Grassland',
  'Methane',
  'Efficiency',
  'Water',
  'Biochar',
  'Seagrass',
  'Bamboo',
];
const KINDS = ['Restoration', 'Conservation', 'Project', 'Programme', 'Initiative', 'Corridor', 'Management', 'Grouped Project'];
const COUNTRIES = [
  'Brazil',
  'India',
  'China',
  'Indonesia',
  'Colombia',
  'Kenya',
  'Peru',
  'Vietnam',
  'Mexico',
  'Uganda',
  'Zambia',
  'Cambodia',
  'Bolivia',
  'Paraguay',
  'Tanzania',
  'Ghana',
  'Ethiopia',
  'Malawi',
  'Turkey',
  'Chile',
  'United States',
  'Canada',
  'Madagascar',
  'Nepal',
  'Bangladesh',
  'Pakistan',
  'Thailand',
  'Philippines',
  'Argentina',
  'Guatemala',
];
const TYPES = [
  'Agriculture Forestry and Other Land Use',
  'Energy industries (renewable/non-renewable sources)',
  'Energy demand',
  'Waste handling and disposal',
  'Manufacturing industries',
  'Livestock, enteric fermentation, and manure management',
  'Transport',
  'Chemical industry',
];
const STATUSES = ['Registered', 'Under validation', 'Registration requested', 'Under development', 'Withdrawn', 'Inactive', 'On Hold'];
const METHODOLOGIES = [
  'VM0007',
  'VM0015',
  'VM0047',
  'VM0042',
  'VM0048',
  'VMR0006',
  'AMS-I.D.',
  'AMS-II.G.',
  'AMS-III.AU',
  'ACM0002',
  'AR-ACM0003',
  'VM0033',
  'VM0036',
  'ACM0001',
  'AMS-I.E.',
  'VM0010',
  'VM0009',
  'ACM0022',
  'AMS-III.D.',
  'VM0044',
];
const DESCRIPTION_WORDS = (
  'the project restores degraded land through native species planting and protects standing forest from conversion ' +
  'households receive improved stoves that reduce fuelwood use and indoor smoke while communities manage the ' +
  'watershed biodiversity monitoring carbon stocks sample plots baseline scenario additionality leakage permanence ' +
  'buffer crediting period emission reductions removals verification validation smallholder farmers cooperative ' +
  'training employment women youth school water quality soil erosion grazing fire prevention patrols satellite ' +
  'imagery methane capture flaring electricity grid renewable turbines panels irrigation paddy drainage compost'
).split(' ');

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

export function records(n: number): ProjectRecordInput[] {
  const r = rng(42);
  const attr = (code: string, vs: string[]) => ({ code, values: vs.map((value) => ({ type: 'string', value })) });
  return Array.from({ length: n }, (_, i) => {
    const id = 100_000 + i;
    const name = `${pick(r, PLACES)} ${pick(r, ACTIVITIES)} ${pick(r, KINDS)}`;
    const description = Array.from({ length: 60 }, () => pick(r, DESCRIPTION_WORDS)).join(' ');
    const methodologies = r() < 0.3 ? [pick(r, METHODOLOGIES), pick(r, METHODOLOGIES)] : [pick(r, METHODOLOGIES)];
    return {
      ref: { registry: 'Verra', projectId: id },
      format: 'registry-json' as const,
      raw: {
        registry: 'Verra',
        resourceIdentifier: String(id),
        resourceName: name,
        description,
        attributes: [],
        participationSummaries: [
          {
            programCode: 'VCS',
            attributes: [
              attr('PROPONENT_NAME', [
                `${pick(r, PLACES)} ${pick(r, ['Carbon', 'Green', 'Climate', 'Earth'])} ${pick(r, ['Ltd', 'SA', 'Foundation', 'Trust'])}`,
              ]),
              attr('PROTOCOL_NAME', methodologies),
              attr('PRIMARY_PROJECT_CATEGORY_NAME', [pick(r, TYPES)]),
              attr('PROJECT_STATUS', [pick(r, STATUSES)]),
              attr('COUNTRY', [pick(r, COUNTRIES)]),
            ],
          },
        ],
        documentGroups: [],
      },
    };
  });
}

/** Varied searches of the benchmark's shape: one word (a name word or a description word) plus two filters. */
function queries(n: number): ProjectSearchQuery[] {
  const r = rng(7);
  return Array.from({ length: n }, () => ({
    text: r() < 0.5 ? pick(r, ACTIVITIES).toLowerCase() : pick(r, DESCRIPTION_WORDS),
    facets: { country: [pick(r, COUNTRIES)], status: [pick(r, STATUSES.slice(0, 3))] },
    limit: 20,
  }));
}

const FIXED_FILTERED = { query: 'forest', country: 'Brazil', status: 'Registered' };
const FIXED_WORD = { query: 'forest' };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function inProcess(store: RecordStore): Promise<{ p50: number; p99: number; meanHits: number; meanTotal: number }> {
  const qs = queries(QUERIES);
  for (const q of qs.slice(0, 20)) await store.searchProjects(q); // warm caches and prepared statements
  const times: number[] = [];
  let hits = 0;
  let total = 0;
  for (const q of qs) {
    const t0 = performance.now();
    const page = await store.searchProjects(q);
    times.push(performance.now() - t0);
    hits += page.hits.length;
    total += page.total;
  }
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    p50: round(percentile(times, 50)),
    p99: round(percentile(times, 99)),
    meanHits: round(hits / qs.length),
    meanTotal: round(total / qs.length),
  };
}

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, ['src/main.ts'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let buf = '';
    let found = false;
    child.stdout?.on('data', (d: Buffer) => {
      if (found) return;
      buf += d.toString();
      for (const line of buf.split('\n')) {
        try {
          const j = JSON.parse(line) as { port?: number; msg?: string };
          if (j.msg === 'listening' && typeof j.port === 'number') {
            found = true;
            resolve({ child, port: j.port });
            return;
          }
        } catch {
          // partial line
        }
      }
    });
    child.once('exit', (code) => {
      if (!found) reject(new Error(`server exited with ${code} before listening`));
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
}

function autocannon(url: string, body: unknown): Promise<AutocannonResult> {
  const file = path.join(work, `body-${randomBytes(4).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify(body));
  const args = [
    '-j',
    '-c',
    String(connections),
    '-d',
    String(duration),
    '-m',
    'POST',
    '-H',
    'Content-Type=application/json',
    '-i',
    file,
    '-W',
    '[',
    '-c',
    '1',
    '-d',
    '2',
    ']',
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(autocannonBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as AutocannonResult);
      } catch {
        reject(new Error(`autocannon printed no JSON: ${out.slice(0, 200)}`));
      }
    });
  });
}

async function main(): Promise<void> {
  const rows: string[] = [];
  const seed = records(PROJECTS);
  // LOG_LEVEL info, as in production: the harness reads the listening line; request logs are drained and dropped.
  const baseEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    DEMO_DATA: 'false',
    LOG_LEVEL: 'info',
  };

  const backends: Array<{ name: string; open: () => Promise<{ store: RecordStore; env: NodeJS.ProcessEnv; close: () => Promise<void> }> }> =
    [
      {
        name: 'sqlite',
        async open() {
          const dataDir = path.join(work, 'sqlite');
          const db = openSqlite({ dataDir });
          const store = await createSqliteRecordStore({ db });
          return {
            store,
            env: { ...baseEnv, DATA_DIR: dataDir },
            async close() {
              await store.close();
              db.close();
            },
          };
        },
      },
    ];
  const pgUrl = process.env.DATABASE_URL;
  if (pgUrl) {
    backends.push({
      name: 'postgres',
      async open() {
        const database = `bench_discovery_${randomBytes(4).toString('hex')}`;
        const admin = createPgPool(pgUrl, { max: 1 });
        await admin.query(`CREATE DATABASE ${database}`);
        const u = new URL(pgUrl);
        u.pathname = `/${database}`;
        const pool = createPgPool(u.toString(), { max: 4 });
        const store = await createPgRecordStore({ pool });
        return {
          store,
          env: { ...baseEnv, DATA_DIR: path.join(work, 'pg-data'), DATABASE_URL: u.toString() },
          async close() {
            await store.close();
            await pool.end();
            await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
            await admin.end();
          },
        };
      },
    });
  } else {
    console.log('(PostgreSQL skipped: DATABASE_URL is not set)');
  }

  for (const backend of backends) {
    const opened = await backend.open();
    try {
      const t0 = performance.now();
      for (let i = 0; i < seed.length; i += 1000) await opened.store.upsert(seed.slice(i, i + 1000));
      const seedS = Math.round((performance.now() - t0) / 100) / 10;
      console.log(JSON.stringify({ store: backend.name, seeded: seed.length, seconds: seedS }));

      const local = await inProcess(opened.store);
      console.log(
        JSON.stringify({
          store: backend.name,
          measure: 'searchProjects in process, a word + two filters, limit 20',
          queries: QUERIES,
          ...local,
        }),
      );
      rows.push(
        `| ${backend.name} | searchProjects in process (${QUERIES} varied: a word + country + status) | 1 | ${local.p50} | ${local.p99} | - | ${local.meanTotal} |`,
      );

      const server = await startServer(opened.env);
      try {
        const url = `http://127.0.0.1:${server.port}/projects/search`;
        const check = (await (
          await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(FIXED_FILTERED) })
        ).json()) as { total: number };
        for (const [label, body] of [
          [`HTTP "forest" + country + status (total ${check.total})`, FIXED_FILTERED],
          ['HTTP "forest", no filter', FIXED_WORD],
        ] as const) {
          const r = await autocannon(url, body);
          const line = {
            store: backend.name,
            measure: label,
            connections,
            reqPerSec: Math.round(r.requests.average),
            p50Ms: r.latency.p50,
            p99Ms: r.latency.p99,
            avgMs: r.latency.average,
            non2xx: r.non2xx,
            errors: r.errors,
          };
          console.log(JSON.stringify(line));
          rows.push(`| ${backend.name} | ${label} | ${connections} | ${r.latency.p50} | ${r.latency.p99} | ${line.reqPerSec} | - |`);
        }
      } finally {
        await stop(server.child);
      }
    } finally {
      await opened.close();
    }
  }
  rmSync(work, { recursive: true, force: true });
  console.log(
    `\n${PROJECTS.toLocaleString('en')} projects\n\n| store | measure | connections | p50 ms | p99 ms | req/s | mean total |\n|---|---|---|---|---|---|---|`,
  );
  console.log(rows.join('\n'));
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  });
