import { ANSWER_TUNING, type AnswerTuning } from '../../domain/answer/tuning.js';
import { DEFAULT_MAX_TOP_K, DEFAULT_TOP_K } from '../../domain/search-limits.js';
import type { RequestedProject } from '../../domain/project-ref.js';
import type { StoredProject } from '../../ports/record-store.js';
import type { Summarizer } from '../../ports/summarizer.js';
import { createPageTextCache } from '../page-windows.js';
import type { ProjectIndexState, SearchMode, SearchServiceOptions } from './types.js';

/** A search service's options with their defaults applied and checked once, and the state it keeps across searches. */
export type SearchSettings = ReturnType<typeof resolveSettings>;

export function resolveSettings(opts: SearchServiceOptions) {
  const defaultTopK = opts.defaultTopK ?? DEFAULT_TOP_K;
  const maxTopK = opts.maxTopK ?? DEFAULT_MAX_TOP_K;
  const pageBonus = opts.pageBonus ?? 0.2;
  const tuning: AnswerTuning = { ...ANSWER_TUNING, ...opts.tuning };
  if (!(pageBonus >= 0 && pageBonus <= 1)) {
    throw new RangeError(`search pageBonus must be in [0, 1], got ${pageBonus}`);
  }
  if (!(defaultTopK >= 1 && defaultTopK <= maxTopK)) {
    throw new RangeError(`search defaultTopK must be in 1..maxTopK (${maxTopK}), got ${defaultTopK}`);
  }
  return {
    opts,
    defaultTopK,
    maxTopK,
    weights: { text: opts.textWeight ?? 0.7, vector: opts.vectorWeight ?? 0.3 },
    pageBonus,
    tuning,
    log: opts.logger,
    pageTexts: opts.texts ? createPageTextCache(opts.texts) : null,
    /** What each project's record calls it (its name, location, methodology, type), by record version. */
    recordNames: new Map<string, string[]>(),
  };
}

/** One search as its stages see it: the checked request and the requested projects split by whether they are indexed. */
export interface SearchContext {
  query: string;
  topK: number;
  mode: SearchMode;
  signal: AbortSignal | undefined;
  perProject: boolean;
  documentTypes: string[] | undefined;
  /** The extractive fallback when the request asked for an extractive answer, else the configured summariser. */
  summarizer: Summarizer;
  /** Distinct, in request order; `searchable` and `unindexed` split these same objects. */
  projects: RequestedProject[];
  /** One per project, in the same order; perProject answers are written onto them. */
  states: ProjectIndexState[];
  searchable: RequestedProject[];
  unindexed: RequestedProject[];
  /** The requested projects' records, when the service has a record store. */
  known: Map<string, StoredProject> | null;
}
