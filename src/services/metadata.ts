import type { CleanedRecord } from '../domain/cleaned-record.js';
import { deriveCleaned } from '../domain/derive-cleaned.js';
import { projectKey, type ProjectRef } from '../domain/project-ref.js';
import type { CountryLookup } from '../ports/country-lookup.js';
import type { RecordStore, StoredProject } from '../ports/record-store.js';

/** A project as a caller asked for it: the canonical reference, and the registry spelled as the caller spelled it. */
export interface RequestedProject {
  ref: ProjectRef;
  requestedRegistry: string;
}

/** A cleaned record (SPEC 2.1), or the stored raw record (SPEC 2.4, or a CSV export row) when raw was asked for. */
export type ProjectView = CleanedRecord | Record<string, unknown>;

export interface MetadataService {
  /** The project's record, or null when the service does not hold it. */
  getOne(project: RequestedProject, opts: { raw: boolean }): Promise<ProjectView | null>;
  /**
   * One entry per distinct project id, in request order, keyed by the id as a string; null for a project the
   * service does not hold. Entries are a list, not an object: JavaScript objects order integer-like keys
   * numerically, which would lose the request order. Callers reject one id under two registries beforehand
   * (`ambiguous_project_id`); if they do not, the first occurrence of an id wins.
   */
  getBatch(projects: readonly RequestedProject[], opts: { raw: boolean }): Promise<Array<[string, ProjectView | null]>>;
}

export interface MetadataServiceOptions {
  records: RecordStore;
  countries: CountryLookup;
}

export function createMetadataService(opts: MetadataServiceOptions): MetadataService {
  const { records, countries } = opts;

  const view = (stored: StoredProject, requestedRegistry: string, raw: boolean): ProjectView =>
    raw ? stored.raw : deriveCleaned(stored, { requestedRegistry, countries });

  return {
    async getOne(project, { raw }) {
      const stored = await records.get(project.ref);
      return stored === null ? null : view(stored, project.requestedRegistry, raw);
    },

    async getBatch(projects, { raw }) {
      const distinct = new Map<number, RequestedProject>();
      for (const p of projects) if (!distinct.has(p.ref.projectId)) distinct.set(p.ref.projectId, p);
      const wanted = [...distinct.values()];
      const found = wanted.length === 0 ? new Map<string, StoredProject>() : await records.getMany(wanted.map((p) => p.ref));
      return wanted.map((p): [string, ProjectView | null] => {
        const stored = found.get(projectKey(p.ref));
        return [String(p.ref.projectId), stored === undefined ? null : view(stored, p.requestedRegistry, raw)];
      });
    },
  };
}
