import type { RawRecord } from '../domain/raw-record.js';

/**
 * A registry answered with something the client cannot use. `retryable` says whether asking again can help
 * (retryable statuses, network failures and time-outs); the client's retry policy already did so before throwing.
 */
export class RegistryError extends Error {
  readonly registry: string;
  readonly url: string;
  readonly status: number | null;
  readonly retryable: boolean;
  /** Delay the registry asked for (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | null;
  constructor(
    registry: string,
    url: string,
    message: string,
    opts: { status?: number | null; retryable?: boolean; retryAfterMs?: number | null; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'RegistryError';
    this.registry = registry;
    this.url = url;
    this.status = opts.status ?? null;
    this.retryable = opts.retryable ?? false;
    this.retryAfterMs = opts.retryAfterMs ?? null;
  }
}

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
