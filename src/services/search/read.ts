import type { AnswerPassage } from '../../domain/answer/candidates.js';
import type { Quote } from '../../domain/answer/quotes.js';
import { NO_COUNTRIES } from '../../domain/country-lookup.js';
import { deriveCleaned } from '../../domain/derive-cleaned.js';
import { projectKey } from '../../domain/project-ref.js';
import type { ReadResult } from '../../ports/reader.js';
import type { StoredProject } from '../../ports/record-store.js';
import type { ScoredChunk } from '../../ports/vector-index.js';
import { lineContext, pageWindow, type PageWindow } from '../page-windows.js';
import type { SearchContext, SearchSettings } from './settings.js';
import type { Citation } from './types.js';

/** A citation as the answer step reads it: its chunk, and its page window when the page text is at hand. */
export interface ReadPassage {
  citation: Citation;
  chunk: ScoredChunk;
  window: PageWindow | null;
  running?: ReadonlySet<string>;
  /** Whether its document uses a word (page-windows.ts PageTexts). */
  usesWord?: (term: string) => boolean;
}

/** How the answer names a project: its registry as requested and its id ("Verra 5533"). */
export function projectLabel(p: { registry: string; projectId: number }): string {
  return `${p.registry} ${p.projectId}`;
}

/** Each citation's page window, read from its document's pages (none when the page text is unavailable). */
export async function readWindows(s: SearchSettings, citations: Citation[], chunks: ScoredChunk[]): Promise<ReadPassage[]> {
  const { pageTexts, log } = s;
  return Promise.all(
    citations.map(async (citation, i) => {
      const chunk = chunks[i] as ScoredChunk;
      if (!pageTexts) return { citation, chunk, window: null };
      // A chunk's document, across projects.
      const doc = await pageTexts.get(chunk, `${projectKey(chunk)}\u0000${chunk.documentId}`).catch((err: unknown) => {
        log.warn({ err: err instanceof Error ? err.message : String(err) }, 'page text unavailable; passage cited as indexed');
        return null;
      });
      const window = doc ? pageWindow(doc, chunk) : null;
      return { citation, chunk, window, ...(doc ? { running: doc.running, usesWord: doc.usesWord } : {}) };
    }),
  );
}

/** The reader's passages: each citation's page window (or its text as indexed), named by its project. */
function answerPassages(read: readonly ReadPassage[]): AnswerPassage[] {
  return read.map(({ citation: c, window: w, running, usesWord }) => ({
    id: c.id,
    text: w ? w.page.slice(w.start, w.end) : c.text,
    score: c.score,
    project: projectLabel(c),
    ...(running ? { running } : {}),
    ...(usesWord ? { usesWord } : {}),
    ...(w ? { line: lineContext(w.page, w.start, w.end) } : {}),
  }));
}

/** What a project's record calls it, derived once per record version. */
function namesOf(s: SearchSettings, stored: StoredProject | undefined, registry: string): string[] {
  if (!stored) return [];
  const key = `${projectKey(stored.ref)}\u0000${registry}\u0000${stored.updatedAt}`;
  let names = s.recordNames.get(key);
  if (!names) {
    try {
      const c = deriveCleaned(stored, { requestedRegistry: registry, countries: NO_COUNTRIES });
      names = [c.name, c.location, c.methodology, c.type].filter((n): n is string => typeof n === 'string' && n !== '');
    } catch {
      names = [];
    }
    if (s.recordNames.size >= 10_000) s.recordNames.clear();
    s.recordNames.set(key, names);
  }
  return names;
}

/**
 * Reads some passages with the configured reader, with their scope: texts that say where to look (the documents'
 * titles and types, the projects' labels and record names), not what is asked.
 */
export function passageReader(s: SearchSettings, ctx: SearchContext): (read: readonly ReadPassage[]) => Promise<ReadResult> {
  const scopeOf = (rs: readonly ReadPassage[]): string[] => [
    ...new Set(
      rs.flatMap(({ citation: c, chunk }) => [
        c.documentTitle,
        c.documentType,
        projectLabel(c),
        ...namesOf(s, ctx.known?.get(projectKey(chunk)), c.registry),
      ]),
    ),
  ];
  return (rs) => s.opts.reader.read({ question: ctx.query, passages: answerPassages(rs), scope: scopeOf(rs) }, ctx.signal);
}

/**
 * The quotes onto their citations: a citation's text is widened from its chunk to take in its quote (so `text`
 * still holds `quote` and reads from the page as extracted); a passage without a quote is quoted whole.
 */
export function placeQuotes(read: readonly ReadPassage[], quotes: readonly Quote[]): void {
  const byId = new Map(quotes.map((q) => [q.passageId, q]));
  for (const { citation: c, window: w } of read) {
    const q = byId.get(c.id);
    if (q && w) c.text = w.page.slice(Math.min(w.chunkStart, w.start + q.start), Math.max(w.chunkEnd, w.start + q.end));
    c.quote = q?.text || c.text;
  }
}
