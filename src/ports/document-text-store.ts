import type { ProjectRef } from '../domain/project-ref.js';

/**
 * Extracted text of each indexed document, page by page (index 0 = page 1). Written by the worker after
 * extraction; read to derive document-based fields (summary, emission-reduction table) without re-downloading.
 */
export interface DocumentTextStore {
  put(ref: ProjectRef, documentId: string, pages: string[]): Promise<void>;
  get(ref: ProjectRef, documentId: string): Promise<string[] | null>;
  delete(ref: ProjectRef, documentId: string): Promise<void>;
  close(): Promise<void>;
}
