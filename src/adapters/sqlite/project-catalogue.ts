import { CATALOGUE_VERSION, catalogueEntry } from '../../domain/project-catalogue.js';
import type { ProjectRef } from '../../domain/project-ref.js';
import type { CountryLookup } from '../../ports/country-lookup.js';
import type { ProjectSearchHit, ProjectSearchPage, ProjectSearchQuery, StoredProject } from '../../ports/record-store.js';
import { ftsMatch, hitFromRow, normaliseSearch, type CatalogueRow, type NormalisedSearch } from '../catalogue-support.js';
import { storedProjectFromRow, type ProjectRow } from '../store-support.js';
import type { SqliteDatabase, SqliteMigration } from './database.js';

/**
 * Project discovery on the embedded database: one catalogue row per project (catalogueEntry), its words in an FTS5
 * table and its filter values in a facet table. The record store writes an entry in the same transaction as the
 * record, so a search never sees a project without its entry (or the reverse).
 */

export const catalogueMigration: SqliteMigration = {
  name: '0002-project-catalogue',
  up(db) {
    // id is the rowid shared with the full-text table. sort_key and registry compare as bytes (BINARY), the order
    // PostgreSQL's "C" collation gives, so both stores page alike.
    db.exec(`CREATE TABLE project_catalogue (
      id INTEGER PRIMARY KEY,
      registry TEXT NOT NULL,
      project_id INTEGER NOT NULL,
      version INTEGER NOT NULL,
      hidden INTEGER NOT NULL,
      name TEXT NOT NULL,
      location TEXT NOT NULL,
      methodology TEXT NOT NULL,
      type TEXT NOT NULL,
      status TEXT NOT NULL,
      proponent TEXT NOT NULL,
      sort_key TEXT NOT NULL,
      UNIQUE (registry, project_id)
    )`);
    // Narrow rows: a search reads one per match. Listing without words walks this index in page order.
    db.exec('CREATE INDEX project_catalogue_order ON project_catalogue (sort_key, registry, project_id)');
    db.exec('CREATE INDEX project_catalogue_hidden ON project_catalogue (hidden)');
    // Each word preceded by a space (wordList), for matching a few candidates without the full-text table.
    db.exec(`CREATE TABLE project_catalogue_words (
      id INTEGER PRIMARY KEY REFERENCES project_catalogue (id) ON DELETE CASCADE,
      name_words TEXT NOT NULL,
      short_words TEXT NOT NULL,
      all_words TEXT NOT NULL
    )`);
    db.exec(`CREATE TABLE project_catalogue_facets (
      key TEXT NOT NULL,
      id INTEGER NOT NULL REFERENCES project_catalogue (id) ON DELETE CASCADE,
      PRIMARY KEY (key, id)
    ) WITHOUT ROWID`);
    db.exec('CREATE INDEX project_catalogue_facets_id ON project_catalogue_facets (id)');
    // The words are normalised before they get here (searchWords): the ascii tokenizer only splits them at the
    // spaces that join them, and keeps non-ASCII letters as they are. detail=column: no positions are needed.
    db.exec(`CREATE VIRTUAL TABLE project_catalogue_text USING fts5(
      name, about, description, tokenize = 'ascii', detail = 'column'
    )`);
  },
};

export interface SqliteCatalogue {
  /** Writes the entry of a stored project; call inside the transaction that wrote the record. */
  put(stored: StoredProject): void;
  setHidden(ref: ProjectRef, hidden: boolean): void;
  /** Derives the entries that are missing or were written by an older CATALOGUE_VERSION; returns how many. */
  reconcile(): number;
  search(query: ProjectSearchQuery): ProjectSearchPage;
}

const RECONCILE_BATCH = 500;

/**
 * Below this many candidates left by the most selective filter, words are matched in the candidates' word lists
 * instead of through the full-text table (bench/metadata/discovery.ts: a few thousand short lists scan faster than
 * a prefix query over the whole table).
 */
const WORD_SCAN_CANDIDATES = 2000;

/** Words as stored for matching: each preceded by a space, so ` word` found in it means a word starting so. */
const wordList = (words: readonly string[]): string => [...new Set(words)].map((w) => ` ${w}`).join('');

type Statement = ReturnType<SqliteDatabase['prepare']>;

