/** A project as the service identifies it: the canonical registry name and the numeric id. */
export interface ProjectRef {
  registry: string;
  projectId: number;
}

/** Stable string key of a project, used in maps and as the vector-index filter value. */
export function projectKey(ref: ProjectRef): string {
  return `${ref.registry}:${ref.projectId}`;
}

export function sameProject(a: ProjectRef, b: ProjectRef): boolean {
  return a.registry === b.registry && a.projectId === b.projectId;
}
