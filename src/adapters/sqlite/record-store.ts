import type { ProjectEnrichment } from '../../domain/cleaned-record.js';
import { projectKey, type ProjectRef } from '../../domain/project-ref.js';
import type { CountryLookup } from '../../ports/country-lookup.js';
import type {
  ProjectRecordInput,
  ProjectSearchPage,
  ProjectSearchQuery,
  RecordStore,
  StoredProject,
  UpsertResult,
} from '../../ports/record-store.js';
import {
  canonicalJson,
  checkEnrichment,
  checkRef,
  mergeEnrichment,
  parseJsonObject,
  prepareRecords,
  storedProjectFromRow,
  type ProjectRow,
} from '../store-support.js';
import { createCountryLookup } from '../geo/country-lookup.js';
import { migrateSqlite, type SqliteDatabase, type SqliteMigration } from './database.js';
import { catalogueMigration, createSqliteCatalogue } from './project-catalogue.js';
import { closedStoreError, guardSqlite, sqliteFailure } from './store-errors.js';

const STORE = 'record store';

const migrations: readonly SqliteMigration[] = [
  {
    name: '0001-projects',
    up(db) {
      // raw_json keeps the record as given (key order included, for raw responses); raw_hash is over its canonical
      // form, so a re-import that only reorders keys is `unchanged`.
      db.exec(`CREATE TABLE projects (
        registry TEXT NOT NULL,
        project_id INTEGER NOT NULL,
        format TEXT NOT NULL,
        raw_json TEXT NOT NULL,
        raw_hash TEXT NOT NULL,
        enrichment_json TEXT NOT NULL DEFAULT '{}',
        hidden INTEGER NOT NULL DEFAULT 0,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (registry, project_id)
      )`);
    },
  },
  catalogueMigration,
];

export interface SqliteRecordStoreOptions {
  /** The shared embedded database (openSqlite); the caller owns it and closes it after every store. */
  db: SqliteDatabase;
  /** Reverse geocoding for the discovery catalogue's location (catalogueEntry). @default createCountryLookup() */
  countries?: CountryLookup;
}

/**
 * Records on the embedded SQLite file. Writes take the write lock up front (BEGIN IMMEDIATE) so an API and an ingest
 * process on the same DATA_DIR queue behind each other instead of failing; WAL lets readers see each commit at once.
 */
