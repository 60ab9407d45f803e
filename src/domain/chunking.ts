import { createHash } from 'node:crypto';
import { contentsRuns } from './page-furniture.js';

/**
 * Page-aware chunking of extracted document text, and the deterministic ids of documents and chunks.
 * Pure: no I/O. A chunk never spans pages (so never documents); its `offset` is the character offset of its first
 * character in the page text it was cut from, so (page, offset) locates it exactly.
 */

export interface TextChunk {
  /** 1-based physical page. */
  page: number;
  offset: number;
  /** At most ChunkOptions.maxTokens estimated tokens (see estimateTokens). */
  text: string;
  /** The page's text was read by OCR (a citation says so). */
  ocr?: boolean;
}

export interface ChunkOptions {
  /** Hard limit per chunk in estimated tokens; the embedder's `maxInputTokens` minus its special tokens. */
  maxTokens: number;
}

function letterRunTokens(run: string): number {
  if (run.toLowerCase() === run.toUpperCase()) return run.length;
  const dense = run.length >= 2 && (run === run.toUpperCase() || !/[aeiouy]/i.test(run));
  return Math.ceil(run.length / (dense ? 2 : 4));
}

/**
 * A conservative estimate of word-piece tokens: letter runs count one token per 4 letters (rounded up), acronyms and
 * formulae (all capitals, or no vowel: HFC, CH2FCF2) one per 2 letters, scripts without case (CJK, Thai), which
 * word-piece vocabularies split per character, one per letter, digit runs one per 2 digits, every other non-space
 * character one. On the corpus, MiniLM's tokenizer gives 0.74 real tokens per estimated token on average, and no
 * chunk of the 17 PDFs exceeds its estimate, so a chunk within the estimate is not truncated by the embedder.
 */
export function estimateTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/(\p{L}+)|(\p{N}+)|(\S)/gu)) {
    if (m[1] !== undefined) n += letterRunTokens(m[1]);
    else if (m[2] !== undefined) n += Math.ceil(m[2].length / 2);
    else n += 1;
  }
  return n;
}

/**
 * Cleans a page of extracted text so offsets are stable and chunks are readable: CRLF to LF, tabs and other
 * horizontal blanks to one space, NUL and other control characters removed, trailing blanks per line dropped,
 * at most one blank line in a row. Applied once at extraction; chunk offsets refer to the cleaned text.
 */
