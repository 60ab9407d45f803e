import { LRUCache } from 'lru-cache';
import type { ChunkRecord } from '../ports/vector-index.js';
import type { DocumentTextStore } from '../ports/document-text-store.js';
import type { Candidate } from '../domain/answer/candidates.js';
import { runningLineShapes } from '../domain/page-furniture.js';
import { normalizedTerms } from '../domain/query.js';

/** A document's pages as the answer step reads them. */
export interface PageTexts {
  pages: string[];
  /** The document's running header and footer shapes (page-furniture.ts), never quoted. */
  running: ReadonlySet<string>;
  /** Whether a page uses a word that normalises to `term` (query.ts normalizedTerms); worked out once a term. */
  usesWord(term: string): boolean;
  /** Its windows' quotable sentences, as read so far (answer/candidates.ts candidatesOf), the last WINDOW_READINGS. */
  readings: LRUCache<string, readonly Candidate[]>;
}

/** A passage's page window: where its quote is looked for, so a sentence cut by the chunk's edge is read whole. */
export interface PageWindow {
  page: string;
  start: number;
  end: number;
  chunkStart: number;
  chunkEnd: number;
}

/**
 * Characters of page text on each side of a passage in which its quote is looked for: the sentence that answers
 * often stands just before or after the chunk's cut, or runs over it.
 */
export const WINDOW_CHARS = 700;

/** Documents whose pages are kept, and for how long (a re-indexed document is read again after that). */
const CACHE_DOCUMENTS = 256;
const CACHE_MS = 300_000;
/** Windows of a document whose reading is kept: a long document's many searched pages stay bounded. */
const WINDOW_READINGS = 256;

/**
 * Recently read page texts, by document: a search reads the pages of up to topK documents, and the next searches
 * read the same few again. Owned by one search service.
 */
export function createPageTextCache(texts: DocumentTextStore) {
  const entries = new LRUCache<string, Promise<PageTexts | null>>({ max: CACHE_DOCUMENTS, ttl: CACHE_MS });
  return {
    get(chunk: ChunkRecord, key: string): Promise<PageTexts | null> {
      const hit = entries.get(key);
      if (hit) return hit;
      const pages = texts.get(chunk, chunk.documentId).then((read) =>
        read
          ? {
              pages: read,
              running: runningLineShapes(read),
              usesWord: wordUse(read),
              readings: new LRUCache<string, readonly Candidate[]>({ max: WINDOW_READINGS }),
            }
          : null,
      );
      entries.set(key, pages);
      pages.catch(() => entries.delete(key));
      return pages;
    },
  };
}

/**
 * Whether a document uses a word, normalising only the pages that can: stemming cuts only a word's end (and turns
 * "ies" into "y"), so a page holds a word of a term only if its lower-cased text holds the term less a final "y".
 * Finding them is some twenty times cheaper than normalising every word.
 */
function wordUse(pages: readonly string[]): (term: string) => boolean {
  const lowered: string[] = [];
  const words: Set<string>[] = [];
  const known = new Map<string, boolean>();
  return (term) => {
    let used = known.get(term);
    if (used === undefined) {
      const start = term.endsWith('y') ? term.slice(0, -1) : term;
      used = pages.some(
        (page, i) =>
          (lowered[i] ??= page.normalize('NFKC').toLowerCase()).includes(start) && (words[i] ??= new Set(normalizedTerms(page))).has(term),
      );
      known.set(term, used);
    }
    return used;
  };
}

/** The start of the sentence that `from` falls in, or `from` itself when none starts within 300 characters before. */
function sentenceStartBefore(page: string, from: number): number {
  if (from === 0) return 0;
  const head = page.slice(Math.max(0, from - 300), from);
  const m = /[.!?]["'\u201D\u2019)\]]*\s+(?=\S)(?![\s\S]*[.!?]["'\u201D\u2019)\]]*\s+\S)/u.exec(head);
  return m ? from - head.length + m.index + m[0].length : from;
}

/** The end of the sentence that `to` falls in (its final punctuation included), or `to` itself. */
function sentenceEndAfter(page: string, to: number): number {
  if (to >= page.length) return page.length;
  const m = /[.!?](?=["'\u201D\u2019)\]]*(?:\s|$))/u.exec(page.slice(to, to + 300));
  return m ? to + m.index + 1 : to;
}

/**
 * A chunk's page from the start of the sentence WINDOW_CHARS before it to the end of the sentence WINDOW_CHARS after
 * it. Null when the stored page is no longer the one the chunk was cut from (a re-ingest may be under way).
 */
export function pageWindow(doc: Pick<PageTexts, 'pages'>, chunk: ChunkRecord): PageWindow | null {
  const page = doc.pages[chunk.page - 1];
  const chunkEnd = chunk.offset + chunk.text.length;
  if (page === undefined || page.slice(chunk.offset, chunkEnd) !== chunk.text) return null;
  const start = sentenceStartBefore(page, Math.max(0, chunk.offset - WINDOW_CHARS));
  const end = sentenceEndAfter(page, Math.min(page.length, chunkEnd + WINDOW_CHARS));
  return { page, start, end, chunkStart: chunk.offset, chunkEnd };
}

/** The rest of the page lines that `page.slice(start, end)` starts and ends in. */
export function lineContext(page: string, start: number, end: number): { head: string; tail: string } {
  const lineEnd = page.indexOf('\n', end);
  return { head: page.slice(page.lastIndexOf('\n', start - 1) + 1, start), tail: page.slice(end, lineEnd < 0 ? page.length : lineEnd) };
}
