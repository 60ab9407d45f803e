import type { ScoredChunk } from './chunk-record.js';
import { distinctBy, figuresIn, wordRuns } from './text.js';

/**
 * Fusion of several retrieval lists (full text, dense vectors) and collapsing of near-duplicate passages.
 * Pure: the search service feeds it the lists the index returned for the requested projects only.
 */

export interface RankedList {
  /** e.g. `text`, `vector` (named in errors). */
  name: string;
  /** Relative trust in this list. @default 1 */
  weight?: number;
  /** Best first. */
  items: ScoredChunk[];
}

/**
 * Convex combination of min-max normalised scores (Bruch et al. 2023, "An analysis of fusion functions for hybrid
 * retrieval"): score(d) = sum over lists of weight x (s - min) / (max - min), with weights summing to 1; a chunk
 * absent from a list gets 0 there. It needs no calibration between BM25 and cosine, which live on unrelated scales,
 * and unlike reciprocal rank fusion it keeps the margins: a passage far ahead in BM25 stays ahead, while near-ties are
 * broken by the other list. A list holding an id twice counts its first rank only; ties keep the order of first
 * appearance (a stable sort of the map's insertion order), so the result is deterministic. Fused scores are in [0, 1].
 */
export function convexCombination(lists: RankedList[]): ScoredChunk[] {
  const total = lists.reduce((s, l) => s + (l.weight ?? 1), 0);
  const byId = new Map<string, { chunk: ScoredChunk; score: number }>();
  for (const list of lists) {
    const weight = list.weight ?? 1;
    if (!(weight >= 0)) throw new RangeError(`fusion weight of "${list.name}" must be >= 0, got ${weight}`);
    const scores = list.items.map((c) => c.score);
    const [min, max] = [Math.min(...scores), Math.max(...scores)];
    for (const chunk of distinctBy(list.items, (c) => c.id)) {
      const entry = byId.get(chunk.id) ?? { chunk, score: 0 };
      entry.score += (total > 0 ? weight / total : 0) * (max > min ? (chunk.score - min) / (max - min) : 1);
      byId.set(chunk.id, entry);
    }
  }
  return [...byId.values()].sort((a, b) => b.score - a.score).map((e) => ({ ...e.chunk, score: e.score }));
}

/**
 * Two chunks of the same page whose character ranges overlap by at least this share of the shorter one are the same
 * passage (chunkers repeat an overlap between neighbours).
 */
const OVERLAP_RATIO = 0.5;
/**
 * Two passages whose word-trigram sets have at least this Jaccard similarity, and that give the same figures, are the
 * same text (boilerplate repeated across documents, a form that copies a report).
 */
const TEXT_SIMILARITY = 0.8;

/** FNV-1a hash of a word, 32 bits. */
function hashWord(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** An ordered combination of three word hashes (murmur3's finaliser between steps). */
function hashTrigram(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ (a >>> 16), 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) ^ c;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}

/**
 * Lower-cased word trigrams as sorted distinct 32-bit hashes; short texts fall back to their words so they can still
 * be compared. Integers instead of strings make building and comparing the sets several times cheaper (they are
 * built for every candidate of every search). A collision between two different trigrams, about one in 10^5 pairs
 * of passages, can only add one shared element to their similarity.
 */
function shingles(text: string): Uint32Array {
  const hashes = wordRuns(text.toLowerCase()).map(hashWord);
  const grams = hashes.length < 3 ? hashes : hashes.slice(2).map((c, i) => hashTrigram(hashes[i] as number, hashes[i + 1] as number, c));
  return Uint32Array.from(new Set(grams)).sort();
}

/** A text's figures as written, separators left out ("27,769" -> "27769"). */
function figures(text: string): Set<string> {
  return new Set(figuresIn(text).map((f) => f.replace(/[,.]/gu, '')));
}

/**
 * Whether two similar texts give the same figures (those of the one with fewer are all the other's): a long table's
 * rows on the next page repeat its words and most of its figures ("01-Jan- 2039 to 31- Dec- 2039 0 27,769 0 4,998"),
 * yet hold other years and the total row; the same paragraph copied into another report gives the same ones.
 */
function sameFigures(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  const [fewer, more] = a.size <= b.size ? [a, b] : [b, a];
  return [...fewer].every((f) => more.has(f));
}

/** Jaccard similarity of two sorted sets; 0 without computing when their sizes alone keep it below `atLeast`. */
function jaccard(a: Uint32Array, b: Uint32Array, atLeast = 0): number {
  if (a.length === 0 || b.length === 0) return 0;
  // |A n B| / |A u B| <= min / max: most candidate pairs differ in size too much to be near-duplicates.
  if (Math.min(a.length, b.length) / Math.max(a.length, b.length) < atLeast) return 0;
  let inter = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const order = (a[i] as number) - (b[j] as number);
    if (order === 0) inter++;
    if (order <= 0) i++;
    if (order >= 0) j++;
  }
  return inter / (a.length + b.length - inter);
}

