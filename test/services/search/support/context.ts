import { createLogger, type Logger } from '../../../../src/logger.js';
import type { RequestedProject } from '../../../../src/domain/project-ref.js';
import type { SearchContext, SearchSettings } from '../../../../src/services/search/settings.js';

/**
 * A search's context as search.ts builds it, for calling one stage alone: `projects` are searchable (one indexed
 * document each), `unindexed` have none; `over` sets the request's options (topK, mode, perProject, ...).
 */
export function contextFor(
  s: SearchSettings,
  query: string,
  projects: RequestedProject[],
  over: Partial<Omit<SearchContext, 'projects' | 'states' | 'searchable' | 'unindexed'>> & { unindexed?: RequestedProject[] } = {},
): SearchContext {
  const { unindexed = [], ...rest } = over;
  const all = [...projects, ...unindexed];
  return {
    query,
    topK: s.defaultTopK,
    mode: 'hybrid',
    signal: undefined,
    perProject: false,
    documentTypes: undefined,
    summarizer: s.opts.summarizer,
    known: null,
    ...rest,
    projects: all,
    states: all.map((p) => ({
      projectId: p.ref.projectId,
      registry: p.requestedRegistry,
      indexedDocuments: unindexed.includes(p) ? 0 : 1,
    })),
    searchable: projects,
    unindexed,
  };
}

export const asRequested = (ref: { registry: string; projectId: number }, spelling = ref.registry): RequestedProject => ({
  ref,
  requestedRegistry: spelling,
});

/** A logger whose lines (warnings and up) are kept, to check what a stage reports. */
export function capturingLogger(): { lines: Record<string, unknown>[]; logger: Logger } {
  const lines: Record<string, unknown>[] = [];
  const destination = {
    write: (line: string): void => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  };
  return { lines, logger: createLogger({ level: 'warn', name: 'test', destination }) };
}
