import type { ProjectEnrichment } from '../domain/cleaned-record.js';
import type { ProjectRef } from '../domain/project-ref.js';

/**
 * How a stored raw record is shaped: `registry-json` is the registry's JSON record (SPEC 2.4); `csv:<source>`
 * is one row of a registry's CSV export (e.g. `csv:gold-standard`), returned as-is with `raw: true`.
 */
export type RecordFormat = 'registry-json' | `csv:${string}`;

export interface ProjectRecordInput {
  ref: ProjectRef;
  format: RecordFormat;
  raw: Record<string, unknown>;
}

export interface StoredProject extends ProjectRecordInput {
  enrichment: ProjectEnrichment;
  hidden: boolean;
  /** ISO timestamp of the last change to raw, enrichment or hidden. */
  updatedAt: string;
}

export interface UpsertResult {
  inserted: number;
  updated: number;
  unchanged: number;
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
  count(): Promise<number>;
  /** Throws DependencyError when the store cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