function overlapShare(a: ScoredChunk, b: ScoredChunk): number {
  if (a.registry !== b.registry || a.projectId !== b.projectId || a.documentId !== b.documentId || a.page !== b.page) {
    return 0;
  }
  const start = Math.max(a.offset, b.offset);
  const end = Math.min(a.offset + a.text.length, b.offset + b.text.length);
  const shorter = Math.min(a.text.length, b.text.length);
  return end <= start || shorter === 0 ? 0 : (end - start) / shorter;
}

/**
 * Keeps the first (best-ranked) of every group of near-duplicates, preserving order: overlapping chunks of one page,
 * and near-identical text with the same figures anywhere in the list. Quadratic in the list length, meant for fused
 * candidates (<= a few hundred), not for a whole index. Stops once `limit` distinct passages are kept.
 */
export function collapseNearDuplicates<T extends ScoredChunk>(ranked: T[], limit = Number.POSITIVE_INFINITY): T[] {
  // (Figures are read only for texts found alike, once each.)
  const kept: { chunk: T; shingles: Uint32Array; figures?: Set<string> }[] = [];
  for (const chunk of ranked) {
    if (kept.length >= limit) break;
    const sh = shingles(chunk.text);
    let own: Set<string> | undefined;
    const duplicate = kept.some(
      (k) =>
        overlapShare(k.chunk, chunk) >= OVERLAP_RATIO ||
        (jaccard(k.shingles, sh, TEXT_SIMILARITY) >= TEXT_SIMILARITY &&
          sameFigures((k.figures ??= figures(k.chunk.text)), (own ??= figures(chunk.text)))),
    );
    if (!duplicate) kept.push({ chunk, shingles: sh, ...(own ? { figures: own } : {}) });
  }
  return kept.map((k) => k.chunk);
}

/**
 * Page-level ranking of fused chunks. A citation is a (document, page), so two chunks of one page are one answer
 * location: each page is represented by its best chunk, scored max + bonus x (sum of its other chunks' scores), so
 * that a page with several matching passages beats a page with one equally good passage (a bonus of 0 scores a page
 * by its best chunk alone), and the pages re-ranked. Scores stay in [0, 1] (capped) so they remain comparable with
 * unaggregated ones. The bonus is the search service's pageBonus, checked to be in [0, 1] there.
 */
export function aggregateByPage<T extends ScoredChunk>(ranked: T[], bonus = 0.2): T[] {
  const pages = new Map<string, { best: T; score: number; first: number }>();
  ranked.forEach((chunk, i) => {
    const key = JSON.stringify([chunk.registry, chunk.projectId, chunk.documentId, chunk.page]);
    const page = pages.get(key);
    if (!page) pages.set(key, { best: chunk, score: chunk.score, first: i });
    else page.score += bonus * chunk.score;
  });
  return [...pages.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .map((p) => ({ ...p.best, score: Math.min(1, p.score) }));
}
