/**
 * Turning free text into search terms, shared by the full-text side of both vector indexes.
 *
 * A "word" is a whitespace-separated token. Its parts are its runs of letters and digits. A word with several parts
 * is a compound such as a methodology code (AR-AM0001, AMS-III.AU) or a grouped number (256,109 or 5,35,052): it
 * must match as a unit, so SQLite searches it as a phrase of its parts, and Qdrant indexes it as one extra term.
 */

/** Very common English words that carry no meaning for ranking and make every chunk a candidate. */
const STOPWORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have how i if in into is it its ' +
    'may me my no not of on or our should so such than that the their them then there these they this those to ' +
    'was we were what when where which while who whom why will with would you your'
  ).split(' '),
);

/** At most this many terms are kept from one query, so a pasted page cannot make a query arbitrarily costly. */
export const MAX_QUERY_TERMS = 64;

export interface QueryWord {
  /** The word lower-cased with leading and trailing punctuation removed, e.g. `ams-iii.au`. */
  word: string;
  /** Its letter/digit runs, lower-cased: `['ams', 'iii', 'au']`. */
  parts: string[];
}

/** Words of `text` in order, stopwords dropped (unless nothing else is left), duplicates removed. */
export function queryWords(text: string, max = MAX_QUERY_TERMS): QueryWord[] {
  const all: QueryWord[] = [];
  const seen = new Set<string>();
  for (const raw of text.normalize('NFKC').toLowerCase().split(/\s+/u)) {
    const parts = raw.match(/[\p{L}\p{N}]+/gu);
    if (!parts) continue;
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (seen.has(word)) continue;
    seen.add(word);
    all.push({ word, parts });
  }
  const meaningful = all.filter((w) => !(w.parts.length === 1 && STOPWORDS.has(w.word)));
  return (meaningful.length > 0 ? meaningful : all).slice(0, max);
}

/**
 * Light English stemming for Qdrant's sparse terms (SQLite uses FTS5's Porter tokenizer instead): plural and
 * possessive endings only, so that "emissions" finds "emission" while codes and numbers are never changed.
 */
export function lightStem(part: string): string {
  if (!/^\p{L}+$/u.test(part) || part.length <= 3) return part;
  if (part.endsWith('ies') && part.length > 4) return `${part.slice(0, -3)}y`;
  if (part.endsWith('sses')) return part.slice(0, -2);
  if (part.endsWith('s') && !/(ss|us|is)$/u.test(part)) return part.slice(0, -1);
  return part;
}

/**
 * Terms of a text for a sparse (bag-of-words) vector: every part but stopwords, stemmed, and every compound word
 * whole.
 * Used identically for documents and queries, so a query term matches a document term exactly.
 */
export function sparseTerms(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.normalize('NFKC').toLowerCase().split(/\s+/u)) {
    const parts = raw.match(/[\p{L}\p{N}]+/gu);
    if (!parts) continue;
    for (const p of parts) if (!STOPWORDS.has(p)) out.push(lightStem(p));
    if (parts.length > 1) out.push(raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
  }
  return out;
}

export function isStopword(term: string): boolean {
  return STOPWORDS.has(term);
}
