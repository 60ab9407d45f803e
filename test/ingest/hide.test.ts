import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatHideResult, setProjectsHidden } from '../../ingest/hide.js';
import { importRecords } from '../../ingest/records.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import type { RecordStore } from '../../src/ports/record-store.js';

const A: ProjectRef = { registry: 'Verra', projectId: 900001 };
const B: ProjectRef = { registry: 'Verra', projectId: 900004 };
const MISSING: ProjectRef = { registry: 'Verra', projectId: 4086 };

describe('--hide / --unhide', () => {
  let db: SqliteDatabase;
  let records: RecordStore;
  const cleanedHidden = async (ref: ProjectRef): Promise<boolean | undefined> => {
    const stored = await records.get(ref);
    return stored ? deriveCleaned(stored, { requestedRegistry: 'Verra', countries: createCountryLookup() }).hidden : undefined;
  };

  beforeEach(async () => {
    db = openSqlite({ dataDir: ':memory:' });
    records = await createSqliteRecordStore({ db });
    await importRecords(records, 'demo/records.jsonl', { replaceBase: 'http://127.0.0.1:3000' });
  });
  afterEach(async () => {
    await records.close();
    db.close();
  });

  it('sets the flag the cleaned record shows, lists projects already so and projects not stored', async () => {
    expect(await cleanedHidden(A)).toBe(false);
    const hidden = await setProjectsHidden(records, [A, B, MISSING], true);
    expect(hidden).toEqual({ changed: ['Verra:900001', 'Verra:900004'], unchanged: [], notFound: ['Verra:4086'] });
    expect(await cleanedHidden(A)).toBe(true);
    expect(await cleanedHidden(B)).toBe(true);
    expect(await records.get(MISSING)).toBeNull();
    expect(formatHideResult(hidden, true)).toBe(
      'hidden: 2 project(s) (Verra:900001, Verra:900004)\n  not in the store (import their records first): Verra:4086\n',
    );

    expect(await setProjectsHidden(records, [A], true)).toEqual({ changed: [], unchanged: ['Verra:900001'], notFound: [] });
    expect(await setProjectsHidden(records, [A], false)).toEqual({ changed: ['Verra:900001'], unchanged: [], notFound: [] });
    expect(await cleanedHidden(A)).toBe(false);
    expect(await cleanedHidden(B)).toBe(true);
  });

  it('keeps the flag when the record is imported again (an operator decision survives a registry update)', async () => {
    await setProjectsHidden(records, [A], true);
    await importRecords(records, 'demo/records.jsonl', { replaceBase: 'http://127.0.0.1:9999' });
    expect(await cleanedHidden(A)).toBe(true);
  });
});
