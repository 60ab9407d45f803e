import {
  FACETS,
  MAX_SEARCH_WORDS,
  facetKey,
  positionProblem,
  searchWords,
  type CataloguePosition,
  type Facet,
} from '../domain/project-catalogue.js';
import type { ProjectSearchHit, ProjectSearchQuery } from '../ports/record-store.js';

/**
 * Pieces of project discovery the SQLite and PostgreSQL record stores share: the checked, normalised form of a
 * search, so both backends match the same words and filters, and reject the same bad inputs.
 */

export interface NormalisedSearch {
  /** Distinct normalised query words, in query order. */
  words: string[];
  registries: string[];
  /** Facets with at least one value, in FACETS order, each with its `facet:value` keys. */
  facets: Array<{ facet: Facet; keys: string[] }>;
  limit: number;
  after: CataloguePosition | undefined;
}

function checkStrings(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new TypeError(`${where} must be an array of strings (got ${JSON.stringify(value)})`);
  }
  return value as string[];
}

function checkPosition(value: unknown): CataloguePosition | undefined {
  if (value === undefined) return undefined;
  const problem = positionProblem(value);
  if (problem !== undefined) {
    throw new TypeError(`after must be a position {tier, sortKey, registry, projectId}: ${problem} (got ${JSON.stringify(value)})`);
  }
  const p = value as CataloguePosition;
  return { tier: p.tier, sortKey: p.sortKey, registry: p.registry, projectId: p.projectId };
}

/** Throws a TypeError naming the field unless `query` is usable; returns its normalised form. */
export function normaliseSearch(query: ProjectSearchQuery): NormalisedSearch {
  if (query === null || typeof query !== 'object') throw new TypeError('searchProjects expects a query object');
  if (typeof query.text !== 'string') throw new TypeError(`text must be a string (got ${JSON.stringify(query.text)})`);
  if (!Number.isSafeInteger(query.limit) || query.limit < 1) {
    throw new TypeError(`limit must be a positive integer (got ${JSON.stringify(query.limit)})`);
  }
  const words = [...new Set(searchWords(query.text))];
  if (words.length > MAX_SEARCH_WORDS) throw new TypeError(`text has ${words.length} words; at most ${MAX_SEARCH_WORDS} are searched`);
  const registries = [...new Set(checkStrings(query.registries, 'registries'))];
  const facets: NormalisedSearch['facets'] = [];
  for (const facet of FACETS) {
    const values = checkStrings(query.facets?.[facet], `facets.${facet}`);
    if (values.length > 0) facets.push({ facet, keys: [...new Set(values.map((v) => facetKey(facet, v)))] });
  }
  return { words, registries, facets, limit: query.limit, after: checkPosition(query.after) };
}

/** An FTS5 expression over the catalogue's full-text table: every word as a prefix, in any column. Words are letter
 * and digit runs, so quoting them needs no escaping. */
export function ftsMatch(words: readonly string[]): string {
  return words.map((w) => `"${w}"*`).join(' AND ');
}

/** A PostgreSQL tsquery text: every word as a quoted prefix lexeme, taken verbatim by the `::tsquery` cast. */
export function tsqueryText(words: readonly string[]): string {
  return words.map((w) => `'${w}':*`).join(' & ');
}

/** A result row as either driver returns it (node-postgres gives BIGINT as a string). */
export type CatalogueRow = {
  registry: string;
  project_id: number | string;
  name: string;
  location: string;
  methodology: string;
  type: string;
  status: string;
  proponent: string;
  sort_key: string;
  tier: number;
};

export function hitFromRow(row: CatalogueRow): ProjectSearchHit {
  const projectId = Number(row.project_id);
  return {
    ref: { registry: row.registry, projectId },
    name: row.name,
    location: row.location,
    methodology: row.methodology,
    type: row.type,
    status: row.status,
    proponent: row.proponent,
    position: { tier: Number(row.tier), sortKey: row.sort_key, registry: row.registry, projectId },
  };
}
