import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importTransactions, readTransactionTotals } from '../../ingest/transactions.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createPgRecordStore } from '../../src/adapters/postgres/record-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { RecordStore } from '../../src/ports/record-store.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { pgAvailability, pgBackend } from '../contract/store-backends.js';
import { describeWithService } from '../support/services.js';

const verraCsv = corpusPath('registry-exports', 'verra', 'transactions.csv');
const gsCsv = corpusPath('registry-exports', 'gold-standard', 'issuances.csv');

function minimalRecord(registry: string, id: number): Record<string, unknown> {
  return { registry, resourceIdentifier: String(id), resourceName: `Project ${id}`, documentGroups: [] };
}

let db: SqliteDatabase;
let store: RecordStore;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'h8-transactions-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  db = openSqlite({ dataDir: ':memory:' });
  store = await createSqliteRecordStore({ db });
  await store.upsert(
    [3005, 4150, 513, 1340, 4268].map((id) => ({
      ref: { registry: 'Verra', projectId: id },
      format: 'registry-json' as const,
      raw: minimalRecord('Verra', id),
    })),
  );
});
afterEach(async () => {
  await store.close();
  db.close();
});

describeWithService(
  'Verra transactions export (real CSV)',
  {
    available: corpusAvailable,
    why: `corpus not found at ${verraCsv}`,
  },
  () => {
    it('totals issuances once per vintage and retirements per retired block', async () => {
      const t = await readTransactionTotals(verraCsv);
      expect(t.format).toBe('verra');
      expect(t.rows).toBe(200);
      expect(t.errors).toEqual([]);
      expect(t.totals.size).toBe(56);
      // 3005: one vintage of 100,897 in three blocks, two of them retired (187 + 28,571).
      expect(t.totals.get(3005)).toEqual({ issuances: 100897, retirements: 28758, rows: 3 });
      // 4150: two vintages (388,254 + 1,209,664) over 16 blocks.
      expect(t.totals.get(4150)).toEqual({ issuances: 1597918, retirements: 29870, rows: 16 });
      expect(t.totals.get(513)).toEqual({ issuances: 417941, retirements: 4540, rows: 58 });
      const all = [...t.totals.values()];
      expect(all.reduce((a, b) => a + b.issuances, 0)).toBe(17251581);
      expect(all.reduce((a, b) => a + (b.retirements ?? 0), 0)).toBe(137546);
    });

    it('writes the totals of stored projects, reports the others, and replaces on re-import', async () => {
      const first = await importTransactions(store, verraCsv);
      expect(first.updated).toBe(5);
      expect(first.unknownProjects).toHaveLength(51);
      expect(first.unknownProjects).not.toContain(3005);
      expect((await store.get({ registry: 'Verra', projectId: 3005 }))?.enrichment).toMatchObject({
        issuances: 100897,
        retirements: 28758,
      });
      expect((await store.get({ registry: 'Verra', projectId: 1340 }))?.enrichment).toMatchObject({
        issuances: 1454054,
        retirements: 425,
      });

      const again = await importTransactions(store, verraCsv);
      expect(again.updated).toBe(5);
      expect((await store.get({ registry: 'Verra', projectId: 3005 }))?.enrichment).toMatchObject({
        issuances: 100897,
        retirements: 28758,
      });

      // A newer export where the last 3005 block was retired as well: totals are replaced, not added.
      const text = await readFile(verraCsv, 'utf8');
      const lines = text.split('\n');
      const header = lines[0] ?? '';
      const newer = lines.filter((l) => /,3005,/.test(l)).map((l) => l.replace(/,,,,$/, ',2026-05-01,Someone,Other,'));
      const file = path.join(dir, 'newer.csv');
      await writeFile(file, [header, ...newer].join('\n'));
      const replaced = await importTransactions(store, file);
      expect(replaced.updated).toBe(1);
      expect((await store.get({ registry: 'Verra', projectId: 3005 }))?.enrichment).toMatchObject({
        issuances: 100897,
        retirements: 187 + 28571 + 29813,
      });
      // Projects the newer file does not name keep their totals.
      expect((await store.get({ registry: 'Verra', projectId: 1340 }))?.enrichment).toMatchObject({ issuances: 1454054 });
    });
  },
);

