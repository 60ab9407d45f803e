import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords } from '../../ingest/records.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { RecordStore } from '../../src/ports/record-store.js';
import { createMetadataService, type MetadataService } from '../../src/services/metadata.js';
import { EVAL_RECORDS } from './fixture.js';

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

  it('getBatch: one entry per distinct id, in request order, null for unknown projects', async () => {
    const entries = await service.getBatch([cdm(547), verra(5533), verra(77), cdm(547), cdm(1)], { raw: false });
    expect(entries.map(([k]) => k)).toEqual(['547', '5533', '77', '1']);
    expect(entries[2]?.[1]).toBeNull();
    expect(entries[0]?.[1]).toMatchObject({ resourceIdentifier: 547, registry: 'cdm' });
  });

  it('getBatch: the first occurrence wins when a caller did not reject an ambiguous id', async () => {
    const entries = await service.getBatch([cdm(1), verra(1)], { raw: true });
    expect(entries).toHaveLength(1);
    expect(entries[0]?.[1]).toMatchObject({ registry: 'CDM', resourceIdentifier: '1' });
  });

  it('getBatch: an empty list gives an empty result', async () => {
    expect(await service.getBatch([], { raw: false })).toEqual([]);
  });
});
