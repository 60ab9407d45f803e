/**
 * Record store numbers on each backend: bulk upsert, unchanged re-import, single and batch reads.
 * `npx tsx bench/stores/main.ts [--records 5000]`; PostgreSQL runs too when DATABASE_URL is set (in a fresh database
 * that is dropped afterwards). Prints one JSON line per backend.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPgPool } from '../../src/adapters/postgres/database.js';
import { createPgRecordStore } from '../../src/adapters/postgres/record-store.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import type { ProjectRecordInput, RecordStore } from '../../src/ports/record-store.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '5000' } } });
const total = Number(values.records);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sample = JSON.parse(readFileSync(path.resolve(repoRoot, '../shared/corpus/records/verra_4086_raw.json'), 'utf8')) as Record<
  string,
  unknown
>;

const refs: ProjectRef[] = Array.from({ length: total }, (_, i) => ({ registry: 'Verra', projectId: i + 1 }));
const inputs: ProjectRecordInput[] = refs.map((ref) => ({
  ref,
  format: 'registry-json',
  raw: { ...sample, registry: 'Verra', resourceIdentifier: String(ref.projectId) },
}));

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function measure(store: RecordStore): Promise<Record<string, number>> {
  const batches = async () => {
    for (let i = 0; i < inputs.length; i += 500) await store.upsert(inputs.slice(i, i + 500));
  };
  const insertMs = await timed(batches);
  const unchangedMs = await timed(batches);
  let getMs = 0;
  for (let i = 0; i < 1000; i++)
    getMs += await timed(() => store.get(refs[(i * 7919) % total] ?? refs[0] ?? { registry: 'Verra', projectId: 1 }));
  let manyMs = 0;
  for (let i = 0; i < 100; i++) {
    const batch = Array.from({ length: 100 }, (_, k) => refs[(i * 100 + k * 37) % total] ?? { registry: 'Verra', projectId: 1 });
    manyMs += await timed(() => store.getMany(batch));
  }
  return {
    records: total,
    rawBytesEach: JSON.stringify(inputs[0]?.raw).length,
    insertRecordsPerSec: Math.round(total / (insertMs / 1000)),
    unchangedRecordsPerSec: Math.round(total / (unchangedMs / 1000)),
    getMeanMs: Number((getMs / 1000).toFixed(3)),
    getMany100MeanMs: Number((manyMs / 100).toFixed(2)),
  };
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-stores-'));
try {
  const db = openSqlite({ dataDir });
  const store = await createSqliteRecordStore({ db });
  console.log(JSON.stringify({ backend: 'sqlite', ...(await measure(store)) }));
  await store.close();
  db.close();
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const url = process.env.DATABASE_URL;
if (url !== undefined) {
  const name = `bench_stores_${randomBytes(4).toString('hex')}`;
  const admin = createPgPool(url, { max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const pool = createPgPool(target.toString());
  try {
    const store = await createPgRecordStore({ pool });
    console.log(JSON.stringify({ backend: 'postgres', ...(await measure(store)) }));
    await store.close();
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
