import { expect, it } from 'vitest';
import { openSqlite } from '../../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { projectRecord, projectSearchContract } from '../../contract/project-search.contract.js';
import { sqliteBackend } from '../../contract/store-backends.js';

projectSearchContract(
  'SQLite project discovery',
  sqliteBackend((db) => createSqliteRecordStore({ db })),
);

it('SQLite: records written before the catalogue existed, or by an older catalogue version, are found after reopening', async () => {
  const db = openSqlite({ dataDir: ':memory:' });
  try {
    const store = await createSqliteRecordStore({ db });
    await store.upsert([
      projectRecord({ ref: { registry: 'Verra', projectId: 1 }, name: 'Old Mangroves' }),
      projectRecord({ ref: { registry: 'Verra', projectId: 2 }, name: 'Older Peatland' }),
    ]);
    // As a database from before the catalogue: entries gone; and one written by an earlier version.
    db.exec(
      'DELETE FROM project_catalogue WHERE project_id = 1; DELETE FROM project_catalogue_text WHERE rowid NOT IN (SELECT id FROM project_catalogue)',
    );
    db.exec("UPDATE project_catalogue SET version = 0, name = 'stale'");
    expect((await store.searchProjects({ text: 'mangroves', limit: 5 })).total).toBe(0);
    const reopened = await createSqliteRecordStore({ db });
    expect((await reopened.searchProjects({ text: 'mangroves', limit: 5 })).hits.map((h) => h.name)).toEqual(['Old Mangroves']);
    expect((await reopened.searchProjects({ text: 'peatland', limit: 5 })).hits.map((h) => h.name)).toEqual(['Older Peatland']);
  } finally {
    db.close();
  }
});
