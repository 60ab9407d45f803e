import { canonicalRegistry } from './registries.js';
import type { ProjectRef } from './project-ref.js';

/**
 * Ids of the passages the MCP `search` tool returns and `fetch` reads back. A passage is one page of one indexed
 * document (the search ranks pages, one citation per page), so its id is what identifies that page and nothing a
 * store assigns: the registry, the project id, the document id (a hash of the document's canonical uri, the same
 * across re-ingests: domain/chunking.ts documentIdFor) and the 1-based page. The id therefore survives restarts and
 * re-ingests of unchanged documents, and reads as what it is: `verra:4086:<document id>:12`.
 */
export interface PassageRef extends ProjectRef {
  documentId: string;
  /** 1-based physical page. */
  page: number;
}

const DOCUMENT_ID = /^[0-9a-f]{32}$/;

export function formatPassageId(ref: PassageRef): string {
  // The registry in lower case, spaces as `_` (canonical names hold neither `:` nor `_`).
  return [ref.registry.toLowerCase().replaceAll(' ', '_'), String(ref.projectId), ref.documentId, String(ref.page)].join(':');
}

/** The passage an id names, or null when the string is not such an id (the registry is canonicalised). */
export function parsePassageId(id: string): PassageRef | null {
  const parts = id.trim().split(':');
  if (parts.length !== 4) return null;
  const [registryPart, projectPart, documentId, pagePart] = parts as [string, string, string, string];
  const registry = canonicalRegistry(registryPart.replaceAll('_', ' '));
  if (
    registry === null ||
    !/^[1-9][0-9]{0,14}$/.test(projectPart) ||
    !DOCUMENT_ID.test(documentId) ||
    !/^[1-9][0-9]{0,5}$/.test(pagePart)
  ) {
    return null;
  }
  return { registry, projectId: Number(projectPart), documentId, page: Number(pagePart) };
}

/** The document's address opened at a page (`#page=N`, which PDF viewers follow); any earlier fragment is replaced. */
export function pageLink(uri: string, page: number): string {
  const hash = uri.indexOf('#');
  return `${hash < 0 ? uri : uri.slice(0, hash)}#page=${page}`;
}
