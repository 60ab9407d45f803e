import { spansBetween, trimSpan, type Span } from '../chunking.js';
import { normalizedTerms } from '../query.js';
import { isLeaderLine, isRunningLine } from '../page-furniture.js';
import { isLetter, isTitleCase, sentenceSpans } from '../sentences.js';
import type { AnswerTuning } from './tuning.js';

/** A passage the answer is read from: a cited chunk widened to its page window. */
export interface AnswerPassage {
  id: number;
  text: string;
  /** Retrieval relevance in [0, 1]. @default 0 */
  score?: number;
  /** The passage's project ("Verra 5533"), named before its pieces in an answer over several projects. */
  project?: string;
  /** Shapes of its document's running lines (page-furniture.ts runningLineShapes): never quoted. */
  running?: ReadonlySet<string>;
  /** Whether its document uses a word (as query.ts normalizedTerms gives it), when the document is at hand. */
  usesWord?: (term: string) => boolean;
  /** The rest of the page lines the passage starts and ends in, when it is cut from them mid-line. */
  line?: { head: string; tail: string };
  /**
   * Its document's candidates already read, by window (`candidatesOf` fills it): reading a passage does not depend on
   * the question, so a window read while the query embeds, or by an earlier search, is not read again.
   */
  readings?: { get(key: string): readonly Candidate[] | undefined; set(key: string, read: readonly Candidate[]): unknown };
}

/** A sentence (or group of a form's or table's lines) that may be quoted. */
export interface Candidate {
  passageId: number;
  /** Offsets in the passage text: `text === passage.text.slice(start, end)`. */
  start: number;
  end: number;
  text: string;
  /** Its words as compared with the question's (query.ts normalizedTerms). */
  terms: readonly string[];
}

export type LineTuning = Pick<AnswerTuning, 'longSentenceChars' | 'lineGroupChars'>;

const NO_LINES: ReadonlySet<string> = new Set();

/**
 * The quotable pieces of a passage, in order: its sentences without headings and page furniture (running lines, page
 * numbers, contents leaders), a span too long to be a sentence that is not wrapped prose (a form, a table or a list
 * run together) cut into groups of its lines, each cut short where a formula garbled by extraction starts, and only
 * those that read as words (`readable`).
 */
export function candidatesOf(passage: AnswerPassage, tuning: LineTuning): Candidate[] {
  const { readings, line } = passage;
  const key = `${tuning.longSentenceChars} ${tuning.lineGroupChars}\u0000${line?.head ?? ''}\u0000${line?.tail ?? ''}\u0000${passage.text}`;
  const read = readings?.get(key) ?? readCandidates(passage, tuning);
  readings?.set(key, read);
  return read.map((c) => (c.passageId === passage.id ? c : { ...c, passageId: passage.id }));
}

function readCandidates(passage: AnswerPassage, tuning: LineTuning): Candidate[] {
  const { text } = passage;
  const furniture = furnitureLines(text, passage.running ?? NO_LINES, passage.line ?? { head: '', tail: '' });
  return sentenceSpans(text, passage.line?.head)
    .filter((s) => !s.heading)
    .flatMap((s) => withoutRanges(text, s, furniture))
    .flatMap((piece) => lineGroups(text, piece, tuning))
    .flatMap((group) => {
      const span = trimSpan(text, { start: group.start, end: garbledFrom(text, group.start, group.end) ?? group.end });
      const body = span ? text.slice(span.start, span.end) : '';
      return span && readable(body) ? [{ passageId: passage.id, ...span, text: body, terms: normalizedTerms(body) }] : [];
    });
}

/**
 * A span as quotable groups: itself when short, one line, or wrapped prose (every line but the last full, ending a
 * sentence); else its lines in groups of at most `lineGroupChars`, so a form's field or a table's row is quoted
 * rather than a page of them.
 */
function lineGroups(text: string, span: Span, tuning: LineTuning): Span[] {
  const body = text.slice(span.start, span.end);
  const lastLine = body.slice(body.lastIndexOf('\n') + 1);
  if (!body.includes('\n') || isProse(body) || (body.length <= tuning.longSentenceChars && !WHOLE_SENTENCE_LINE.test(lastLine))) {
    return [span];
  }
  const out: Span[] = [];
  let start = span.start;
  let end = span.start;
  for (const m of body.matchAll(/[^\n]+/gu)) {
    const lineStart = span.start + m.index;
    const lineEnd = lineStart + m[0].length;
    // A line that is a whole sentence (a capital, then final punctuation) after a table's or list's lines is one.
    const sentence = WHOLE_SENTENCE_LINE.test(m[0]);
    if (end > start && (lineEnd - start > tuning.lineGroupChars || sentence)) {
      out.push({ start, end });
      start = lineStart;
    }
    end = lineEnd;
    if (sentence) {
      out.push({ start, end });
      start = end + 1;
    }
  }
  if (end > start) out.push({ start, end });
  return out;
}

