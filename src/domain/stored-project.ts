import type { ProjectEnrichment } from './cleaned-record.js';
import type { ProjectRef } from './project-ref.js';

/**
 * How a stored raw record is shaped: `registry-json` is the registry's JSON record (SPEC 2.4); `csv:<source>`
 * is one row of a registry's CSV export (e.g. `csv:gold-standard`), returned as-is with `raw: true`.
 */
export type RecordFormat = 'registry-json' | `csv:${string}`;

/** A project's raw record as imported. */
export interface ProjectRecordInput {
  ref: ProjectRef;
  format: RecordFormat;
  raw: Record<string, unknown>;
}

/** A project as the record store keeps it: its raw record, what enrichment derived from its documents, visibility. */
export interface StoredProject extends ProjectRecordInput {
  enrichment: ProjectEnrichment;
  hidden: boolean;
  /** ISO timestamp of the last change to raw, enrichment or hidden. */
  updatedAt: string;
}