export function normalizePageText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .replace(/[\t\u00A0\u2000-\u200A\u202F\u205F\u3000]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .replace(/ +\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A range [start, end) of a text. */
export interface Span {
  start: number;
  end: number;
}

/**
 * Separators from the strongest boundary to the weakest: paragraph, sentence end, line break, word.
 * Each matches the whitespace between two pieces; that whitespace stays with the earlier piece.
 */
const SEPARATORS: readonly RegExp[] = [/\n[ ]*\n\s*/g, /(?<=[.!?;:\u3002]["'\u201D\u2019)\]]?)\s+/g, /\n\s*/g, /\s+/g];

/** Splits [start, end) of text into pieces of at most maxTokens each, using the strongest separator that helps. */
function splitSpan(text: string, span: Span, maxTokens: number, level = 0): Span[] {
  if (estimateTokens(text.slice(span.start, span.end)) <= maxTokens) return [span];
  const sep = SEPARATORS[level];
  if (sep === undefined) return hardSplit(text, span, maxTokens);
  const cuts = [...text.slice(span.start, span.end).matchAll(sep)].map((m) => span.start + m.index + m[0].length);
  const pieces = spansBetween([span.start, ...cuts.filter((c) => c < span.end), span.end]);
  return pieces.flatMap((p) => splitSpan(text, p, maxTokens, level + 1));
}

/** Last resort for a run without usable separators (a long URL, a hash): cut by characters. */
function hardSplit(text: string, span: Span, maxTokens: number): Span[] {
  const out: Span[] = [];
  let start = span.start;
  while (start < span.end) {
    let end = start + 1;
    // Grow one code point at a time; cheap enough because such runs are rare and short.
    while (end < span.end && estimateTokens(text.slice(start, end + 1)) <= maxTokens) end++;
    // Never split a surrogate pair.
    const code = text.charCodeAt(end - 1);
    if (end < span.end && code >= 0xd800 && code <= 0xdbff) end++;
    out.push({ start, end });
    start = end;
  }
  return out;
}

/** Start of the overlap taken from the end of the previous chunk: a piece or word boundary within the budget. */
function overlapStart(text: string, chunk: Span, pieces: Span[], overlapTokens: number): number | null {
  const fits = (pos: number) => pos > chunk.start && pos < chunk.end && estimateTokens(text.slice(pos, chunk.end)) <= overlapTokens;
  const atPiece = pieces.map((p) => p.start).find(fits);
  if (atPiece !== undefined) return atPiece;
  const afterBlanks = [...text.slice(chunk.start, chunk.end).matchAll(/\s+/g)].map((m) => chunk.start + m.index + m[0].length);
  return afterBlanks.find(fits) ?? null;
}

/** Narrows a span to its non-blank part; null when only blanks remain. */
export function trimSpan(text: string, span: Span): Span | null {
  let { start, end } = span;
  while (start < end && /\s/.test(text.charAt(start))) start++;
  while (end > start && /\s/.test(text.charAt(end - 1))) end--;
  return end > start ? { start, end } : null;
}

/** The spans between consecutive cut points, in order; cuts are ascending, and equal neighbours give no span. */
export function spansBetween(cuts: readonly number[]): Span[] {
  return cuts.slice(1).flatMap((end, i) => {
    const start = cuts[i] as number;
    return end > start ? [{ start, end }] : [];
  });
}

/**
 * The page cut where its runs of contents lines start and end (page-furniture.ts contentsRuns): no chunk holds both
 * a piece of a table of contents and the page's other text.
 */
function segments(text: string): Span[] {
  return spansBetween([0, ...contentsRuns(text).flatMap((run) => [run.start, run.end]), text.length]);
}

/** Chunks of one page; `page` is 1-based. Deterministic for the same text and options. */
export function chunkPage(text: string, page: number, opts: ChunkOptions): TextChunk[] {
  const maxTokens = Math.floor(opts.maxTokens);
  if (!(maxTokens >= 8)) throw new RangeError(`chunk maxTokens must be at least 8, got ${opts.maxTokens}`);
  // Tokens of the previous chunk repeated at the start of the next one on the same page.
  const overlapTokens = Math.floor(maxTokens * 0.15);
  const spans = segments(text).flatMap((segment) => segmentSpans(text, segment, maxTokens, overlapTokens));

  return spans.flatMap((s) => {
    const t = trimSpan(text, s);
    const body = t ? text.slice(t.start, t.end) : '';
    // A chunk of only punctuation or rules (e.g. "-----") carries nothing to search for.
    return t && /[\p{L}\p{N}]/u.test(body) ? [{ page, offset: t.start, text: body }] : [];
  });
}

/** A segment of a page cut into chunk spans: pieces merged up to the budget, each after the first overlapping the one before. */
function segmentSpans(text: string, segment: Span, maxTokens: number, overlapTokens: number): Span[] {
  const pieces = splitSpan(text, segment, maxTokens);
  const spans: Span[] = [];
  for (const piece of pieces) {
    const current = spans.at(-1);
    if (current && estimateTokens(text.slice(current.start, piece.end)) <= maxTokens) {
      current.end = piece.end;
      continue;
    }
    const ov = current ? overlapStart(text, current, pieces, overlapTokens) : null;
    spans.push(ov !== null && estimateTokens(text.slice(ov, piece.end)) <= maxTokens ? { start: ov, end: piece.end } : { ...piece });
  }
  return spans;
}

/** Chunks of a whole document; pages[0] is page 1. */
export function chunkPages(pages: readonly string[], opts: ChunkOptions): TextChunk[] {
  return pages.flatMap((text, i) => chunkPage(text, i + 1, opts));
}

function sha256Hex(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

/** Formats 128 bits of a hash as an RFC 4122 UUID (version 5 layout), the id form every vector store accepts. */
function uuidFromHex(hex: string): string {
  const variant = ((parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  const s = `${hex.slice(0, 12)}5${hex.slice(13, 16)}${variant}${hex.slice(17, 32)}`;
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

/**
 * The canonical form of a document uri: parsed and re-serialised by WHATWG URL (lower-case scheme and host,
 * default port dropped, percent-encoding normalised), fragment removed. Strings that are not URLs are only trimmed.
 */
export function canonicalDocumentUri(uri: string): string {
  const trimmed = uri.trim();
  try {
    const u = new URL(trimmed);
    u.hash = '';
    return u.href;
  } catch {
    return trimmed;
  }
}

/**
 * Document id: derived from the canonical uri only. The uri names the file; the documentName is a label that a
 * registry may edit without changing the file, so it does not take part (a renamed document keeps its id).
 * Scoped by project in every store, so two projects listing the same uri keep separate states and chunks.
 */
export function documentIdFor(uri: string): string {
  return sha256Hex(`doc\u0000${canonicalDocumentUri(uri)}`).slice(0, 32);
}

/** Chunk id from (registry, projectId, documentId, page, offset), as a UUID string. */
export function chunkIdFor(parts: { registry: string; projectId: number; documentId: string; page: number; offset: number }): string {
  const key = ['chunk', parts.registry, String(parts.projectId), parts.documentId, String(parts.page), String(parts.offset)];
  return uuidFromHex(sha256Hex(key.join('\u0000')));
}
