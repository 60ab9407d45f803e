import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords } from '../../ingest/records.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { RecordStore } from '../../src/ports/record-store.js';
import { createMetadataService, type MetadataService, type RequestedProject } from '../../src/services/metadata.js';
import { EVAL_RECORDS } from '../http/fixture.js';

let db: SqliteDatabase;
let records: RecordStore;
let service: MetadataService;
beforeAll(async () => {
  db = openSqlite({ dataDir: ':memory:' });
  records = await createSqliteRecordStore({ db });
  await importRecords(records, EVAL_RECORDS);
  service = createMetadataService({ records, countries: createCountryLookup() });
});
afterAll(() => {
  db.close();
});

const verra = (projectId: number, requestedRegistry = 'Verra') => ({ ref: { registry: 'Verra', projectId }, requestedRegistry });
const cdm = (projectId: number) => ({ ref: { registry: 'CDM', projectId }, requestedRegistry: 'cdm' });

describe('metadata service (real SQLite store)', () => {
  it('getOne: the cleaned record echoing the requested spelling, the stored raw record, or null', async () => {
    const cleaned = await service.getOne(verra(5533, 'VERRA'), { raw: false });
    expect(cleaned).toMatchObject({ resourceIdentifier: 5533, registry: 'VERRA' });
    const raw = await service.getOne(verra(5533), { raw: true });
    expect(raw).toEqual((await records.get({ registry: 'Verra', projectId: 5533 }))?.raw);
    expect(await service.getOne(verra(1), { raw: false })).toBeNull();
  });

  const getBatch = async (projects: RequestedProject[], opts: { raw: boolean }) =>
    (await service.getBatchJson(projects, opts)).map(([k, v]) => [k, JSON.parse(v) as unknown]);

  it('getBatchJson: one entry per distinct id, in request order, null for unknown projects', async () => {
    const entries = await getBatch([cdm(547), verra(5533), verra(77), cdm(547), cdm(1)], { raw: false });
    expect(entries.map(([k]) => k)).toEqual(['547', '5533', '77', '1']);
    expect(entries[2]?.[1]).toBeNull();
    expect(entries[0]?.[1]).toMatchObject({ resourceIdentifier: 547, registry: 'cdm' });
  });

  it('getBatchJson: the first occurrence wins when a caller did not reject an ambiguous id', async () => {
    const entries = await getBatch([cdm(1), verra(1)], { raw: true });
    expect(entries).toHaveLength(1);
    expect(entries[0]?.[1]).toMatchObject({ registry: 'CDM', resourceIdentifier: '1' });
  });

  it('getBatchJson: an empty list gives an empty result', async () => {
    expect(await service.getBatchJson([], { raw: false })).toEqual([]);
  });
});

describe('serialised records, kept per record version (issue 16.14)', () => {
  it('are the records getOne gives, as JSON text', async () => {
    const later = createMetadataService({ records, countries: createCountryLookup(), now: () => Date.now() + 60_000 });
    for (const raw of [false, true]) {
      for (let round = 0; round < 2; round++) {
        expect(await later.getOneJson(verra(5533, 'VERRA'), { raw })).toBe(
          JSON.stringify(await service.getOne(verra(5533, 'VERRA'), { raw })),
        );
        expect(await later.getOneJson(verra(5533, 'verra'), { raw })).toBe(
          JSON.stringify(await service.getOne(verra(5533, 'verra'), { raw })),
        );
      }
      const projects = [cdm(547), verra(77), verra(5533)];
      const objects = await Promise.all(projects.map((p) => service.getOne(p, { raw })));
      const batch = await later.getBatchJson(projects, { raw });
      expect(batch).toEqual(projects.map((p, i) => [String(p.ref.projectId), JSON.stringify(objects[i])]));
    }
    expect(await later.getOneJson(verra(1), { raw: false })).toBeNull();
  });

  it('follow a change to the record at once', async () => {
    let clock = Date.now() + 60_000;
    const later = createMetadataService({ records, countries: createCountryLookup(), now: () => clock });
    const ref = { registry: 'Verra', projectId: 5533 };
    const before = JSON.parse((await later.getOneJson(verra(5533), { raw: false })) ?? 'null') as { name: string };
    const stored = await records.get(ref);
    await records.upsert([{ ref, format: 'registry-json', raw: { ...stored?.raw, resourceName: 'Renamed for the cache test' } }]);
    // Just changed: derived afresh; later, the new version is what is kept.
    for (const t of [Date.now(), Date.now() + 120_000]) {
      clock = t;
      const after = JSON.parse((await later.getOneJson(verra(5533), { raw: false })) ?? 'null') as { name: string };
      expect(after.name).toBe('Renamed for the cache test');
      expect(after.name).not.toBe(before.name);
    }
    await records.setHidden(ref, true);
    clock = Date.now() + 240_000;
    expect(JSON.parse((await later.getOneJson(verra(5533), { raw: false })) ?? 'null')).toMatchObject({ hidden: true });
    await records.setHidden(ref, false);
    await records.upsert([{ ref, format: 'registry-json', raw: stored?.raw ?? {} }]);
  });
});

describe('RecordStore.versions (SQLite)', () => {
  it("gives each found project's updatedAt without reading its record, and nothing for unknown ones", async () => {
    const refs = [
      { registry: 'Verra', projectId: 5533 },
      { registry: 'CDM', projectId: 547 },
      { registry: 'Verra', projectId: 77 },
    ];
    const versions = await records.versions?.(refs);
    expect(versions).toBeDefined();
    expect([...(versions ?? new Map<string, string>()).keys()].sort()).toEqual(['CDM:547', 'Verra:5533'].sort());
    for (const ref of refs.slice(0, 2)) {
      const stored = await records.get(ref);
      expect(versions?.get(`${ref.registry}:${ref.projectId}`)).toBe(stored?.updatedAt);
    }
  });
});
