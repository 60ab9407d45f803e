import { CATALOGUE_VERSION, catalogueEntry } from '../../domain/project-catalogue.js';
import type { CountryLookup } from '../../ports/country-lookup.js';
import type { ProjectSearchPage, ProjectSearchQuery, StoredProject } from '../../ports/record-store.js';
import { hitFromRow, normaliseSearch, tsqueryText, type CatalogueRow } from '../catalogue-support.js';
import { storedProjectFromRow, type ProjectRow } from '../store-support.js';
import type { PgClient, PgMigration } from './database.js';
import { pgText } from './store-errors.js';

/**
 * Project discovery on PostgreSQL: one catalogue row per project (catalogueEntry) with its words as tsvectors built
 * from the normalised words verbatim (array_to_tsvector: no parser, no dictionary, so PostgreSQL matches exactly
 * the words SQLite's FTS5 table holds) and its filter values as a text[] of `facet:value` keys. The record store
 * writes an entry in the same transaction as the record.
 */

export const catalogueMigration: PgMigration = {
  name: '0002-project-catalogue',
  async up(client) {
    // COLLATE "C": byte order, as SQLite's BINARY, so both stores order and page alike.
    await client.query(`CREATE TABLE project_catalogue (
      registry TEXT COLLATE "C" NOT NULL,
      project_id BIGINT NOT NULL,
      version INTEGER NOT NULL,
      hidden BOOLEAN NOT NULL,
      name TEXT NOT NULL,
      location TEXT NOT NULL,
      methodology TEXT NOT NULL,
      type TEXT NOT NULL,
      status TEXT NOT NULL,
      proponent TEXT NOT NULL,
      sort_key TEXT COLLATE "C" NOT NULL,
      name_terms TSVECTOR NOT NULL,
      short_terms TSVECTOR NOT NULL,
      all_terms TSVECTOR NOT NULL,
      facets TEXT[] NOT NULL,
      PRIMARY KEY (registry, project_id)
    )`);
    // fastupdate off: new entries go straight into the index instead of a pending list that every search would scan
    // until the next vacuum (most of a filtered search's time right after a large import: bench/README.md "metadata").
    await client.query('CREATE INDEX project_catalogue_terms ON project_catalogue USING GIN (all_terms) WITH (fastupdate = off)');
    await client.query('CREATE INDEX project_catalogue_facets ON project_catalogue USING GIN (facets) WITH (fastupdate = off)');
    await client.query('CREATE INDEX project_catalogue_order ON project_catalogue (sort_key, registry, project_id)');
  },
};

/** Rows per INSERT statement when entries are written in bulk. */
const ROWS_PER_STATEMENT = 500;

/** Writes the entries of stored projects; call inside the transaction that wrote the records. */
export async function putCatalogueEntries(client: PgClient, projects: readonly StoredProject[], countries: CountryLookup): Promise<void> {
  for (let start = 0; start < projects.length; start += ROWS_PER_STATEMENT) {
    const batch = projects.slice(start, start + ROWS_PER_STATEMENT);
    const entries = batch.map((p) => catalogueEntry(p, countries));
    const column = <T>(f: (e: (typeof entries)[number], i: number) => T): T[] => entries.map(f);
    const ref = (i: number) => (batch[i] as StoredProject).ref;
    // Words joined by spaces (a word holds none) and facet keys by newlines (a key holds none), split back in SQL:
    // unnest cannot take arrays of arrays.
    await client.query(
      `INSERT INTO project_catalogue (registry, project_id, version, hidden, name, location, methodology, type, status,
                                      proponent, sort_key, name_terms, short_terms, all_terms, facets)
       SELECT e.registry, e.project_id, $1, e.hidden, e.name, e.location, e.methodology, e.type, e.status, e.proponent,
              e.sort_key,
              array_to_tsvector(string_to_array(e.name_words, ' ')),
              array_to_tsvector(string_to_array(e.short_words, ' ')),
              array_to_tsvector(string_to_array(e.all_words, ' ')),
              string_to_array(e.facets, E'\\n')
         FROM unnest($2::text[], $3::bigint[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                     $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[])
           AS e(registry, project_id, hidden, name, location, methodology, type, status, proponent, sort_key,
                name_words, short_words, all_words, facets)
       ON CONFLICT (registry, project_id) DO UPDATE SET version = EXCLUDED.version, hidden = EXCLUDED.hidden,
         name = EXCLUDED.name, location = EXCLUDED.location, methodology = EXCLUDED.methodology, type = EXCLUDED.type,
         status = EXCLUDED.status, proponent = EXCLUDED.proponent, sort_key = EXCLUDED.sort_key,
         name_terms = EXCLUDED.name_terms, short_terms = EXCLUDED.short_terms, all_terms = EXCLUDED.all_terms,
         facets = EXCLUDED.facets`,
      [
        CATALOGUE_VERSION,
        column((_, i) => ref(i).registry),
        column((_, i) => ref(i).projectId),
        column((e) => e.hidden),
        column((e) => pgText(e.name)),
        column((e) => pgText(e.location)),
        column((e) => pgText(e.methodology)),
        column((e) => pgText(e.type)),
        column((e) => pgText(e.status)),
        column((e) => pgText(e.proponent)),
        column((e) => e.sortKey),
        column((e) => distinctWords(e.words.name)),
        column((e) => distinctWords([...e.words.name, ...e.words.about])),
        column((e) => distinctWords([...e.words.name, ...e.words.about, ...e.words.description])),
        column((e) => e.facets.join('\n')),
      ],
    );
  }
}

