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
  runsOfDistinctKeys,
  storedProjectFromRow,
  type PreparedRecord,
  type ProjectRow,
} from '../store-support.js';
import { createCountryLookup } from '../geo/country-lookup.js';
import type { PgClient, PgMigration, PgPool } from './database.js';
import { catalogueMigration, putCatalogueEntries, reconcileCatalogue, searchCatalogue, setCatalogueHidden } from './project-catalogue.js';
import { openPgStore, pgTransaction } from './store-errors.js';

const STORE = 'record store';

/** Rows per INSERT statement: keeps each statement's arrays a few MB at most. */
const ROWS_PER_STATEMENT = 500;

const migrations: readonly PgMigration[] = [
  {
    name: '0001-projects',
    async up(client) {
      // JSON is kept as TEXT, not JSONB: JSONB reorders keys (raw responses keep the registry's order) and rejects
      // \u0000, which extracted document text can contain. raw_hash is over the canonical form (see upsert).
      await client.query(`CREATE TABLE projects (
        registry TEXT NOT NULL,
        project_id BIGINT NOT NULL,
        format TEXT NOT NULL,
        raw_json TEXT NOT NULL,
        raw_hash TEXT NOT NULL,
        enrichment_json TEXT NOT NULL DEFAULT '{}',
        hidden BOOLEAN NOT NULL DEFAULT false,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (registry, project_id)
      )`);
    },
  },
  catalogueMigration,
];

const COLUMNS = 'registry, project_id, format, raw_json, enrichment_json, hidden, updated_at';

export interface PgRecordStoreOptions {
  /** The shared pool (createPgPool); the caller owns it and ends it after every store. */
  pool: PgPool;
  /** Reverse geocoding for the discovery catalogue's location (catalogueEntry). @default createCountryLookup() */
  countries?: CountryLookup;
}

