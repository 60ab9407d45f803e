import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import type { RecordStore } from '../../../src/ports/record-store.js';
import { corpusPath, repoRoot } from '../../support/corpus.js';

const child = path.join(repoRoot, 'test/adapters/children/sqlite-record-writer.ts');

/** Runs the writer in its own Node process (tsx loader), resolving with its JSON result line. */
function runWriter(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], { cwd: repoRoot });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (code !== 0) reject(new Error(`writer exited with ${String(code)}: ${err}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, unknown>);
    });
  });
}

describe('SQLite record store shared by two processes on one DATA_DIR', () => {
  let dataDir: string;
  let db: SqliteDatabase;
  let store: RecordStore;

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'h2-xproc-'));
    db = openSqlite({ dataDir });
    store = await createSqliteRecordStore({ db });
  });

  afterEach(async () => {
    await store.close();
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sees records another process imports, without reopening', async () => {
    expect(await store.count()).toBe(0);
    const result = await runWriter(['import', dataDir, corpusPath('records', 'eval-projects.raw.jsonl')]);
    expect(result).toMatchObject({ inserted: 7, updated: 0, unchanged: 0, failed: [] });
    expect(await store.count()).toBe(7);
    const gfl = await store.get({ registry: 'CDM', projectId: 1 });
    expect(gfl?.raw.resourceName).toMatch(/HFC 23/);
    expect(await store.list({ registry: 'Regen' })).toEqual([
      { registry: 'Regen', projectId: 6006 },
      { registry: 'Regen', projectId: 6007 },
    ]);
  }, 60_000);

  it('both processes write at once: no SQLITE_BUSY, nothing lost, nothing duplicated', async () => {
    const mine = Array.from({ length: 400 }, (_, i) => i + 1);
    const writer = runWriter(['upsert', dataDir, '201', '400']);
    // Start once the child is writing, so the two really overlap; then write here in small batches while the child
    // writes 201..600 (ids 201..400 overlap).
    while ((await store.get({ registry: 'Verra', projectId: 201 })) === null) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const childAtStart = await store.count();
    const totals = { inserted: 0, updated: 0, unchanged: 0 };
    const seen: number[] = [];
    for (let i = 0; i < mine.length; i += 20) {
      const r = await store.upsert(
        mine.slice(i, i + 20).map((id) => ({
          ref: { registry: 'Verra', projectId: id },
          format: 'registry-json' as const,
          raw: { registry: 'Verra', resourceIdentifier: String(id), resourceName: `Project ${id}` },
        })),
      );
      totals.inserted += r.inserted;
      totals.updated += r.updated;
      totals.unchanged += r.unchanged;
      seen.push(await store.count());
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const theirs = await writer;
    // The child was still writing when this process started (it writes 400 in batches of 10, 5 ms apart).
    expect(childAtStart).toBeLessThan(400);
    expect(await store.count()).toBe(600);
    // Both wrote identical records for 201..400: each was inserted once and found unchanged once, in some order.
    expect(totals.inserted + Number(theirs.inserted)).toBe(600);
    expect(totals.unchanged + Number(theirs.unchanged)).toBe(200);
    expect(totals.updated + Number(theirs.updated)).toBe(0);
    expect((await store.list()).map((r) => r.projectId)).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
    // Counts read between batches never go down (each read sees a committed state).
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
  }, 60_000);
});
