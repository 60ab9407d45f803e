import { createHash } from 'node:crypto';
import { FACETS, MAX_SEARCH_WORDS, listing, normaliseValue, positionProblem, searchWords } from '../domain/project-catalogue.js';
import type { CataloguePosition, Facet, ProjectListing } from '../domain/project-catalogue.js';
import { projectKey } from '../domain/project-ref.js';
import { canonicalRegistry, knownRegistryNames } from '../domain/registries.js';
import { AppError } from '../errors.js';
import type { DocumentStateStore } from '../ports/document-state-store.js';
import type { RecordStore } from '../ports/record-store.js';

/** CONTRACT 2, "Project discovery": find projects by words and filters without knowing their ids. */

export const DEFAULT_DISCOVERY_LIMIT = 20;
export const MAX_DISCOVERY_LIMIT = 200;

export interface DiscoveryRequest {
  query?: string;
  /** Each filter: one value or several (a project matches any of them); filters combine with AND. */
  registry?: string[];
  country?: string[];
  methodology?: string[];
  type?: string[];
  status?: string[];
  /** @default 20 */
  limit?: number;
  cursor?: string;
}

export interface DiscoveredProject extends ProjectListing {
  projectId: number;
  registry: string;
  indexedDocuments: number;
}

export interface DiscoveryResponse {
  projects: DiscoveredProject[];
  nextCursor: string | null;
  total: number;
}

export interface DiscoveryService {
  search(request: DiscoveryRequest): Promise<DiscoveryResponse>;
}

export interface DiscoveryServiceOptions {
  records: Pick<RecordStore, 'searchProjects'>;
  documents: Pick<DocumentStateStore, 'countIndexed'>;
}

/**
 * What a cursor belongs to: the words and filters, normalised, so a cursor from another search is refused rather
 * than silently paging something else. The page size may change between pages.
 */
function fingerprint(words: string[], registries: string[], facets: Partial<Record<Facet, string[]>>): string {
  const norm = [words, [...registries].sort(), FACETS.map((f) => [...(facets[f] ?? [])].map(normaliseValue).sort())];
  return createHash('sha256').update(JSON.stringify(norm)).digest('base64url').slice(0, 12);
}

/** The cursor: base64url JSON of the search's fingerprint and the last position shown. Opaque to clients. */
function encodeCursor(print: string, p: CataloguePosition): string {
  return Buffer.from(JSON.stringify([1, print, p.tier, p.sortKey, p.registry, p.projectId]), 'utf8').toString('base64url');
}

function invalidRequest(path: string, detail: string, message = `${path}: ${detail}`): AppError {
  return new AppError('invalid_request', message, { details: [{ path, message: detail }] });
}

const badCursor = (detail: string): AppError => invalidRequest('cursor', detail);

const NOT_OURS = 'is not a cursor this service gave out; pass nextCursor from the previous page unchanged';

/** The position a cursor carries, checked to the values a store writes (positionProblem): a forged one is a 400. */
function decodeCursor(cursor: string, print: string): CataloguePosition {
  let parsed: unknown;
  try {
    // Node's base64url decoding skips characters outside the alphabet: such a cursor is refused, not decoded.
    if (/^[A-Za-z0-9_-]*$/.test(cursor)) parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    // Not JSON: refused below, like any other cursor this service did not give out.
  }
  const [version, p, tier, sortKey, registry, projectId] = Array.isArray(parsed) && parsed.length === 6 ? (parsed as unknown[]) : [];
  if (version !== 1 || typeof p !== 'string') throw badCursor(NOT_OURS);
  if (p !== print) throw badCursor('belongs to a search with other words or filters; start again without a cursor');
  const position = { tier, sortKey, registry, projectId };
  if (positionProblem(position) !== undefined) throw badCursor(NOT_OURS);
  return position as CataloguePosition;
}

export function createDiscoveryService(opts: DiscoveryServiceOptions): DiscoveryService {
  const { records, documents } = opts;
  return {
    async search(request) {
      const limit = request.limit ?? DEFAULT_DISCOVERY_LIMIT;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_DISCOVERY_LIMIT) {
        const detail = `must be an integer from 1 to ${MAX_DISCOVERY_LIMIT}`;
        throw invalidRequest('limit', detail, `limit ${detail} (got ${limit})`);
      }
      const registries: string[] = [];
      for (const name of request.registry ?? []) {
        const canonical = canonicalRegistry(name);
        if (canonical === null) {
          const unknown = `unknown registry ${JSON.stringify(name)}`;
          const details = [{ path: 'registry', message: unknown }];
          throw new AppError('unknown_registry', `registry: ${unknown}; known: ${knownRegistryNames().join(', ')}`, { details });
        }
        if (!registries.includes(canonical)) registries.push(canonical);
      }
      const given = FACETS.map((facet) => [facet, request[facet] ?? []] as const);
      const facets: Partial<Record<Facet, string[]>> = Object.fromEntries(given.filter(([, values]) => values.length > 0));
      const text = request.query ?? '';
      const words = [...new Set(searchWords(text))];
      if (words.length > MAX_SEARCH_WORDS) {
        const detail = `at most ${MAX_SEARCH_WORDS} distinct words`;
        throw invalidRequest('query', detail, `query: ${detail} are searched (got ${words.length})`);
      }
      const print = fingerprint(words, registries, facets);
      const after = request.cursor !== undefined ? decodeCursor(request.cursor, print) : undefined;

      const page = await records.searchProjects({ text, registries, facets, limit, ...(after ? { after } : {}) });
      const counts = page.hits.length > 0 ? await documents.countIndexed(page.hits.map((h) => h.ref)) : new Map<string, number>();
      const last = page.hits[page.hits.length - 1];
      return {
        projects: page.hits.map((h) => ({
          projectId: h.ref.projectId,
          registry: h.ref.registry,
          ...listing(h),
          indexedDocuments: counts.get(projectKey(h.ref)) ?? 0,
        })),
        nextCursor: page.more && last !== undefined ? encodeCursor(print, last.position) : null,
        total: page.total,
      };
    },
  };
}
