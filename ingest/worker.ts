import PQueue from 'p-queue';
import { projectKey } from '../src/domain/project-ref.js';
import type { Logger } from '../src/logger.js';
import type { ClaimedDocumentJob, DocumentJobResult, EnrichJob, IngestJobHandlers } from '../src/ports/ingest-queue.js';
import type { Summarizer } from '../src/ports/summarizer.js';
import type { WorkerMetrics } from './metrics.js';
import { runDocumentStages } from './pipeline.js';
import { chunkTokenBudget } from './stages/chunk.js';
import { projectContextOf } from './stages/discover.js';
import { createEnrichHook } from './stages/enrich.js';
import { recordOutcome } from './stages/upsert.js';
import type { Downloader } from '../src/ports/downloader.js';
import type { DocumentWorkItem, IngestDeps, PdfExtractor, StageContext } from './types.js';

/**
 * What a queue worker (`npm run worker`) does with a claimed job: the same stages as the in-process run
 * (ingest/pipeline.ts runDocumentStages), one document per job. A failure that another attempt may mend (a timeout,
 * a 503) goes back to the queue for a retry with back-off and leaves the document's state as it was; on the last
 * attempt, and for every other outcome, the document's state is recorded as the in-process run records it.
 */
export interface WorkerHandlerOptions {
  deps: IngestDeps;
  downloader: Downloader;
  /** Built and closed by the caller (ingest/worker-main.ts), under the EXTRACT_* limits. */
  extractor: PdfExtractor;
  summarizer: Summarizer;
  logger: Logger;
  sentenceVectors?: boolean;
  metrics?: WorkerMetrics;
  /** Aborts the documents in flight (a second SIGTERM): they are retried later by some worker. */
  signal?: AbortSignal;
}

export function createWorkerHandlers(opts: WorkerHandlerOptions): IngestJobHandlers {
  const { deps, logger, metrics } = opts;
  // Documents of this process are prepared side by side; one at a time is embedded (as in runIngest).
  const embedding = new PQueue({ concurrency: 1 });

  async function document(job: ClaimedDocumentJob): Promise<DocumentJobResult> {
    const project = projectKey(job.ref);
    const stored = await deps.records.get(job.ref);
    if (!stored) {
      logger.warn({ project, documentId: job.documentId }, 'project is no longer stored; job dropped');
      return { status: 'done', outcome: 'skipped', reason: 'project no longer stored', indexed: false, failed: false };
    }
    const ctx: StageContext = {
      deps,
      downloader: opts.downloader,
      extractor: opts.extractor,
      logger,
      force: job.force,
      chunkMaxTokens: chunkTokenBudget(deps.embedder.maxInputTokens),
      sentenceVectors: opts.sentenceVectors ?? false,
      ...(opts.signal ? { signal: opts.signal } : {}),
    };
    const item: DocumentWorkItem = {
      ref: job.ref,
      documentId: job.documentId,
      uri: job.uri,
      title: job.title,
      documentType: job.documentType,
      uploadDate: job.uploadDate,
      projectContext: projectContextOf(stored, job.ref, deps.countries),
      previous: await deps.states.get(job.ref, job.documentId),
    };
    const done = await runDocumentStages(item, ctx, embedding, (seconds) => metrics?.embedSeconds(seconds));
    const outcome = done.outcome ?? { kind: 'failed' as const, reason: 'internal: no outcome' };
    if (outcome.kind === 'failed' && outcome.retryable === true && !job.lastAttempt) {
      logger.warn({ project, uri: job.uri, attempt: job.attempt, reason: outcome.reason }, 'document failed; the queue retries it later');
      metrics?.retried(outcome);
      return { status: 'retry', reason: outcome.reason };
    }
    await recordOutcome(done, ctx);
    const pages = outcome.kind === 'indexed' ? (done.pages?.length ?? 0) : 0;
    const chunks = outcome.kind === 'indexed' ? (done.chunks?.length ?? 0) : 0;
    metrics?.document(outcome, { pages, chunks });
    const ocrPages = outcome.kind === 'indexed' ? (done.ocrPages?.length ?? 0) : 0;
    logger.info(
      { project, uri: job.uri, attempt: job.attempt, outcome: outcome.kind, pages, ...(ocrPages ? { ocrPages } : {}), chunks },
      'document done',
    );
    return {
      status: 'done',
      outcome: outcome.kind,
      ...('reason' in outcome ? { reason: outcome.reason } : {}),
      indexed: outcome.kind === 'indexed',
      failed: outcome.kind === 'failed',
    };
  }

  async function enrichProject(job: EnrichJob): Promise<void> {
    const enrich = createEnrichHook({
      summarizer: opts.summarizer,
      countries: deps.countries,
      force: job.force,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    await enrich(job.ref, { deps, logger, changed: job.changed });
    logger.info({ project: projectKey(job.ref), changed: job.changed }, 'project enrichment done');
  }

  return { document, enrich: enrichProject };
}