export async function createSqliteRecordStore(opts: SqliteRecordStoreOptions): Promise<RecordStore> {
  const { db } = opts;
  try {
    await migrateSqlite(db, 'records', migrations);
  } catch (err) {
    throw sqliteFailure(STORE, err);
  }
  const catalogue = guardSqlite(STORE, () => createSqliteCatalogue(db, opts.countries ?? createCountryLookup()));
  // Entries missing (records written before the catalogue existed) or derived by an older version.
  guardSqlite(STORE, () => catalogue.reconcile());

  const stmt = guardSqlite(STORE, () => ({
    current: db.prepare<[string, number], { raw_hash: string; format: string; hidden: number }>(
      'SELECT raw_hash, format, hidden FROM projects WHERE registry = ? AND project_id = ?',
    ),
    insert: db.prepare<[string, number, string, string, string, string]>(
      `INSERT INTO projects (registry, project_id, format, raw_json, raw_hash, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    replaceRaw: db.prepare<[string, string, string, string, string, number]>(
      `UPDATE projects SET format = ?, raw_json = ?, raw_hash = ?, updated_at = ? WHERE registry = ? AND project_id = ?`,
    ),
    get: db.prepare<[string, number], ProjectRow>('SELECT * FROM projects WHERE registry = ? AND project_id = ?'),
    // One JSON array parameter instead of one parameter per ref: no limit on how many refs a call may ask for.
    getMany: db.prepare<[string], ProjectRow>(
      // CROSS JOIN fixes the loop order: each requested ref is looked up by primary key.
      `SELECT p.* FROM (SELECT DISTINCT json_extract(value, '$[0]') AS registry, json_extract(value, '$[1]') AS project_id
                          FROM json_each(?)) r
         CROSS JOIN projects p ON p.registry = r.registry AND p.project_id = r.project_id`,
    ),
    versions: db.prepare<[string], { registry: string; project_id: number; updated_at: string }>(
      `SELECT p.registry, p.project_id, p.updated_at
         FROM (SELECT DISTINCT json_extract(value, '$[0]') AS registry, json_extract(value, '$[1]') AS project_id
                 FROM json_each(?)) r
         CROSS JOIN projects p ON p.registry = r.registry AND p.project_id = r.project_id`,
    ),
    listAll: db.prepare<[], { registry: string; project_id: number }>(
      'SELECT registry, project_id FROM projects ORDER BY registry, project_id',
    ),
    listRegistry: db.prepare<[string], { registry: string; project_id: number }>(
      'SELECT registry, project_id FROM projects WHERE registry = ? ORDER BY project_id',
    ),
    enrichment: db.prepare<[string, number], { enrichment_json: string }>(
      'SELECT enrichment_json FROM projects WHERE registry = ? AND project_id = ?',
    ),
    setEnrichment: db.prepare<[string, string, string, number]>(
      'UPDATE projects SET enrichment_json = ?, updated_at = ? WHERE registry = ? AND project_id = ?',
    ),
    setHidden: db.prepare<[number, string, string, number, number]>(
      'UPDATE projects SET hidden = ?, updated_at = ? WHERE registry = ? AND project_id = ? AND hidden <> ?',
    ),
    count: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM projects'),
    // Reads the table, not just the connection: a handle whose file has gone bad fails here.
    ping: db.prepare('SELECT 1 FROM projects LIMIT 1'),
  }));

  const upsertTx = db.transaction((inputs: ProjectRecordInput[], records: ReturnType<typeof prepareRecords>, now: string): UpsertResult => {
    const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0 };
    records.forEach((r, i) => {
      const current = stmt.current.get(r.registry, r.projectId);
      if (current === undefined) {
        stmt.insert.run(r.registry, r.projectId, r.format, r.rawJson, r.rawHash, now);
        result.inserted++;
      } else if (current.raw_hash === r.rawHash && current.format === r.format) {
        result.unchanged++;
        return;
      } else {
        stmt.replaceRaw.run(r.format, r.rawJson, r.rawHash, now, r.registry, r.projectId);
        result.updated++;
      }
      const input = inputs[i] as ProjectRecordInput;
      // The catalogue derives no field from enrichment, so the record alone gives its entry.
      catalogue.put({ ...input, enrichment: {}, hidden: current?.hidden === 1, updatedAt: now });
    });
    return result;
  });

  const setHiddenTx = db.transaction((ref: ProjectRef, flag: number, now: string) => {
    stmt.setHidden.run(flag, now, ref.registry, ref.projectId, flag);
    catalogue.setHidden(ref, flag === 1);
  });

  const enrichTx = db.transaction((ref: ProjectRef, patch: ProjectEnrichment, now: string) => {
    const row = stmt.enrichment.get(ref.registry, ref.projectId);
    if (row === undefined) return;
    const before = parseJsonObject(row.enrichment_json) as ProjectEnrichment;
    const after = mergeEnrichment(before, patch);
    if (canonicalJson(after) === canonicalJson(before)) return;
    stmt.setEnrichment.run(JSON.stringify(after), now, ref.registry, ref.projectId);
  });

  let closed = false;
  const run = <T>(fn: () => T): T => {
    if (closed) throw closedStoreError(STORE);
    return guardSqlite(STORE, fn);
  };

  return {
    async upsert(records: ProjectRecordInput[]): Promise<UpsertResult> {
      const prepared = prepareRecords(records);
      if (prepared.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
      return run(() => upsertTx.immediate(records, prepared, new Date().toISOString()));
    },

    async get(ref: ProjectRef): Promise<StoredProject | null> {
      checkRef(ref, 'ref');
      const row = run(() => stmt.get.get(ref.registry, ref.projectId));
      return row === undefined ? null : storedProjectFromRow(row);
    },

    async getMany(refs: ProjectRef[]): Promise<Map<string, StoredProject>> {
      refs.forEach((ref, i) => checkRef(ref, `refs[${i}]`));
      const out = new Map<string, StoredProject>();
      if (refs.length === 0) return out;
      const rows = run(() => stmt.getMany.all(JSON.stringify(refs.map((r) => [r.registry, r.projectId]))));
      for (const row of rows) {
        const stored = storedProjectFromRow(row);
        out.set(projectKey(stored.ref), stored);
      }
      return out;
    },

    async versions(refs: ProjectRef[]): Promise<Map<string, string>> {
      refs.forEach((ref, i) => checkRef(ref, `refs[${i}]`));
      const out = new Map<string, string>();
      if (refs.length === 0) return out;
      const rows = run(() => stmt.versions.all(JSON.stringify(refs.map((r) => [r.registry, r.projectId]))));
      for (const row of rows) out.set(projectKey({ registry: row.registry, projectId: row.project_id }), row.updated_at);
      return out;
    },

    async list(filter?: { registry?: string }): Promise<ProjectRef[]> {
      const rows = run(() => (filter?.registry === undefined ? stmt.listAll.all() : stmt.listRegistry.all(filter.registry)));
      return rows.map((r) => ({ registry: r.registry, projectId: r.project_id }));
    },

    async updateEnrichment(ref: ProjectRef, patch: ProjectEnrichment): Promise<void> {
      checkRef(ref, 'ref');
      checkEnrichment(patch);
      run(() => enrichTx.immediate(ref, patch, new Date().toISOString()));
    },

    async setHidden(ref: ProjectRef, hidden: boolean): Promise<void> {
      checkRef(ref, 'ref');
      if (typeof hidden !== 'boolean') throw new TypeError(`hidden must be a boolean (got ${String(hidden)})`);
      const flag = hidden ? 1 : 0;
      run(() => setHiddenTx.immediate(ref, flag, new Date().toISOString()));
    },

    async searchProjects(query: ProjectSearchQuery): Promise<ProjectSearchPage> {
      return run(() => catalogue.search(query));
    },

    async count(): Promise<number> {
      return run(() => stmt.count.get()?.n ?? 0);
    },

    async ping(): Promise<void> {
      run(() => stmt.ping.get());
    },

    async close(): Promise<void> {
      // The handle is shared with the other stores and the vector index; whoever opened it closes it.
      closed = true;
    },
  };
}
