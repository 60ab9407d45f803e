import type { RawRecord } from '../domain/raw-record.js';

export interface RegistryProjectSummary {
  projectId: number;
  name: string;
  status?: string;
}

/** A registry's public API: raw records by id, and project search. */
export interface RegistryClient {
  /** Canonical registry name this client serves, e.g. `Verra`. */
  readonly registry: string;
  /** The raw record, or null when the registry has no such project. Throws RegistryError on bad answers. */
  fetchProject(projectId: number, signal?: AbortSignal): Promise<RawRecord | null>;
  searchProjects(query: { name?: string; status?: string; limit?: number }, signal?: AbortSignal): Promise<RegistryProjectSummary[]>;
}
