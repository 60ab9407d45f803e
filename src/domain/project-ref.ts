import { distinctBy } from './text.js';

/** A project as the service identifies it: the canonical registry name and the numeric id. */
export interface ProjectRef {
  registry: string;
  projectId: number;
}

/** Stable string key of a project, used in maps and as the vector-index filter value. */
export function projectKey(ref: ProjectRef): string {
  return `${ref.registry}:${ref.projectId}`;
}

/**
 * A project as a caller asked for it, from the HTTP request to the services: the canonical reference (what stores and
 * the vector-index filter take), and the registry as the caller spelled it (echoed back, SPEC 2.1).
 */
export interface RequestedProject {
  ref: ProjectRef;
  requestedRegistry: string;
}

/** The first occurrence of each requested project (by projectKey of its ref), in order. */
export function distinctProjects<T extends { ref: ProjectRef }>(projects: readonly T[]): T[] {
  return distinctBy(projects, (p) => projectKey(p.ref));
}

/** The first occurrence of each project ref, in order (the vector indexes' filters). */
export function distinctRefs<T extends ProjectRef>(refs: readonly T[]): T[] {
  return distinctBy(refs, projectKey);
}