/** Records on PostgreSQL (DATABASE_URL). Safe for any number of API and worker processes writing at once. */
export async function createPgRecordStore(opts: PgRecordStoreOptions): Promise<RecordStore> {
  const { pool } = opts;
  const store = await openPgStore(pool, STORE, 'records', migrations);
  const open = store.assertOpen;
  const countries = opts.countries ?? createCountryLookup();
  const transaction = <T>(fn: (client: PgClient) => Promise<T>): Promise<T> => pgTransaction(pool, STORE, fn);
  // Entries missing (records written before the catalogue existed) or derived by an older version.
  await reconcileCatalogue(transaction, countries);

  return {
    async upsert(records: ProjectRecordInput[]): Promise<UpsertResult> {
      const prepared = prepareRecords(records);
      open();
      if (prepared.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
      // Sorted so concurrent batches lock rows in the same order (no deadlock); the sort is stable, so of two
      // records for one project the later still wins. A project seen again goes to the next statement, because
      // one INSERT ... ON CONFLICT cannot touch a row twice.
      const ordered = prepared.map((r, i) => ({ r, input: records[i] as ProjectRecordInput })).sort((a, b) => compareKeys(a.r, b.r));
      const runs = runsOfDistinctKeys(ordered, ({ r }) => `${r.registry}\u0000${r.projectId}`, ROWS_PER_STATEMENT);
      const now = new Date().toISOString();
      return pgTransaction(pool, STORE, async (client) => {
        const result: UpsertResult = { inserted: 0, updated: 0, unchanged: 0 };
        for (const items of runs) {
          const run = items.map((x) => x.r);
          // The WHERE makes an identical record a no-op: it returns no row and keeps its updated_at.
          const res = await client.query<{ inserted: boolean; registry: string; project_id: string; hidden: boolean }>(
            `INSERT INTO projects (registry, project_id, format, raw_json, raw_hash, updated_at)
             SELECT r.registry, r.project_id, r.format, r.raw_json, r.raw_hash, $6::timestamptz
               FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[])
                 AS r(registry, project_id, format, raw_json, raw_hash)
             ON CONFLICT (registry, project_id) DO UPDATE
               SET format = EXCLUDED.format, raw_json = EXCLUDED.raw_json, raw_hash = EXCLUDED.raw_hash,
                   updated_at = EXCLUDED.updated_at
               WHERE projects.raw_hash <> EXCLUDED.raw_hash OR projects.format <> EXCLUDED.format
             RETURNING (xmax = 0) AS inserted, registry, project_id, hidden`,
            [
              run.map((r) => r.registry),
              run.map((r) => r.projectId),
              run.map((r) => r.format),
              run.map((r) => r.rawJson),
              run.map((r) => r.rawHash),
              now,
            ],
          );
          const inserted = res.rows.filter((row) => row.inserted).length;
          result.inserted += inserted;
          result.updated += res.rows.length - inserted;
          result.unchanged += run.length - res.rows.length;
          // The catalogue derives no field from enrichment, so the record alone gives its entry.
          const written = new Map(res.rows.map((row) => [`${row.registry}\u0000${row.project_id}`, row.hidden]));
          const changed = items.flatMap(({ r, input }): StoredProject[] => {
            const hidden = written.get(`${r.registry}\u0000${r.projectId}`);
            return hidden === undefined ? [] : [{ ...input, enrichment: {}, hidden, updatedAt: now }];
          });
          await putCatalogueEntries(client, changed, countries);
        }
        return result;
      });
    },

    async get(ref: ProjectRef): Promise<StoredProject | null> {
      checkRef(ref, 'ref');
      open();
      const rows = await store.query<ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE registry = $1 AND project_id = $2`, [
        ref.registry,
        ref.projectId,
      ]);
      const row = rows[0];
      return row === undefined ? null : storedProjectFromRow(row);
    },

    async getMany(refs: ProjectRef[]): Promise<Map<string, StoredProject>> {
      refs.forEach((ref, i) => checkRef(ref, `refs[${i}]`));
      open();
      const out = new Map<string, StoredProject>();
      if (refs.length === 0) return out;
      const rows = await store.query<ProjectRow>(
        `SELECT ${COLUMNS} FROM projects
          WHERE (registry, project_id) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))`,
        [refs.map((r) => r.registry), refs.map((r) => r.projectId)],
      );
      for (const row of rows) {
        const stored = storedProjectFromRow(row);
        out.set(projectKey(stored.ref), stored);
      }
      return out;
    },

    async list(filter?: { registry?: string }): Promise<ProjectRef[]> {
      open();
      // COLLATE "C": the same byte order as SQLite, whatever the database's locale.
      const rows =
        filter?.registry === undefined
          ? await store.query<{ registry: string; project_id: string }>(
              'SELECT registry, project_id FROM projects ORDER BY registry COLLATE "C", project_id',
            )
          : await store.query<{ registry: string; project_id: string }>(
              'SELECT registry, project_id FROM projects WHERE registry = $1 ORDER BY project_id',
              [filter.registry],
            );
      return rows.map((r) => ({ registry: r.registry, projectId: Number(r.project_id) }));
    },

    async updateEnrichment(ref: ProjectRef, patch: ProjectEnrichment): Promise<void> {
      checkRef(ref, 'ref');
      checkEnrichment(patch);
      open();
      await pgTransaction(pool, STORE, async (client) => {
        // FOR UPDATE: two writers merging different fields at once must both land.
        const res = await client.query<{ enrichment_json: string }>(
          'SELECT enrichment_json FROM projects WHERE registry = $1 AND project_id = $2 FOR UPDATE',
          [ref.registry, ref.projectId],
        );
        const row = res.rows[0];
        if (row === undefined) return;
        const before = parseJsonObject(row.enrichment_json) as ProjectEnrichment;
        const after = mergeEnrichment(before, patch);
        if (canonicalJson(after) === canonicalJson(before)) return;
        await client.query('UPDATE projects SET enrichment_json = $1, updated_at = $2 WHERE registry = $3 AND project_id = $4', [
          JSON.stringify(after),
          new Date().toISOString(),
          ref.registry,
          ref.projectId,
        ]);
      });
    },

    async setHidden(ref: ProjectRef, hidden: boolean): Promise<void> {
      checkRef(ref, 'ref');
      if (typeof hidden !== 'boolean') throw new TypeError(`hidden must be a boolean (got ${String(hidden)})`);
      open();
      await transaction(async (client) => {
        await client.query('UPDATE projects SET hidden = $1, updated_at = $2 WHERE registry = $3 AND project_id = $4 AND hidden <> $1', [
          hidden,
          new Date().toISOString(),
          ref.registry,
          ref.projectId,
        ]);
        await setCatalogueHidden(client, ref.registry, ref.projectId, hidden);
      });
    },

    async searchProjects(query: ProjectSearchQuery): Promise<ProjectSearchPage> {
      open();
      return searchCatalogue((text, values) => store.query(text, values), query);
    },

    async count(): Promise<number> {
      open();
      const rows = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM projects');
      return rows[0]?.n ?? 0;
    },

    async ping(): Promise<void> {
      open();
      await store.query('SELECT 1');
    },

    async close(): Promise<void> {
      store.close();
    },
  };
}

function compareKeys(a: PreparedRecord, b: PreparedRecord): number {
  if (a.registry !== b.registry) return a.registry < b.registry ? -1 : 1;
  return a.projectId - b.projectId;
}
