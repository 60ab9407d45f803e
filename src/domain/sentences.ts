import { trimSpan, type Span } from './chunking.js';

/**
 * Sentences of extracted PDF text: what the extractive answer picks from, and what the dense index embeds beside
 * each chunk (sentence-level evidence).
 */

/** Between two sentences: whitespace after final punctuation, before a capital or a digit (perhaps quoted). */
const SENTENCE_BOUNDARY = /(?<=[.!?;])\s+(?=["'(\u201C]?[\p{Lu}\p{N}])/gu;

/** Sentence boundaries in extracted PDF text, where line breaks are layout and not punctuation. */
export function splitSentences(text: string): string[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return [];
  return flat
    .split(SENTENCE_BOUNDARY)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** Fragments (page numbers, table cells, headers) have fewer letters; the test stops at the twelfth. */
const AT_LEAST_12_LETTERS = /(?:\P{L}*\p{L}){12}/u;

export function hasTwelveLetters(s: string): boolean {
  return AT_LEAST_12_LETTERS.test(s);
}

/**
 * The sentences of a chunk that get a vector of their own beside the chunk's (VectorIndex: a chunk's dense score is
 * the mean of its own cosine and its best sentence's). A passage's answer is usually one sentence, and a sentence
 * embedder matches a question to that sentence better than to the passage that dilutes it (sentence-level evidence,
 * Yilmaz et al. 2019). Fragments of fewer than 12 letters are left out. A chunk that is one sentence gets none: its
 * own vector is that sentence's.
 */
export function evidenceSentences(chunkText: string): string[] {
  const sentences = splitSentences(chunkText);
  return sentences.length > 1 ? sentences.filter(hasTwelveLetters) : [];
}

/** A sentence of a text located by character offsets, so that it can be quoted verbatim (`text.slice(start, end)`). */
export interface SentenceSpan extends Span {
  /** A heading line (a numbered or all-capital line without final punctuation): kept for position, never quoted. */
  heading: boolean;
}

/** "3.4 Baseline scenario", "A.2. Description of the project", "ANNEX 3": numbered or all-capital short lines. */
const HEADING_LINE =
  /^(?:(?:section|annex|appendix)\s+)?(?:\d+(?:\.\d+)*\.?|[A-Z]\.\d+(?:\.\d+)*\.?)\s+\p{Lu}[^.!?;:]{0,90}$|^[^\p{Ll}]{4,90}$/u;

function isHeadingLine(line: string): boolean {
  const l = line.trim();
  return l.length >= 3 && !/[.!?;:,]$/.test(l) && /\p{L}{2}/u.test(l) && HEADING_LINE.test(l);
}

/**
 * Sentences of extracted PDF text with their offsets: the boundaries of splitSentences (line breaks are layout, not
 * punctuation), and also the line break after a heading line, which extraction glues to the sentence after it.
 * Spans exclude surrounding whitespace.
 */
export function sentenceSpans(text: string): SentenceSpan[] {
  const cuts: number[] = [0];
  for (const m of text.matchAll(SENTENCE_BOUNDARY)) cuts.push(m.index + m[0].length);
  // Heading lines end a span of their own.
  let lineStart = 0;
  for (const line of text.split('\n')) {
    const lineEnd = lineStart + line.length;
    if (isHeadingLine(line)) cuts.push(lineStart, lineEnd + 1);
    lineStart = lineEnd + 1;
  }
  const sorted = [...new Set(cuts.filter((c) => c >= 0 && c <= text.length))].sort((a, b) => a - b);
  sorted.push(text.length);
  const spans: SentenceSpan[] = [];
  for (let i = 0; i < sorted.length - 1; i++) {
    const span = trimSpan(text, { start: sorted[i] ?? 0, end: sorted[i + 1] ?? text.length });
    if (!span) continue;
    const body = text.slice(span.start, span.end);
    spans.push({ ...span, heading: !body.includes('\n') && isHeadingLine(body) });
  }
  return spans;
}