describe('transactions: bad files and rows', () => {
  it('reports a malformed row with its line and leaves that project unchanged', async () => {
    const file = path.join(dir, 'bad-row.csv');
    await writeFile(
      file,
      [
        'Issuance Date,Vintage Start,Vintage End,ID,Total Vintage Quantity,Quantity Issued,Retirement/Cancellation Date',
        '2026-01-01,2020-01-01,2020-12-31,4268,"1,000",400,2026-02-01',
        '2026-01-01,2020-01-01,2020-12-31,4268,"1,000",lots,',
        '2026-01-01,2020-01-01,2020-12-31,513,"2,500",100,2026-02-01',
        '2026-01-01,2020-01-01,2020-12-31,not-an-id,"2,500",100,',
      ].join('\n'),
    );
    await store.updateEnrichment({ registry: 'Verra', projectId: 4268 }, { issuances: 7, retirements: 3 });
    const r = await importTransactions(store, file);
    expect(r.errors.map((e) => e.source)).toEqual([`${file}:3`, `${file}:5`]);
    expect(r.errors[0]?.error).toMatch(/Quantity Issued "lots"/);
    expect(r.errors[1]?.error).toMatch(/project id "not-an-id"/);
    expect(r.skippedProjects).toEqual([4268]);
    expect(r.updated).toBe(1);
    expect((await store.get({ registry: 'Verra', projectId: 4268 }))?.enrichment).toMatchObject({ issuances: 7, retirements: 3 });
    expect((await store.get({ registry: 'Verra', projectId: 513 }))?.enrichment).toMatchObject({
      issuances: 2500,
      retirements: 100,
    });
  });

  it('refuses a CSV of another shape, naming the expected columns', async () => {
    const file = path.join(dir, 'other.csv');
    await writeFile(file, 'a,b,c\n1,2,3\n');
    await expect(importTransactions(store, file)).rejects.toThrow(/not a known transactions export.*Quantity Issued/);
  });

  it('refuses a missing file and an empty one', async () => {
    await expect(importTransactions(store, path.join(dir, 'nope.csv'))).rejects.toThrow(/not readable/);
    const empty = path.join(dir, 'empty.csv');
    await writeFile(empty, '');
    await expect(importTransactions(store, empty)).rejects.toThrow(/empty file/);
  });
});

describeWithService(
  'Gold Standard issuances export (real CSV)',
  {
    available: corpusAvailable,
    why: `corpus not found at ${gsCsv}`,
  },
  () => {
    it('sums issued quantities per GSID and leaves retirements unknown', async () => {
      const t = await readTransactionTotals(gsCsv);
      expect(t.format).toBe('gold-standard');
      expect(t.registry).toBe('Gold Standard');
      expect(t.rows).toBe(100);
      expect(t.totals.size).toBe(54);
      expect(t.totals.get(11236)).toEqual({ issuances: 19149, rows: 1 });
      expect(t.totals.get(7080)?.issuances).toBe(321592);
      expect([...t.totals.values()].reduce((a, b) => a + b.issuances, 0)).toBe(5380873);
    });

    it('writes issuances of stored Gold Standard projects only', async () => {
      await store.upsert([{ ref: { registry: 'Gold Standard', projectId: 7080 }, format: 'csv:gold-standard', raw: { GSID: '7080' } }]);
      await store.updateEnrichment({ registry: 'Gold Standard', projectId: 7080 }, { retirements: 12 });
      const r = await importTransactions(store, gsCsv);
      expect(r.updated).toBe(1);
      expect(r.unknownProjects).toHaveLength(53);
      const e = (await store.get({ registry: 'Gold Standard', projectId: 7080 }))?.enrichment;
      expect(e).toMatchObject({ issuances: 321592, retirements: 12 });
      // Same id under Verra is another project and untouched.
      expect((await store.get({ registry: 'Verra', projectId: 513 }))?.enrichment.issuances).toBeUndefined();
    });
  },
);

describeWithService('Verra transactions into the PostgreSQL record store', pgAvailability, () => {
  const makeBackend = pgBackend((pool) => createPgRecordStore({ pool }));
  it('writes and replaces the same totals as on SQLite', async () => {
    if (!corpusAvailable) throw new Error(`corpus not found at ${verraCsv}`);
    const backend = await makeBackend();
    try {
      const pg = await backend.open();
      await pg.upsert([{ ref: { registry: 'Verra', projectId: 4150 }, format: 'registry-json', raw: minimalRecord('Verra', 4150) }]);
      await pg.updateEnrichment({ registry: 'Verra', projectId: 4150 }, { summary: 'kept', issuances: 1 });
      const first = await importTransactions(pg, verraCsv);
      const again = await importTransactions(pg, verraCsv);
      expect(first.updated).toBe(1);
      expect(again.updated).toBe(1);
      expect((await pg.get({ registry: 'Verra', projectId: 4150 }))?.enrichment).toEqual({
        summary: 'kept',
        issuances: 1597918,
        retirements: 29870,
      });
    } finally {
      await backend.dispose();
    }
  });
});
