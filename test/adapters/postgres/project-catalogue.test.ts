import { expect, it } from 'vitest';
import { createPgRecordStore } from '../../../src/adapters/postgres/record-store.js';
import type { PgPool } from '../../../src/adapters/postgres/database.js';
import type { RecordStore } from '../../../src/ports/record-store.js';
import { projectRecord, projectSearchContract } from '../../contract/project-search.contract.js';
import { pgAvailability, pgBackend } from '../../contract/store-backends.js';
import { describeWithService } from '../../support/services.js';

describeWithService('PostgreSQL project discovery', pgAvailability, () => {
  projectSearchContract(
    'contract',
    pgBackend((pool) => createPgRecordStore({ pool })),
  );

  let pool: PgPool | undefined;
  const makeBackend = pgBackend(async (p) => {
    pool = p;
    return createPgRecordStore({ pool: p });
  });

  it('records written before the catalogue existed, or by an older catalogue version, are found after reopening', async () => {
    const backend = await makeBackend();
    let store: RecordStore | undefined;
    let reopened: RecordStore | undefined;
    try {
      store = await backend.open();
      await store.upsert([
        projectRecord({ ref: { registry: 'Verra', projectId: 1 }, name: 'Old Mangroves' }),
        projectRecord({ ref: { registry: 'Verra', projectId: 2 }, name: 'Older Peatland' }),
      ]);
      await pool?.query('DELETE FROM project_catalogue WHERE project_id = 1');
      await pool?.query("UPDATE project_catalogue SET version = 0, name = 'stale', all_terms = ''::tsvector");
      expect((await store.searchProjects({ text: 'mangroves', limit: 5 })).total).toBe(0);
      reopened = await backend.open();
      expect((await reopened.searchProjects({ text: 'mangroves', limit: 5 })).hits.map((h) => h.name)).toEqual(['Old Mangroves']);
      expect((await reopened.searchProjects({ text: 'peatland', limit: 5 })).hits.map((h) => h.name)).toEqual(['Older Peatland']);
    } finally {
      await store?.close();
      await reopened?.close();
      await backend.dispose();
    }
  });
});