export function createSqliteCatalogue(db: SqliteDatabase, countries: CountryLookup): SqliteCatalogue {
  const stmt = {
    upsert: db.prepare<[string, number, number, number, string, string, string, string, string, string, string], { id: number }>(
      `INSERT INTO project_catalogue (registry, project_id, version, hidden, name, location, methodology, type, status, proponent, sort_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (registry, project_id) DO UPDATE SET version = excluded.version, hidden = excluded.hidden,
         name = excluded.name, location = excluded.location, methodology = excluded.methodology, type = excluded.type,
         status = excluded.status, proponent = excluded.proponent, sort_key = excluded.sort_key
       RETURNING id`,
    ),
    putWords: db.prepare<[number, string, string, string]>(
      'INSERT OR REPLACE INTO project_catalogue_words (id, name_words, short_words, all_words) VALUES (?, ?, ?, ?)',
    ),
    facetCount: db.prepare<[string], { n: number }>(
      'SELECT count(*) AS n FROM project_catalogue_facets WHERE key IN (SELECT value FROM json_each(?))',
    ),
    deleteText: db.prepare<[number]>('DELETE FROM project_catalogue_text WHERE rowid = ?'),
    insertText: db.prepare<[number, string, string, string]>(
      'INSERT INTO project_catalogue_text (rowid, name, about, description) VALUES (?, ?, ?, ?)',
    ),
    deleteFacets: db.prepare<[number]>('DELETE FROM project_catalogue_facets WHERE id = ?'),
    insertFacet: db.prepare<[string, number]>('INSERT OR IGNORE INTO project_catalogue_facets (key, id) VALUES (?, ?)'),
    setHidden: db.prepare<[number, string, number]>('UPDATE project_catalogue SET hidden = ? WHERE registry = ? AND project_id = ?'),
    stale: db.prepare<[number, number], ProjectRow>(
      `SELECT p.* FROM projects p
         LEFT JOIN project_catalogue c ON c.registry = p.registry AND c.project_id = p.project_id
        WHERE c.version IS NULL OR c.version <> ? LIMIT ?`,
    ),
  };

  const put = (stored: StoredProject): void => {
    const e = catalogueEntry(stored, countries);
    const row = stmt.upsert.get(
      stored.ref.registry,
      stored.ref.projectId,
      CATALOGUE_VERSION,
      e.hidden ? 1 : 0,
      e.name,
      e.location,
      e.methodology,
      e.type,
      e.status,
      e.proponent,
      e.sortKey,
    );
    if (row === undefined) throw new Error('catalogue upsert returned no id');
    stmt.putWords.run(
      row.id,
      wordList(e.words.name),
      wordList([...e.words.name, ...e.words.about]),
      wordList([...e.words.name, ...e.words.about, ...e.words.description]),
    );
    stmt.deleteText.run(row.id);
    stmt.insertText.run(row.id, e.words.name.join(' '), e.words.about.join(' '), e.words.description.join(' '));
    stmt.deleteFacets.run(row.id);
    for (const key of e.facets) stmt.insertFacet.run(key, row.id);
  };

  const reconcileBatch = db.transaction((): number => {
    const rows = stmt.stale.all(CATALOGUE_VERSION, RECONCILE_BATCH);
    for (const row of rows) put(storedProjectFromRow(row));
    return rows.length;
  });

  // One prepared pair (page, count) per query shape: which conditions are present, not their values.
  const prepared = new Map<string, { page: Statement; count: Statement }>();

  /**
   * Three plans, one result. Without words, the order index gives the page directly. With words, either the
   * full-text table matches them (prefix scans of each word's postings, and of the name and name+about columns for
   * the relevance tier), or, when a filter leaves few candidates, the candidates' word lists are searched for
   * ` word`: both mean "every query word begins a word of the project".
   */
  const statementsFor = (q: NormalisedSearch, plan: 'list' | 'fulltext' | 'candidates') => {
    const shape = JSON.stringify([plan, q.words.length, q.registries.length > 0, q.facets.map((f) => f.facet), q.after !== undefined]);
    let found = prepared.get(shape);
    if (found !== undefined) return found;
    // With words, `+` keeps SQLite from probing the hidden index once per match (it reads the row anyway).
    const where = [plan === 'list' ? 'c.hidden = 0' : '+c.hidden = 0'];
    const every = (column: string) => q.words.map((_, i) => `instr(w.${column}, @w${i}) > 0`).join(' AND ');
    const fts = (match: string) => `c.id IN (SELECT rowid FROM project_catalogue_text WHERE project_catalogue_text MATCH ${match})`;
    if (plan === 'fulltext') where.push(fts('@all'));
    if (plan === 'candidates') where.push(every('all_words'));
    if (q.registries.length > 0) where.push('c.registry IN (SELECT value FROM json_each(@registries))');
    q.facets.forEach((_, i) => {
      where.push(`c.id IN (SELECT id FROM project_catalogue_facets WHERE key IN (SELECT value FROM json_each(@facet${i})))`);
    });
    const from = plan === 'candidates' ? 'project_catalogue c JOIN project_catalogue_words w ON w.id = c.id' : 'project_catalogue c';
    const columns = 'c.registry, c.project_id, c.name, c.location, c.methodology, c.type, c.status, c.proponent, c.sort_key';
    const count = db.prepare(`SELECT count(*) AS n FROM ${from} WHERE ${where.join(' AND ')}`);
    if (plan === 'list') {
      const after = q.after !== undefined ? ' AND (c.sort_key, c.registry, c.project_id) > (@sortKey, @registry, @projectId)' : '';
      found = {
        page: db.prepare(
          `SELECT ${columns}, 0 AS tier FROM ${from} WHERE ${where.join(' AND ')}${after}
            ORDER BY c.sort_key, c.registry, c.project_id LIMIT @limit`,
        ),
        count,
      };
    } else {
      const tier =
        plan === 'candidates'
          ? `CASE WHEN ${every('name_words')} THEN 0 WHEN ${every('short_words')} THEN 1 ELSE 2 END`
          : `CASE WHEN ${fts('@name')} THEN 0 WHEN ${fts('@short')} THEN 1 ELSE 2 END`;
      const after = q.after !== undefined ? 'WHERE (tier, sort_key, registry, project_id) > (@tier, @sortKey, @registry, @projectId)' : '';
      // Only the order keys go through the sort; the page's rows are read after it. The total comes from the count
      // statement: a window count here would copy every matching row first.
      found = {
        page: db.prepare(
          `WITH m AS (SELECT * FROM (SELECT c.id, c.sort_key, c.registry, c.project_id, ${tier} AS tier FROM ${from} WHERE ${where.join(' AND ')})
                       ${after} ORDER BY tier, sort_key, registry, project_id LIMIT @limit)
           SELECT ${columns}, m.tier FROM m JOIN project_catalogue c ON c.id = m.id
            ORDER BY m.tier, m.sort_key, m.registry, m.project_id`,
        ),
        count,
      };
    }
    prepared.set(shape, found);
    return found;
  };

  return {
    put,

    setHidden(ref, hidden) {
      stmt.setHidden.run(hidden ? 1 : 0, ref.registry, ref.projectId);
    },

    reconcile() {
      let total = 0;
      for (;;) {
        const n = reconcileBatch.immediate();
        total += n;
        if (n < RECONCILE_BATCH) return total;
      }
    },

    search(query) {
      const q = normaliseSearch(query);
      const params: Record<string, unknown> = {};
      q.words.forEach((w, i) => {
        params[`w${i}`] = ` ${w}`;
      });
      if (q.registries.length > 0) params.registries = JSON.stringify(q.registries);
      q.facets.forEach((f, i) => {
        params[`facet${i}`] = JSON.stringify(f.keys);
      });
      let plan: 'list' | 'fulltext' | 'candidates' = 'list';
      if (q.words.length > 0) {
        const fewest = Math.min(...q.facets.map((f) => stmt.facetCount.get(JSON.stringify(f.keys))?.n ?? 0));
        plan = fewest <= WORD_SCAN_CANDIDATES ? 'candidates' : 'fulltext';
      }
      if (plan === 'fulltext') {
        const match = ftsMatch(q.words);
        Object.assign(params, { all: match, name: `{name} : (${match})`, short: `{name about} : (${match})` });
      }
      const { page, count } = statementsFor(q, plan);
      const countParams = { ...params };
      if (plan === 'list' && q.after !== undefined && q.after.tier > 0) {
        // Without words every project is in tier 0: nothing follows a position in a later tier.
        return { hits: [], total: (count.get(countParams) as { n: number } | undefined)?.n ?? 0, more: false };
      }
      if (q.after !== undefined) Object.assign(params, q.after);
      const rows = page.all({ ...params, limit: q.limit + 1 }) as CatalogueRow[];
      const total = (count.get(countParams) as { n: number } | undefined)?.n ?? 0;
      const hits: ProjectSearchHit[] = rows.slice(0, q.limit).map(hitFromRow);
      return { hits, total, more: rows.length > q.limit };
    },
  };
}
