import type { ProjectRef } from '../../src/domain/project-ref.js';
import { projectKey } from '../../src/domain/project-ref.js';
import type { Logger } from '../../src/logger.js';
import type { CountryLookup } from '../../src/ports/country-lookup.js';
import type { Summarizer } from '../../src/ports/summarizer.js';
import { enrichProject } from '../../src/services/enrich-project.js';
import type { DocumentWorkItem, IngestDeps } from '../types.js';
import { defined } from '../../src/defined.js';

/** What the hook needs of the pipeline's AfterProjectContext (so it can also run outside a pipeline run). */
export interface EnrichHookContext {
  deps: Pick<IngestDeps, 'records' | 'states' | 'texts'>;
  logger: Logger;
  /** The project's documents as the run left them: one indexed counts as a change. */
  documents?: DocumentWorkItem[];
  /** Says outright whether a document changed (the queue worker, which sees one document per job). */
  changed?: boolean;
}

export interface EnrichHookOptions {
  summarizer: Summarizer;
  countries?: CountryLookup;
  /** Recompute even when no document changed (`--reindex`). @default false */
  force?: boolean;
  signal?: AbortSignal;
}

/**
 * The pipeline's `afterProject` hook (ingest/pipeline.ts): derives the project's document-based fields
 * (src/services/enrich-project.ts) after its documents are processed. It recomputes when a document of the project
 * was (re)indexed in this run, when the project has no derived fields yet, or when forced; a run where every
 * document was unchanged leaves them as they are (the summariser may be an LLM: no cost without a change).
 */
export function createEnrichHook(opts: EnrichHookOptions): (ref: ProjectRef, ctx: EnrichHookContext) => Promise<void> {
  return async (ref, ctx) => {
    const { records, states, texts } = ctx.deps;
    const stored = await records.get(ref);
    if (!stored) return;
    const changed = ctx.changed ?? (ctx.documents ?? []).some((d) => d.outcome?.kind === 'indexed');
    // enrichProject always records where emissions_reductions came from: the mark of a project derived before.
    const derived = stored.enrichment.emissionsReductionsSource !== undefined;
    if (!opts.force && !changed && derived) {
      ctx.logger.debug({ project: projectKey(ref) }, 'documents unchanged; derived fields kept');
      return;
    }
    await enrichProject({
      ref,
      stored,
      texts,
      documents: states,
      records,
      summarizer: opts.summarizer,
      logger: ctx.logger,
      ...defined({ countries: opts.countries, signal: opts.signal }),
    });
  };
}
