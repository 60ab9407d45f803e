import { LRUCache } from 'lru-cache';
import type { CleanedRecord } from '../domain/cleaned-record.js';
import { deriveCleaned } from '../domain/derive-cleaned.js';
import { projectKey, type ProjectRef, type RequestedProject } from '../domain/project-ref.js';
import { distinctBy } from '../domain/text.js';
import type { CountryLookup } from '../ports/country-lookup.js';
import type { RecordStore, StoredProject } from '../ports/record-store.js';

export type { RequestedProject } from '../domain/project-ref.js';

/** A cleaned record (SPEC 2.1), or the stored raw record (SPEC 2.4, or a CSV export row) when raw was asked for. */
export type ProjectView = CleanedRecord | Record<string, unknown>;

export interface MetadataService {
  /** The project's record, or null when the service does not hold it. */
  getOne(project: RequestedProject, opts: { raw: boolean }): Promise<ProjectView | null>;
  /** getOne's record as JSON text, serialised once per record version (what the HTTP route sends). */
  getOneJson(project: RequestedProject, opts: { raw: boolean }): Promise<string | null>;
  /**
   * One entry per distinct project id, in request order: the id as a string and the record as JSON text ('null' for a
   * project the service does not hold). Entries are a list, not an object: JavaScript objects order integer-like keys
   * numerically, which would lose the request order. Callers reject one id under two registries beforehand
   * (`ambiguous_project_id`); if they do not, the first occurrence of an id wins.
   */
  getBatchJson(projects: readonly RequestedProject[], opts: { raw: boolean }): Promise<Array<[string, string]>>;
}

export interface MetadataServiceOptions {
  records: RecordStore;
  countries: CountryLookup;
  /** Clock in ms, for tests. @default Date.now */
  now?: () => number;
}

/** The serialised records of one project at one version (its updatedAt). */
interface CachedProject {
  updatedAt: string;
  /** The cleaned record's text per registry spelling (the record echoes the caller's spelling); null: the raw record. */
  texts: Map<string | null, string>;
}

/** Spellings of one project's registry kept at once ("Verra", "verra", ...); more start the list again. */
const MAX_SPELLINGS = 8;
/**
 * A record changed less than this long ago is derived on every read and not cached: updatedAt has millisecond
 * resolution, so two writes in one millisecond would leave the same version on different contents.
 */
const SETTLE_MS = 1000;

/** The stored projects by key; a single project is read with `get`, the others with one `getMany`. */
async function readStored(records: RecordStore, refs: ProjectRef[]): Promise<Map<string, StoredProject>> {
  if (refs.length !== 1) return records.getMany(refs);
  const stored = await records.get(refs[0] as ProjectRef);
  return new Map(stored === null ? [] : [[projectKey(stored.ref), stored]]);
}

/**
 * Records as the API serves them. The cleaned record is derived from the stored project (raw record, enrichment,
 * hidden) and the caller's registry spelling only, so its JSON text is derived and serialised once per record version
 * and spelling and kept (2000 projects, the least recently used dropped first); the store is still read on
 * every request, so a change by the worker is served at once.
 */
export function createMetadataService(opts: MetadataServiceOptions): MetadataService {
  const { records, countries } = opts;
  const now = opts.now ?? Date.now;
  const cache = new LRUCache<string, CachedProject>({ max: 2000 });

  const view = (stored: StoredProject, requestedRegistry: string, raw: boolean): ProjectView =>
    raw ? stored.raw : deriveCleaned(stored, { requestedRegistry, countries });

  /** The texts kept for a project at its version `updatedAt`, by spelling (null: raw); undefined for none. */
  const keptTexts = (key: string, updatedAt: string): Map<string | null, string> | undefined => {
    const entry = cache.get(key);
    return entry?.updatedAt === updatedAt ? entry.texts : undefined;
  };

  const json = (stored: StoredProject, requestedRegistry: string, raw: boolean): string => {
    const serialise = () => JSON.stringify(view(stored, requestedRegistry, raw));
    // Made once per version and spelling (null: raw), unless the record changed too recently (SETTLE_MS).
    if (Date.parse(stored.updatedAt) >= now() - SETTLE_MS) return serialise();
    const key = projectKey(stored.ref);
    const spelling = raw ? null : requestedRegistry;
    const kept = keptTexts(key, stored.updatedAt);
    const known = kept?.get(spelling);
    if (known !== undefined) return known;
    const text = serialise();
    const texts = kept !== undefined && kept.size < MAX_SPELLINGS ? kept : new Map<string | null, string>();
    cache.set(key, { updatedAt: stored.updatedAt, texts: texts.set(spelling, text) });
    return text;
  };

  /**
   * The projects' records as JSON text, null for those not held. With a store that reports versions, records whose
   * text is kept at their current version are not read at all (reading and parsing them is most of the cost).
   */
  const serialised = async (wanted: readonly RequestedProject[], raw: boolean): Promise<Array<string | null>> => {
    const versions = records.versions !== undefined && cache.size > 0 ? await records.versions(wanted.map((p) => p.ref)) : undefined;
    // Per project: the text kept at its current version, null when it is not held, undefined when it is to be read.
    const known = wanted.map((p): string | null | undefined => {
      if (versions === undefined) return undefined;
      const key = projectKey(p.ref);
      const version = versions.get(key);
      return version === undefined ? null : keptTexts(key, version)?.get(raw ? null : p.requestedRegistry);
    });
    const toRead = wanted.filter((_, i) => known[i] === undefined);
    if (toRead.length === 0) return known as Array<string | null>;
    const refs = toRead.map((p) => p.ref);
    const found = await readStored(records, refs);
    return wanted.map((p, i) => {
      const stored = found.get(projectKey(p.ref));
      if (known[i] !== undefined || stored === undefined) return known[i] ?? null;
      return json(stored, p.requestedRegistry, raw);
    });
  };

  return {
    async getOneJson(project, { raw }) {
      return (await serialised([project], raw))[0] ?? null;
    },

    async getBatchJson(projects, { raw }) {
      const wanted = distinctBy(projects, (p) => String(p.ref.projectId));
      if (wanted.length === 0) return [];
      const texts = await serialised(wanted, raw);
      return wanted.map((p, i): [string, string] => [String(p.ref.projectId), texts[i] ?? 'null']);
    },

    async getOne(project, { raw }) {
      const stored = await records.get(project.ref);
      return stored === null ? null : view(stored, project.requestedRegistry, raw);
    },
  };
}
