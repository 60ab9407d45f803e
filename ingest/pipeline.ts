import PQueue from 'p-queue';
import { DependencyError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import { distinctRefs, projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import { leaseHolderGone, newLeaseHolder } from './lease-holder.js';
import { createBarProgress, createLogProgress, silentProgress, type ProgressReporter } from './progress.js';
import { chunk, chunkTokenBudget } from './stages/chunk.js';
import { discover } from './stages/discover.js';
import { download } from './stages/download.js';
import { embed } from './stages/embed.js';
import { extract } from './stages/extract.js';
import { skipUnchanged } from './stages/unchanged.js';
import { recordOutcome, upsert } from './stages/upsert.js';
import type { Downloader } from '../src/ports/downloader.js';
import type { DocumentOutcome, DocumentWorkItem, IngestDeps, PdfExtractor, Stage, StageContext } from './types.js';

/**
 * The worker's pipeline: discover -> download -> (unchanged?) -> extract -> chunk -> embed -> upsert.
 * Documents are prepared (downloaded, extracted, chunked) several at a time while one document at a time is embedded
 * and written, so the embedder - the slowest stage - always has the next document waiting. Back-pressure: a prepared
 * document holds its preparation slot until it is written, so at most `prepareConcurrency` documents are in memory.
 */

export interface AfterProjectContext {
  deps: IngestDeps;
  logger: Logger;
  /** The project's documents as this run left them (outcome set on each). */
  documents: DocumentWorkItem[];
}

export type AfterProjectHook = (ref: ProjectRef, ctx: AfterProjectContext) => Promise<void>;

export interface RunIngestOptions {
  deps: IngestDeps;
  /** Projects to process; with `all`, every stored project. Neither: nothing but an empty summary. */
  projects?: ProjectRef[];
  all?: boolean;
  logger: Logger;
  /** true: a bar on a TTY, log lines otherwise; false: nothing; or a reporter of your own. @default false */
  progress?: boolean | ProgressReporter;
  /** Fetches the documents (the roots build one under the DOWNLOAD_* settings). */
  downloader: Downloader;
  /** Extracts their text (the roots build one under the EXTRACT_* limits, and close it). */
  extractor: PdfExtractor;
  /** Re-embed documents even when unchanged (`--reindex`). @default false */
  force?: boolean;
  /** Embed each chunk's sentences beside it (the worker and the API pass config SENTENCE_VECTORS). @default false */
  sentenceVectors?: boolean;
  /** Documents prepared ahead of the embedder. @default 3 */
  prepareConcurrency?: number;
  /** Runs after each project's documents are done, e.g. to derive enrichment from their text. Errors are logged. */
  afterProject?: AfterProjectHook;
  /** With `deps.leases`: how long a document's lease lasts unless renewed (renewed every third of it). @default 60000 */
  leaseTtlMs?: number;
  signal?: AbortSignal;
}

export interface IngestFailure {
  project: string;
  documentId: string;
  uri: string;
  reason: string;
}

export interface IngestSummary {
  projects: number;
  documents: {
    total: number;
    indexed: number;
    unchanged: number;
    skipped: number;
    needsOcr: number;
    failed: number;
    /** Documents removed from their record, whose chunks and state were deleted. */
    removed: number;
    /** Left to another run on the same store: it held them, or finished them while this run was under way. */
    heldByOtherRun: number;
  };
  pages: number;
  /** Of `pages`, those read by OCR. */
  ocrPages: number;
  chunks: number;
  durationMs: number;
  /** Seconds spent inside Embedder.embed, to compare pipeline throughput with the embedder's. */
  embedSeconds: number;
  failures: IngestFailure[];
  /** The other runs that held documents of this one (their lease holder names: host:pid:id). */
  otherRuns: string[];
}

/** How long a document's lease lasts unless renewed; a run that dies holds its documents this long at most. */
export const DEFAULT_LEASE_TTL_MS = 60_000;

const PREPARE_STAGES: readonly Stage[] = [download, skipUnchanged, extract, chunk];

/**
 * One discovered document through the stages: download -> (unchanged?) -> extract -> chunk, then embed -> upsert
 * under `embedding` (one document at a time: the embedder parallelises inside a batch, two callers only contend).
 * A stage that ends the document sets its outcome; a store down, an abort or a bug rejects. `onEmbedSeconds` gets the
 * time spent inside the embedder. Used by runIngest and by the queue worker (ingest/worker.ts).
 */
export async function runDocumentStages(
  item: DocumentWorkItem,
  ctx: StageContext,
  embedding: PQueue,
  onEmbedSeconds?: (seconds: number) => void,
): Promise<DocumentWorkItem> {
  let current = item;
  for (const stage of PREPARE_STAGES) {
    if (current.outcome) break;
    ctx.signal?.throwIfAborted();
    current = await stage(current, ctx);
  }
  if (current.outcome) return current;
  const prepared = current;
  return embedding.add(
    async () => {
      ctx.signal?.throwIfAborted();
      const t0 = performance.now();
      let embedded: DocumentWorkItem;
      try {
        embedded = await embed(prepared, ctx);
      } finally {
        onEmbedSeconds?.((performance.now() - t0) / 1000);
      }
      return embedded.outcome ? embedded : upsert(embedded, ctx);
    },
    { throwOnTimeout: true },
  );
}

function pickProgress(p: RunIngestOptions['progress'], logger: Logger): ProgressReporter {
  if (p === undefined || p === false) return silentProgress;
  if (p === true) return process.stderr.isTTY ? createBarProgress() : createLogProgress(logger);
  return p;
}

/** Runs the pipeline; per-document failures are recorded and counted, store failures reject (fatal). */
export async function runIngest(opts: RunIngestOptions): Promise<IngestSummary> {
  const started = performance.now();
  const { deps, logger } = opts;
  const summary: IngestSummary = {
    projects: 0,
    documents: { total: 0, indexed: 0, unchanged: 0, skipped: 0, needsOcr: 0, failed: 0, removed: 0, heldByOtherRun: 0 },
    pages: 0,
    ocrPages: 0,
    chunks: 0,
    durationMs: 0,
    embedSeconds: 0,
    failures: [],
    otherRuns: [],
  };

  const projects = opts.all ? await deps.records.list() : distinctRefs(opts.projects ?? []);
  summary.projects = projects.length;

  await deps.index.open({ embedderId: deps.embedder.id, dimensions: deps.embedder.dimensions });

  const { downloader } = opts;

  // A fatal error (a store down) stops the run: no new document starts, the error is rethrown at the end.
  const abort = new AbortController();
  const onOuterAbort = (): void => abort.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let fatal: unknown = null;
  const failFatal = (err: unknown): void => {
    if (fatal === null) fatal = err;
    abort.abort(err);
  };

  const ctx: StageContext = {
    deps,
    downloader,
    extractor: opts.extractor,
    logger,
    force: opts.force ?? false,
    chunkMaxTokens: chunkTokenBudget(deps.embedder.maxInputTokens),
    sentenceVectors: opts.sentenceVectors ?? false,
    signal: abort.signal,
  };
  const progress = pickProgress(opts.progress, logger);
  const prepare = new PQueue({ concurrency: Math.max(1, opts.prepareConcurrency ?? 3) });
  // One embedding at a time: the embedder parallelises inside a batch; two callers would only contend.
  const embedding = new PQueue({ concurrency: 1 });

  // Two embedded runs on one DATA_DIR: each document is processed by the run that holds its lease; the other leaves
  // it, and says so in its summary. Leases are renewed while the run lasts and lapse if it dies.
  const leases = deps.leases;
  const holder = newLeaseHolder();
  const leaseTtlMs = opts.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
  const runStartedAt = new Date().toISOString();
  const renewal = leases
    ? setInterval(
        () => {
          leases.renew(holder, leaseTtlMs).catch((err: unknown) => logger.warn({ err }, 'document leases could not be renewed'));
        },
        Math.max(1, Math.floor(leaseTtlMs / 3)),
      )
    : undefined;
  renewal?.unref();

  /** `other`: the holder of the document's lease, when known. */
  function leftToOtherRun(item: DocumentWorkItem, other: string | undefined, why: string): DocumentWorkItem {
    summary.documents.heldByOtherRun++;
    if (other !== undefined && !summary.otherRuns.includes(other)) {
      summary.otherRuns.push(other);
      logger.warn({ otherRun: other }, 'another ingest is running on the same store: the documents it holds are left to it');
    }
    logger.info({ project: projectKey(item.ref), uri: item.uri, otherRun: other }, why);
    progress.documentDone({
      outcome: { kind: 'skipped', reason: why },
      pages: 0,
      chunks: 0,
      label: `${projectKey(item.ref)} ${item.title}`,
    });
    return lean(item);
  }

  /**
   * With leases: takes the document's lease (or leaves the document to the run holding it), then checks that no run
   * finished the document since this one listed it; processes it and gives the lease up.
   */
  async function processLeased(item: DocumentWorkItem): Promise<DocumentWorkItem> {
    if (!leases) return processDocument(item);
    let other: string | undefined;
    try {
      const claim = await leases.claim(item.ref, item.documentId, holder, leaseTtlMs);
      // A holder of this machine that was killed would hold the document until its lease lapses: taken over now.
      const taken =
        claim.taken ||
        (leaseHolderGone(claim.holder) && (await leases.takeOver(item.ref, item.documentId, claim.holder, holder, leaseTtlMs)));
      if (!taken) other = claim.taken ? 'another ingest' : claim.holder;
    } catch (err) {
      failFatal(err);
      throw err;
    }
    if (other !== undefined) return leftToOtherRun(item, other, 'document left to another ingest, which holds it');
    try {
      const now = await deps.states.get(item.ref, item.documentId);
      // Written since this run began, and not by this run (it takes each document once): another run did it.
      if (now !== null && now.status !== 'pending' && now.updatedAt >= runStartedAt) {
        return leftToOtherRun(item, undefined, 'document done by another ingest since this run listed it');
      }
      return await processDocument(item);
    } catch (err) {
      failFatal(err);
      throw err;
    } finally {
      await leases
        .release(item.ref, item.documentId, holder)
        .catch((err: unknown) => logger.warn({ err }, 'a document lease could not be released'));
    }
  }

  async function processDocument(item: DocumentWorkItem): Promise<DocumentWorkItem> {
    let current = item;
    try {
      current = await runDocumentStages(item, ctx, embedding, (seconds) => {
        summary.embedSeconds += seconds;
      });
      // An interrupted download or embedding is not the document's fault: record nothing, the next run redoes it.
      abort.signal.throwIfAborted();
      const recorded = await recordOutcome(current, ctx);
      if (recorded === 'kept' && current.outcome?.kind === 'failed') {
        logger.warn(
          { project: projectKey(item.ref), uri: item.uri, reason: current.outcome.reason },
          'document failed this run; its previous index is kept',
        );
      }
    } catch (err) {
      if (abort.signal.aborted || isFatal(err)) {
        failFatal(err);
        throw err;
      }
      // A bug or an unexpected library error in one document must not stop the others.
      const reason = `internal: ${err instanceof Error ? err.message : String(err)}`;
      current = { ...current, outcome: { kind: 'failed', reason } };
      try {
        await recordOutcome(current, ctx);
      } catch (recordErr) {
        failFatal(recordErr);
        throw recordErr;
      }
    }
    count(current);
    // Only the outcome is kept for the afterProject hook; bytes, text and vectors are released now.
    return lean(current);
  }

  function count(item: DocumentWorkItem): void {
    const outcome: DocumentOutcome = item.outcome ?? { kind: 'failed', reason: 'internal: no outcome' };
    const pages = outcome.kind === 'indexed' ? (item.pages?.length ?? 0) : 0;
    const ocrPages = outcome.kind === 'indexed' ? (item.ocrPages?.length ?? 0) : 0;
    const chunks = outcome.kind === 'indexed' ? (item.chunks?.length ?? 0) : 0;
    switch (outcome.kind) {
      case 'indexed':
        summary.documents.indexed++;
        break;
      case 'unchanged':
        summary.documents.unchanged++;
        break;
      case 'skipped':
        summary.documents.skipped++;
        break;
      case 'needs_ocr':
        summary.documents.needsOcr++;
        break;
      case 'failed':
        summary.documents.failed++;
        summary.failures.push({ project: projectKey(item.ref), documentId: item.documentId, uri: item.uri, reason: outcome.reason });
        break;
    }
    summary.pages += pages;
    summary.ocrPages += ocrPages;
    summary.chunks += chunks;
    progress.documentDone({ outcome, pages, ocrPages, chunks, label: `${projectKey(item.ref)} ${item.title}` });
  }

  const projectRuns: Promise<void>[] = [];
  try {
    for (const ref of projects) {
      if (abort.signal.aborted) break;
      let work;
      try {
        work = await discover(ref, ctx);
      } catch (err) {
        failFatal(err);
        break;
      }
      summary.documents.removed += work.removed;
      summary.documents.total += work.items.length;
      progress.addTotal(work.items.length);
      const docs = work.items.map((item) => prepare.add(() => processLeased(item), { throwOnTimeout: true }));
      projectRuns.push(
        Promise.allSettled(docs).then(async (settled) => {
          if (abort.signal.aborted || !opts.afterProject) return;
          const documents = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
          try {
            await opts.afterProject(ref, { deps, logger, documents });
          } catch (err) {
            if (isFatal(err)) {
              failFatal(err);
              return;
            }
            logger.error({ project: projectKey(ref), err }, 'afterProject hook failed');
          }
        }),
      );
    }
    await Promise.all(projectRuns);
    await prepare.onIdle();
  } finally {
    if (renewal !== undefined) clearInterval(renewal);
    progress.stop();
    opts.signal?.removeEventListener('abort', onOuterAbort);
  }
  summary.durationMs = Math.round(performance.now() - started);
  if (fatal !== null) throw fatal;
  opts.signal?.throwIfAborted();
  return summary;
}

/** A store or index that cannot be reached makes every further document fail the same way: stop instead. */
function isFatal(err: unknown): boolean {
  return err instanceof DependencyError || (err instanceof Error && err.name === 'EmbedderMismatchError');
}

function lean(item: DocumentWorkItem): DocumentWorkItem {
  const { ref, documentId, uri, title, documentType, uploadDate, previous, outcome } = item;
  return { ref, documentId, uri, title, documentType, uploadDate, previous, ...(outcome ? { outcome } : {}) };
}

/** One line per summary, for logs and the CLI. */
export function formatSummary(s: IngestSummary): string {
  const d = s.documents;
  return (
    `${s.projects} project(s), ${d.total} document(s): ${d.indexed} indexed, ${d.unchanged} unchanged, ` +
    `${d.skipped} skipped, ${d.needsOcr} need OCR, ${d.failed} failed, ${d.removed} removed` +
    (d.heldByOtherRun > 0 ? `, ${d.heldByOtherRun} left to another ingest running on the same store` : '') +
    '; ' +
    `${s.pages} pages (${s.ocrPages} by OCR), ${s.chunks} chunks in ${(s.durationMs / 1000).toFixed(1)} s`
  );
}
