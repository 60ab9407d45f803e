import type { ProjectEnrichment } from '../domain/cleaned-record.js';
import type { CataloguePosition, Facet, ProjectListing } from '../domain/project-catalogue.js';
import type { ProjectRef } from '../domain/project-ref.js';
import type { ProjectRecordInput, StoredProject } from '../domain/stored-project.js';

export type { ProjectRecordInput, RecordFormat, StoredProject } from '../domain/stored-project.js';

export interface UpsertResult {
  inserted: number;
  updated: number;
  unchanged: number;
}

/** A discovery search (CONTRACT 2, "Project discovery"), as the store runs it. */
export interface ProjectSearchQuery {
  /** Free text: every one of its words (searchWords) must start a word of the project's name, proponent, methodology, location, id or description. Empty: no word condition. */
  text: string;
  /** Canonical registry names; a project matches one of them. Absent or empty: any registry. */
  registries?: readonly string[];
  /** Per facet, values of which a project must match one (normaliseValue, exact); facets combine with AND. */
  facets?: Partial<Record<Facet, readonly string[]>>;
  /** Most projects returned. */
  limit: number;
  /** Results strictly after this position (the last one of the previous page). */
  after?: CataloguePosition;
}

export interface ProjectSearchHit extends ProjectListing {
  ref: ProjectRef;
  position: CataloguePosition;
}

export interface ProjectSearchPage {
  /** In discovery order: relevance tier, then normalised name, registry, id. Hidden projects never appear. */
  hits: ProjectSearchHit[];
  /** Projects matching the query and filters, whatever the page. */
  total: number;
  /** Whether projects follow the last hit. */
  more: boolean;
}

/**
 * The record store: raw registry records plus what the service derived about each project.
 * Keyed by (registry, projectId); every write is idempotent.
 */
export interface RecordStore {
  /** Inserts or replaces raw records. Enrichment and hidden survive a raw update. */
  upsert(records: ProjectRecordInput[]): Promise<UpsertResult>;
  get(ref: ProjectRef): Promise<StoredProject | null>;
  /** Found projects only; missing refs are absent from the result. Keyed by projectKey(ref). */
  getMany(refs: ProjectRef[]): Promise<Map<string, StoredProject>>;
  /**
   * The updatedAt of each found project, keyed by projectKey(ref), without reading the records: lets a reader that
   * keeps derived copies check them cheaply. Optional; readers fall back to getMany.
   */
  versions?(refs: ProjectRef[]): Promise<Map<string, string>>;
  /** Every stored project, ordered by registry then id; optionally one registry only. */
  list(filter?: { registry?: string }): Promise<ProjectRef[]>;
  /** Merges fields into the project's enrichment (undefined fields are left as they are). No-op for unknown refs. */
  updateEnrichment(ref: ProjectRef, patch: ProjectEnrichment): Promise<void>;
  setHidden(ref: ProjectRef, hidden: boolean): Promise<void>;
  /**
   * Project discovery over the store's full-text index of every project's catalogue entry (catalogueEntry, kept
   * current on every write). Stable paging: a position stays valid while projects are added or changed.
   */
  searchProjects(query: ProjectSearchQuery): Promise<ProjectSearchPage>;
  count(): Promise<number>;
  /** Throws DependencyError when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