const distinctWords = (words: readonly string[]): string => [...new Set(words)].join(' ');

export async function setCatalogueHidden(client: PgClient, registry: string, projectId: number, hidden: boolean): Promise<void> {
  await client.query('UPDATE project_catalogue SET hidden = $1 WHERE registry = $2 AND project_id = $3', [hidden, registry, projectId]);
}

const RECONCILE_BATCH = 500;

/**
 * Derives the entries that are missing or were written by an older CATALOGUE_VERSION, a batch per transaction;
 * returns how many. Safe to run from several processes at once (the writes are idempotent upserts).
 */
export async function reconcileCatalogue(
  transaction: <T>(fn: (client: PgClient) => Promise<T>) => Promise<T>,
  countries: CountryLookup,
): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await transaction(async (client) => {
      const res = await client.query<ProjectRow>(
        `SELECT p.registry, p.project_id, p.format, p.raw_json, p.enrichment_json, p.hidden, p.updated_at
           FROM projects p
           LEFT JOIN project_catalogue c ON c.registry = p.registry AND c.project_id = p.project_id
          WHERE c.version IS NULL OR c.version <> $1
          ORDER BY p.registry, p.project_id LIMIT $2
          FOR UPDATE OF p SKIP LOCKED`,
        [CATALOGUE_VERSION, RECONCILE_BATCH],
      );
      await putCatalogueEntries(client, res.rows.map(storedProjectFromRow), countries);
      return res.rows.length;
    });
    total += n;
    if (n < RECONCILE_BATCH) return total;
  }
}

/** Below this many candidates left by the most selective filter, words are checked row by row (see searchCatalogue). */
const WORD_SCAN_CANDIDATES = 2000;

/** Runs a discovery search: one statement for the page, one for the total. */
export async function searchCatalogue(
  query: <R extends Record<string, unknown>>(text: string, values?: unknown[]) => Promise<R[]>,
  search: ProjectSearchQuery,
): Promise<ProjectSearchPage> {
  const q = normaliseSearch(search);
  const values: unknown[] = [];
  const param = (v: unknown): string => {
    values.push(v);
    return `$${values.length}`;
  };
  const where = ['NOT c.hidden'];
  let tier = '0';
  if (q.words.length > 0) {
    const tsq = `${param(tsqueryText(q.words))}::tsquery`;
    // When a filter leaves few candidates, the words are checked on those rows only: written so that the planner
    // cannot use the words' index, whose prefix scan of a common word costs more than the whole filtered search.
    const counts = await Promise.all(
      q.facets.map(
        async (f) =>
          (await query<{ n: number }>('SELECT count(*)::int AS n FROM project_catalogue WHERE facets && $1::text[]', [f.keys]))[0]?.n ?? 0,
      ),
    );
    const candidatesOnly = Math.min(...counts) <= WORD_SCAN_CANDIDATES;
    where.push(candidatesOnly ? `(c.all_terms || ''::tsvector) @@ ${tsq}` : `c.all_terms @@ ${tsq}`);
    tier = `CASE WHEN c.name_terms @@ ${tsq} THEN 0 WHEN c.short_terms @@ ${tsq} THEN 1 ELSE 2 END`;
  }
  if (q.registries.length > 0) where.push(`c.registry = ANY(${param(q.registries)}::text[])`);
  for (const f of q.facets) where.push(`c.facets && ${param(f.keys)}::text[]`);
  const countValues = [...values];
  const countSql = `SELECT count(*)::int AS n FROM project_catalogue c WHERE ${where.join(' AND ')}`;
  let after = '';
  if (q.after !== undefined) {
    const a = q.after;
    after = `WHERE (tier, sort_key, registry, project_id) > (${param(a.tier)}::int, ${param(a.sortKey)}::text, ${param(a.registry)}::text, ${param(a.projectId)}::bigint)`;
  }
  // Only the order keys go through the sort; the page's rows are read after it. The total is counted beside it,
  // on another connection (a window count would first copy every matching row).
  const pageSql = `WITH m AS (
      SELECT * FROM (SELECT c.registry, c.project_id, c.sort_key, ${tier} AS tier FROM project_catalogue c WHERE ${where.join(' AND ')}) h
       ${after} ORDER BY tier, sort_key, registry, project_id LIMIT ${param(q.limit + 1)})
    SELECT c.registry, c.project_id, c.name, c.location, c.methodology, c.type, c.status, c.proponent, c.sort_key, m.tier
      FROM m JOIN project_catalogue c ON c.registry = m.registry AND c.project_id = m.project_id
     ORDER BY m.tier, m.sort_key, m.registry, m.project_id`;
  const [rows, counted] = await Promise.all([query<CatalogueRow>(pageSql, values), query<{ n: number }>(countSql, countValues)]);
  return { hits: rows.slice(0, q.limit).map(hitFromRow), total: counted[0]?.n ?? 0, more: rows.length > q.limit };
}