/** A line that is a sentence of its own: a capital, four words or more, final punctuation. */
const WHOLE_SENTENCE_LINE = /^\s*\p{Lu}\S*(?:\s+\S+){3,}[.!?]["'\u201D\u2019)\]]*\s*$/u;

/** Longer than this, a span ending a sentence is a table's or list's lines more often than one sentence. */
const MAX_PROSE_CHARS = 450;
/** A wrapped line of prose is at least this long but for a paragraph's last; a table's or list's lines are shorter. */
const PROSE_LINE_CHARS = 50;

function isProse(body: string): boolean {
  if (body.length > MAX_PROSE_CHARS || !/[.!?]["'\u201D\u2019)\]]*$/u.test(body)) return false;
  return body
    .split('\n')
    .slice(0, -1)
    .every((l) => l.trim().length >= PROSE_LINE_CHARS);
}

/**
 * The lines of a passage that are page furniture: its document's running lines, page numbers and contents leaders.
 * The first and last lines are judged whole, with the rest of their page lines.
 */
function furnitureLines(text: string, running: ReadonlySet<string>, context: { head: string; tail: string }): Span[] {
  const out: Span[] = [];
  let start = 0;
  for (const line of text.split('\n')) {
    const end = start + line.length;
    const whole = `${start === 0 ? context.head : ''}${line}${end === text.length ? context.tail : ''}`;
    if (line.trim() !== '' && (isRunningLine(whole, running) || isLeaderLine(whole))) out.push({ start, end });
    start = end + 1;
  }
  return out;
}

/** A span minus the ranges (ascending, apart) it overlaps, as trimmed pieces: it is cut at their ends, and their insides dropped. */
function withoutRanges(text: string, span: Span, ranges: readonly Span[]): Span[] {
  const cuts = ranges.flatMap((r) => [r.start, r.end]).map((c) => Math.min(Math.max(c, span.start), span.end));
  return spansBetween([span.start, ...cuts, span.end])
    .filter((p) => !ranges.some((r) => r.start <= p.start && p.end <= r.end))
    .flatMap((p) => trimSpan(text, p) ?? []);
}

/**
 * Text worth quoting: twelve letters or more, mostly letters (a table's row or a formula flattened by extraction is
 * mostly digits and symbols; symbol fonts' glyphs land in Unicode's private use area or its mathematical letters), and
 * not a title (every word capitalised: it names a section or a document and states nothing).
 */
export function readable(text: string): boolean {
  let visible = 0;
  let letters = 0;
  let glyphs = 0;
  for (const ch of text) {
    if (/\s/u.test(ch)) continue;
    visible++;
    const c = ch.charCodeAt(0);
    if ((c >= 0xe000 && c <= 0xf8ff) || c === 0xd835) glyphs++;
    else if (isLetter(ch)) letters++;
  }
  return letters >= 12 && letters / visible >= 0.55 && glyphs <= 2 && !isTitleCase(text);
}

const GARBLE_WINDOW = 8;
const GARBLE_FRAGMENTS = 6;
/** Two-letter lower-case words and units of English prose, which are no formula's fragments. */
const SHORT_WORDS = new Set(
  'am an as at be by do go he if in is it me my no of on or so to up us we ie eg vs ha kg km cm mm mg kt mt gj mw kw yr'.split(' '),
);

/**
 * Where a formula that extraction turned into letter fragments starts in `text[from, to)`: eight words in a row of
 * which six are a lone letter or two lower-case letters that are no English word ("dc DW ti sp l SDW ti sp l"). Null
 * when there is none, or when fewer than 20 letters come before it (the text is then the formula: `readable` judges).
 */
export function garbledFrom(text: string, from = 0, to = text.length): number | null {
  const words = [...text.slice(from, to).matchAll(/\S+/gu)].map((m) => ({ at: from + m.index, fragment: isFragment(m[0]) }));
  for (let end = GARBLE_WINDOW; end <= words.length; end++) {
    const fragments = words.slice(end - GARBLE_WINDOW, end).filter((w) => w.fragment);
    if (fragments.length < GARBLE_FRAGMENTS) continue;
    // The first window of eight words holding six fragments: the formula starts at its first fragment.
    const first = fragments[0]?.at ?? from;
    return [...text.slice(from, first)].filter(isLetter).length >= 20 ? first : null;
  }
  return null;
}

const PLAIN_WORD = /^[A-Za-z0-9]+$/u;

/** A lone letter (not "a", "I" or an initial) or two lower-case letters that are no English word, once trimmed of punctuation. */
function isFragment(word: string): boolean {
  // Most words are plain (ASCII letters and digits: nothing to trim), and one of three or more is no fragment.
  if (word.length > 2 && PLAIN_WORD.test(word)) return false;
  const bare = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  if (/^\p{L}$/u.test(bare)) return !/^[aAI]$/u.test(bare) && !/^\p{Lu}\.,?$/u.test(word);
  return /^\p{Ll}{2}$/u.test(bare) && !SHORT_WORDS.has(bare);
}
