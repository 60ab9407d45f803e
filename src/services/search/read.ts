import { candidatesOf, type AnswerPassage } from '../../domain/answer/candidates.js';
import type { Quote } from '../../domain/answer/quotes.js';
import { NO_COUNTRIES } from '../../domain/country-lookup.js';
import { deriveCleaned } from '../../domain/derive-cleaned.js';
import { projectKey } from '../../domain/project-ref.js';
import type { ReadResult } from '../../ports/reader.js';
import type { StoredProject } from '../../ports/record-store.js';
import type { ScoredChunk } from '../../ports/vector-index.js';
import { normalizedTerms } from '../../domain/query.js';
import { lineContext, pageWindow, type PageTexts, type PageWindow } from '../page-windows.js';
import type { SearchContext, SearchSettings } from './settings.js';
import type { Citation } from './types.js';

/** A citation as the answer step reads it: its chunk, and its page window when the page text is at hand. */
export interface ReadPassage {
  citation: Citation;
  chunk: ScoredChunk;
  window: PageWindow | null;
  /** Its document's pages, when at hand. */
  doc?: PageTexts;
}

/** How the answer names a project: its registry as requested and its id ("Verra 5533"). */
export function projectLabel(p: { registry: string; projectId: number }): string {
  return `${p.registry} ${p.projectId}`;
}

/** A chunk's document's pages (across projects); null without a page text store. */
function documentOf(s: SearchSettings, chunk: ScoredChunk): Promise<PageTexts | null> {
  return s.pageTexts?.get(chunk, `${projectKey(chunk)}\u0000${chunk.documentId}`) ?? Promise.resolve(null);
}

/** Each citation's page window, read from its document's pages (none when the page text is unavailable). */
export async function readWindows(s: SearchSettings, citations: Citation[], chunks: ScoredChunk[]): Promise<ReadPassage[]> {
  return Promise.all(
    citations.map(async (citation, i) => {
      const chunk = chunks[i] as ScoredChunk;
      const doc = await documentOf(s, chunk).catch((err: unknown) => {
        s.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'page text unavailable; passage cited as indexed');
        return null;
      });
      return doc ? { citation, chunk, window: pageWindow(doc, chunk), doc } : { citation, chunk, window: null };
    }),
  );
}

/** A passage as the reader reads it: its page window (or its text as indexed), with what its document tells. */
function answerPassage(p: AnswerPassage, window: PageWindow | null, doc?: PageTexts): AnswerPassage {
  return {
    ...p,
    ...(window ? { text: window.page.slice(window.start, window.end), line: lineContext(window.page, window.start, window.end) } : {}),
    ...(doc ? { running: doc.running, usesWord: doc.usesWord, readings: doc.readings } : {}),
  };
}

/** The reader's passages: each citation's page window (or its text as indexed), named by its project. */
function answerPassages(read: readonly ReadPassage[]): AnswerPassage[] {
  return read.map(({ citation: c, window, doc }) =>
    answerPassage({ id: c.id, text: c.text, score: c.score, project: projectLabel(c) }, window, doc),
  );
}

/**
 * While the query embeds, the main thread is idle (the model runs in its worker): the likely citations' pages and
 * quotable sentences are read then, best first, one passage a macrotask so the embedding's reply is let in between,
 * stopping once the vector is there. What the full-text list ranks first is mostly what is cited.
 */
export async function readAhead(s: SearchSettings, query: string, chunks: readonly ScoredChunk[], until: Promise<unknown>): Promise<void> {
  let arrived = false;
  until.then(
    () => (arrived = true),
    () => (arrived = true),
  );
  const terms = normalizedTerms(query);
  for (const chunk of chunks) {
    await new Promise((resolve) => setImmediate(resolve));
    if (arrived) return;
    // A document that cannot be read is reported by the search if it is cited.
    const doc = await documentOf(s, chunk).catch(() => null);
    if (!doc || arrived) continue;
    candidatesOf(answerPassage({ id: 0, text: chunk.text, score: 0 }, pageWindow(doc, chunk), doc), s.tuning);
    for (const t of terms) doc.usesWord(t);
  }
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
