import type { Logger } from '../src/logger.js';
import type { ProjectRef } from '../src/domain/project-ref.js';
import type { TextChunk } from '../src/domain/chunking.js';
import type { CountryLookup } from '../src/ports/country-lookup.js';
import type { DocumentLeases } from '../src/ports/document-leases.js';
import type { DocumentState, DocumentStateStore } from '../src/ports/document-state-store.js';
import type { DocumentTextStore } from '../src/ports/document-text-store.js';
import type { DownloadedContent, Downloader } from '../src/ports/downloader.js';
import type { Embedder } from '../src/ports/embedder.js';
import type { ListedDocument } from '../src/ports/ingest-queue.js';
import type { RecordStore } from '../src/ports/record-store.js';
import type { VectorIndex } from '../src/ports/vector-index.js';
import type { ExtractResult } from './stages/extract-pdf.js';

/** The stores and models the worker writes to; built by ingest/deps.ts (or by the API for in-process indexing). */
export interface IngestDeps {
  records: RecordStore;
  states: DocumentStateStore;
  texts: DocumentTextStore;
  index: VectorIndex;
  embedder: Embedder;
  /** Names the project's country in the chunks' search context; without it the context has no country. */
  countries?: CountryLookup;
  /** Embedded store: leases that keep two concurrent runs off each other's documents (runIngest). */
  leases?: DocumentLeases;
}

/** How a document's processing ended in this run. */
export type DocumentOutcome =
  | { kind: 'indexed' }
  /** Content hash, uploadDate, title, type and embedder as at the last successful run: nothing written. */
  | { kind: 'unchanged' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'needs_ocr'; reason: string }
  /**
   * `retryable`: another attempt later may succeed (a timeout, a 503); the queue worker retries such documents.
   * `downloadFailure`: the kind of a failed download (DownloadFailureKind, or `placeholder`), for metrics.
   */
  | { kind: 'failed'; reason: string; retryable?: boolean; downloadFailure?: string };

/** Extracts a PDF's text per page (ingest/stages/extract.ts createPdfExtractor: child processes under the EXTRACT_* limits). */
export interface PdfExtractor {
  extract(bytes: Uint8Array): Promise<ExtractResult>;
  /** Ends the extraction processes; extractions in flight fail. */
  close(): Promise<void>;
}

/**
 * One document of one project travelling through the stages. Each stage fills in its part, or sets `outcome`
 * to end the document early (the pipeline then records the outcome and runs no further stage).
 */
export interface DocumentWorkItem extends ListedDocument {
  /** The project's part of the chunks' search context (domain/search-context.ts), set by discover. */
  projectContext?: string;
  /** State at discovery; null for a document never seen before. */
  previous: DocumentState | null;
  content?: DownloadedContent;
  /** Extracted text per physical page, normalised; pages[0] is page 1. */
  pages?: string[];
  /** 1-based numbers of the pages whose text was read by OCR. */
  ocrPages?: number[];
  chunks?: TextChunk[];
  vectors?: Float32Array[];
  /** Per chunk, the vectors of its sentences (embed stage); absent or empty arrays for none. */
  sentenceVectors?: Float32Array[][];
  outcome?: DocumentOutcome;
}

/** Documents a project lists now, and the states of documents it no longer lists (cleaned up by discover). */
export interface ProjectWork {
  ref: ProjectRef;
  items: DocumentWorkItem[];
  /** Documents removed from the record, whose chunks, text and state were deleted. */
  removed: number;
}

export interface StageContext {
  deps: IngestDeps;
  downloader: Downloader;
  /** Extracts PDF text in child processes under the EXTRACT_* limits; owned (and closed) by whoever built it. */
  extractor: PdfExtractor;
  logger: Logger;
  /** Re-embed even when a document is unchanged. */
  force: boolean;
  /** Chunk size limit in estimated tokens (derived from the embedder's maxInputTokens). */
  chunkMaxTokens: number;
  /** Embed each chunk's sentences too (absent: no). */
  sentenceVectors?: boolean;
  signal?: AbortSignal;
}

/** Every document stage has this shape: take the item, return it with its part done (or an outcome set). */
export type Stage = (item: DocumentWorkItem, ctx: StageContext) => Promise<DocumentWorkItem>;
