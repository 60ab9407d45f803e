import type { ProjectRef } from '../domain/project-ref.js';

export type DocumentStatus = 'pending' | 'indexed' | 'failed' | 'skipped' | 'needs_ocr';

/** What the worker knows about one document of one project. */
export interface DocumentState {
  registry: string;
  projectId: number;
  documentId: string;
  uri: string;
  title: string;
  documentType: string;
  uploadDate: string | null;
  status: DocumentStatus;
  /** Why a document failed, was skipped or needs OCR. */
  reason: string | null;
  contentHash: string | null;
  pages: number | null;
  chunks: number | null;
  /** Pages whose text was read by OCR; absent when none was. */
  ocrPages?: number;
  embedderId: string | null;
  updatedAt: string;
}

export type DocumentStateInput = Omit<DocumentState, 'updatedAt'>;

/** Per-document ingestion state, stored beside the records. */
export interface DocumentStateStore {
  put(state: DocumentStateInput): Promise<void>;
  get(ref: ProjectRef, documentId: string): Promise<DocumentState | null>;
  list(filter?: { projects?: ProjectRef[]; status?: DocumentStatus }): Promise<DocumentState[]>;
  /** Indexed documents per project key, 0 for projects with none. */
  countIndexed(projects: ProjectRef[]): Promise<Map<string, number>>;
  /** Removes states of documents a project no longer lists; returns the removed ones. */
  removeOthers(ref: ProjectRef, keepDocumentIds: string[]): Promise<DocumentState[]>;
  close(): Promise<void>;
}
