import type { ProjectRef } from '../domain/project-ref.js';

/**
 * The scale-out worker's job queue (PostgreSQL, src/adapters/postgres/ingest-queue.ts). `npm run ingest` queues one
 * job per document; any number of `npm run worker` processes, on any machines, claim and run them. When the last job
 * of a project settles, the queue runs the project's enrichment job once.
 */

/** A document as its project's record lists it: what the worker's stages start from (ingest/types.ts). */
export interface ListedDocument {
  ref: ProjectRef;
  documentId: string;
  uri: string;
  title: string;
  documentType: string;
  uploadDate: string | null;
}

/** One document to download, extract, chunk, embed and index. */
export interface DocumentJob extends ListedDocument {
  /** Re-embed even when the document is unchanged (`--reindex`). */
  force: boolean;
}

/** A document job as a worker claimed it. */
export interface ClaimedDocumentJob extends DocumentJob {
  jobId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** No retry follows this attempt: a failure now is final and must be recorded as the document's state. */
  lastAttempt: boolean;
}

/** How a document job ended, as the worker's handler reports it. */
export type DocumentJobResult =
  /** Done: indexed, unchanged, skipped, needs OCR, or a failure that another attempt cannot mend. */
  | { status: 'done'; outcome: string; reason?: string; indexed: boolean; failed: boolean }
  /** A failure that another attempt later may mend (a timeout, a 503): retried with back-off while attempts remain. */
  | { status: 'retry'; reason: string };

/** Derive the project's document-based fields once its documents are done. */
export interface EnrichJob {
  ref: ProjectRef;
  /** A document of the project was (re)indexed since its last enrichment job. */
  changed: boolean;
  force: boolean;
}

export interface IngestJobHandlers {
  document(job: ClaimedDocumentJob): Promise<DocumentJobResult>;
  enrich(job: EnrichJob): Promise<void>;
  /** Told when a job is claimed and settled, for logs and metrics. */
  onClaim?(job: ClaimedDocumentJob): void;
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export interface QueueStatus {
  /** Per queue (`documents`, `enrich`), jobs in each state. */
  queues: Record<'documents' | 'enrich', Record<JobState, number>>;
  /** Jobs waiting to be claimed (created + retry) over both queues. */
  depth: number;
  /** The most recent failed document jobs, newest first, with the reason kept. */
  failed: { project: string; documentId: string; uri: string; attempts: number; reason: string; failedAt: string }[];
}

export interface EnqueueResult {
  queued: number;
  /** Documents that already had a job waiting to be claimed: not queued twice. */
  alreadyWaiting: number;
}

export interface WorkOptions {
  /** Documents this process runs at once. */
  concurrency: number;
  /** Names this process in the recorded claims (host:pid by default). */
  workerName: string;
  /** Stops claiming when aborted; the jobs in flight go on (close() waits for them). */
  signal: AbortSignal;
}

export interface IngestQueue {
  enqueueDocuments(jobs: readonly DocumentJob[]): Promise<EnqueueResult>;
  /** Queues a project's enrichment directly: for a project with no document to process. */
  enqueueEnrich(ref: ProjectRef, opts: { force: boolean }): Promise<void>;
  /** Claims and runs jobs until `signal` aborts. */
  work(handlers: IngestJobHandlers, opts: WorkOptions): Promise<void>;
  status(): Promise<QueueStatus>;
  close(): Promise<void>;
}
