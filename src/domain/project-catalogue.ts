import type { CountryLookup } from './country-lookup.js';
import type { StoredProject } from './stored-project.js';
import { deriveCleaned } from './derive-cleaned.js';
import { wordRuns } from './text.js';

/**
 * What project discovery (CONTRACT 2; docs/api.md) knows about a project: the cleaned fields it shows and filters on,
 * and the words it matches, derived once when a record is written so a search reads no raw record. Both record stores
 * share this derivation, so they find, filter and order the same projects. Words are normalised here rather than by
 * the databases' tokenisers (FTS5's, PostgreSQL's parser), which differ on hyphens, dots, digits and non-Latin
 * scripts ("Río Verde, VM0047-v1" -> ["rio", "verde", "vm0047", "v1"]); each store indexes those words verbatim.
 */

/** Bumped whenever catalogueEntry() changes what it derives: a store re-derives older entries when it opens. */
export const CATALOGUE_VERSION = 1;

/** More distinct words than this in one query are refused: each becomes a prefix term of the full-text query. */
export const MAX_SEARCH_WORDS = 32;

/** The filters of a discovery request. `registry` is matched on the stored canonical name, the others as facets. */
export const FACETS = ['country', 'methodology', 'type', 'status'] as const;
export type Facet = (typeof FACETS)[number];

/** How a project is listed when it is found: the cleaned record's fields a researcher picks it by. */
export interface ProjectListing {
  name: string;
  location: string;
  methodology: string;
  type: string;
  status: string;
  proponent: string;
}

/** The listing fields of a cleaned record or a search hit, in the listing's order. */
export function listing({ name, location, methodology, type, status, proponent }: ProjectListing): ProjectListing {
  return { name, location, methodology, type, status, proponent };
}

export interface CatalogueEntry extends ProjectListing {
  hidden: boolean;
  /** Normalised words of the name (the best match), of proponent, methodology, location and id, and of the description. */
  words: { name: string[]; about: string[]; description: string[] };
  /** Orders results: the normalised name, compared byte by byte (the same order in SQLite and PostgreSQL "C"). */
  sortKey: string;
  /** `facet:normalised value` keys the filters match (facetKey). */
  facets: string[];
}

/** Lower-case runs of letters and digits, accents removed. Empty for a text without any. */
export function searchWords(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}+/gu, '');
  return wordRuns(folded.toLowerCase());
}

/** A filter value as stored and compared: its words joined by single spaces ("Agriculture, Forestry" -> "agriculture forestry"). */
export function normaliseValue(text: string): string {
  return searchWords(text).join(' ');
}

export function facetKey(facet: Facet, value: string): string {
  return `${facet}:${normaliseValue(value)}`;
}

/** The discovery entry of a stored project. Total, like deriveCleaned: odd records give empty fields, never a throw. */
export function catalogueEntry(stored: StoredProject, countries: CountryLookup): CatalogueEntry {
  const cleaned = deriveCleaned(stored, { requestedRegistry: stored.ref.registry, countries });
  // The methodology field lists several codes (`VM0007, VM0015`, or `;` in some exports): each filters on its own too.
  const methodologies = [cleaned.methodology, ...cleaned.methodology.split(/[,;]/)].map((m): [Facet, string] => ['methodology', m]);
  const values: Array<[Facet, string]> = [
    ['country', cleaned.location],
    ...methodologies,
    ['type', cleaned.type],
    ['status', cleaned.status],
  ];
  const facets = new Set(values.filter(([, value]) => normaliseValue(value) !== '').map(([facet, value]) => facetKey(facet, value)));
  const proponents = [cleaned.proponent, ...(cleaned.metadata.specific_proponents ?? [])];
  const about = [...proponents, cleaned.methodology, cleaned.location, String(stored.ref.projectId)];
  return {
    ...listing(cleaned),
    hidden: stored.hidden === true,
    words: {
      name: searchWords(cleaned.name),
      about: searchWords(about.join(' ')),
      description: searchWords(cleaned.description),
    },
    sortKey: normaliseValue(cleaned.name),
    facets: [...facets],
  };
}

/** Where a result stands in the discovery order: relevance tier, then name, registry and id. A cursor carries it. */
export interface CataloguePosition {
  /** 0: every query word is in the name; 1: in the name, proponent, methodology, location or id; 2: needs the description. */
  tier: number;
  sortKey: string;
  registry: string;
  projectId: number;
}

/** The last relevance tier (CataloguePosition.tier). */
export const MAX_TIER = 2;

/**
 * Why `value` is not a position a store can have produced, or undefined when it is one: a position comes back from
 * clients inside a cursor, so every part is checked to the values a store writes (docs/security.md).
 */
export function positionProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return 'is not an object';
  const p = value as Record<string, unknown>;
  if (typeof p.tier !== 'number' || !Number.isInteger(p.tier) || p.tier < 0 || p.tier > MAX_TIER) {
    return `tier must be an integer from 0 to ${MAX_TIER}`;
  }
  // A sort key is normaliseValue's output: words of letters and digits joined by single spaces.
  if (typeof p.sortKey !== 'string' || !/^(?:[\p{L}\p{N}]+(?: [\p{L}\p{N}]+)*)?$/u.test(p.sortKey)) {
    return 'sortKey must be normalised words (letters and digits separated by single spaces)';
  }
  // \p{C}: control characters (NUL), format characters and lone surrogates.
  if (typeof p.registry !== 'string' || !/^[^\p{C}]{1,200}$/u.test(p.registry)) {
    return 'registry must be a name of 1 to 200 printable characters';
  }
  if (typeof p.projectId !== 'number' || !Number.isSafeInteger(p.projectId) || p.projectId < 1) {
    return 'projectId must be a positive safe integer';
  }
  return undefined;
}
