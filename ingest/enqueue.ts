import { distinctRefs, projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import type { Logger } from '../src/logger.js';
import type { DocumentJob, IngestQueue } from '../src/ports/ingest-queue.js';
import { discover } from './stages/discover.js';
import { recordOutcome } from './stages/upsert.js';
import type { IngestDeps } from './types.js';

/**
 * `npm run ingest` with DATABASE_URL: discovers each project's documents (removing those it no longer lists, as the
 * in-process run does), records the ones that need no download (not a PDF), and queues one job per document for the
 * workers (`npm run worker`). A project with nothing to queue gets its enrichment job at once; the others get it when
 * their last document job settles.
 */
export interface EnqueueOptions {
  deps: IngestDeps;
  queue: IngestQueue;
  projects?: ProjectRef[];
  all?: boolean;
  /** `--reindex`: re-embed unchanged documents too. */
  force: boolean;
  logger: Logger;
}

export interface EnqueueSummary {
  projects: number;
  documents: number;
  queued: number;
  /** Documents that already had a job waiting: not queued twice. */
  alreadyWaiting: number;
  /** Recorded at once (not a PDF): no job. */
  skipped: number;
  /** Documents no longer listed by their project: removed. */
  removed: number;
}

export async function enqueueIngest(opts: EnqueueOptions): Promise<EnqueueSummary> {
  const { deps, queue, logger } = opts;
  // Checks the index was built by this embedder before anything is queued (a mismatch would fail every job).
  await deps.index.open({ embedderId: deps.embedder.id, dimensions: deps.embedder.dimensions });
  const projects = opts.all ? await deps.records.list() : distinctRefs(opts.projects ?? []);
  const summary: EnqueueSummary = { projects: projects.length, documents: 0, queued: 0, alreadyWaiting: 0, skipped: 0, removed: 0 };
  for (const ref of projects) {
    const work = await discover(ref, { deps, logger });
    summary.removed += work.removed;
    summary.documents += work.items.length;
    const jobs: DocumentJob[] = [];
    for (const item of work.items) {
      if (item.outcome) {
        await recordOutcome(item, { deps });
        summary.skipped++;
        continue;
      }
      const { documentId, uri, title, documentType, uploadDate } = item;
      jobs.push({ ref, documentId, uri, title, documentType, uploadDate, force: opts.force });
    }
    const result = await queue.enqueueDocuments(jobs);
    summary.queued += result.queued;
    summary.alreadyWaiting += result.alreadyWaiting;
    if (jobs.length === 0) await queue.enqueueEnrich(ref, { force: opts.force });
    logger.debug({ project: projectKey(ref), ...result }, 'project queued');
  }
  return summary;
}

export function formatEnqueueSummary(s: EnqueueSummary): string {
  return (
    `${s.projects} project(s), ${s.documents} document(s): ${s.queued} queued, ${s.alreadyWaiting} already waiting, ` +
    `${s.skipped} skipped (not a PDF), ${s.removed} removed`
  );
}
