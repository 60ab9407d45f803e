import { spansBetween, trimSpan, type Span } from './chunking.js';
import { endsClause, hasLetter, oneLine } from './text.js';

/**
 * Sentences of extracted PDF text: what the extractive answer picks from, and what the dense index embeds beside
 * each chunk (sentence-level evidence).
 */

/**
 * Abbreviations whose period ends no sentence, as English splitters know them (Punkt's abbreviation types): Latin,
 * titles and a name's initials before any word ("e.g. Ground preparation", "Mr. Solanki", "Winjum et al. (1998)",
 * "Work carried out by: J. Miles"; not a lettered part, "as defined in Appendix B. CXCS are ..."), and the ones that
 * stand before a number or a code ("Rs. 7 Crores", "No. 502", "Column No. C-209", "Fig. 3", "pp. 12", a report's
 * "rev. 01", and a species in a table row: "Eucalyptus sp. 850 150 1,000"). Before a capitalised word, "sp." or "No."
 * may end a sentence ("... Quercus sp. All species are native", "Is the pool included? No. The pool ...").
 */
const LETTERED = String.raw`Appendix|Annex|Table|Section|Figure|Part|Schedule|Category|Type|Phase|Stage|Option|Scenario|Class|Tier|Step|Exhibit|Attachment|Chapter|Component|Module|Group|Zone|Plan`;
const BEFORE_ANY = String.raw`e\.g|i\.e|cf|vs|viz|et al|Mr|Mrs|Ms|Dr|Prof|St|Co|(?<!\b(?:${LETTERED})\s)\p{Lu}`;
const BEFORE_NUMBER = String.raw`No|Nos|Rs|Fig|Figs|Eq|Eqs|Vol|pp|p|Sec|Art|Para|para|approx|ca|sp|spp|rev`;

/**
 * Between two sentences: whitespace after final punctuation (an ellipsis character too: a form's "... pests, etc…"
 * before the field's answer), before a capital or a digit (perhaps quoted), unless the period is an abbreviation's.
 */
const SENTENCE_BOUNDARY = new RegExp(
  String.raw`(?<=[.!?;\u2026])(?<!\b(?:${BEFORE_ANY})\.)\s+(?:(?=["'(\u201C]?\p{Lu})(?!(?<=\b(?:${BEFORE_NUMBER})\.\s+)\p{Lu}[\p{Lu}\d-]*\d)|(?<!\b(?:${BEFORE_NUMBER})\.\s+)(?=["'(\u201C]?\p{N}))`,
  'gu',
);

/** Sentence boundaries in extracted PDF text, where line breaks are layout and not punctuation. */
export function splitSentences(text: string): string[] {
  const flat = oneLine(text);
  if (flat === '') return [];
  return flat
    .split(SENTENCE_BOUNDARY)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const NUMERAL = /\p{N}/u;

/** A letter of any script, ASCII tested without the Unicode property (the answer step reads every character). */
export function isLetter(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return c < 128 ? (c >= 65 && c <= 90) || (c >= 97 && c <= 122) : hasLetter(ch);
}

/** Fragments (page numbers, table cells, headers) have fewer letters; the count stops at the twelfth. */
export function hasTwelveLetters(s: string): boolean {
  let letters = 0;
  for (const ch of s) if (isLetter(ch) && ++letters === 12) return true;
  return false;
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

/**
 * Numbered, lettered or all-capital short lines ("3.4 Baseline scenario", "(b) Composition of HFC stream", "ANNEX 3"),
 * and a VCS form's section row, its number of three parts last ("Benefit Sharing 2.3.5"; "Sawnwood 0.84" is a table's
 * row, "Methodology Version 1.2.2" a field's value).
 */
const HEADING_LINE =
  /^(?:(?:section|annex|appendix)\s+)?(?:\d+(?:\.\d+)*\.?|[A-Z]\.\d+(?:\.\d+)*\.?)\s+\p{Lu}[^.!?;:]{0,90}$|^\(?[a-z]\)\s+\p{Lu}[^.!?;:]{0,90}$|^[^\p{Ll}]{4,90}$|^\p{Lu}[^.!?;:\d]{2,90}(?<!\b[Vv](?:ersion|er\.?)?)\s[1-9]\d?(?:\.\d{1,2}){2,}$/u;

/** Words a title leaves in lower case ("Carbon Accounting for Mosaic and Landscape-Scale REDD Projects"). */
const TITLE_SMALL_WORDS = new Set('a an and as at by for from in into of on or the to with via per'.split(' '));
/** Capitalised words of a title at most; its small words ("for", "of", "to") are not counted. */
const MAX_TITLE_WORDS = 10;
/** Ten words of a title, however long, fit in this many characters. */
const MAX_TITLE_CHARS = 200;

/**
 * A short text in title case (every word but the small ones capitalised), without a digit or final punctuation:
 * "Executive Summary", "Carbon Accounting for Mosaic and Landscape-Scale REDD Projects". It names a section, a document
 * or a form field and states nothing, so it is never quoted alone; a defined term glued to the text after it ("Peat
 * Depletion Time (PDT) The estimated number of years ...") is not one.
 */
export function isTitleCase(text: string): boolean {
  const t = text.trim();
  if (t.length > MAX_TITLE_CHARS || NUMERAL.test(t) || endsClause(t)) return false;
  const words = t.match(/\p{L}[\p{L}\p{M}'\u2019-]*/gu) ?? [];
  const content = words.filter((w) => !TITLE_SMALL_WORDS.has(w));
  return content.length > 0 && content.length <= MAX_TITLE_WORDS && content.every((w) => /^\p{Lu}/u.test(w));
}

function isHeadingLine(line: string): boolean {
  const l = line.trim();
  return l.length >= 3 && !endsClause(l) && /\p{L}{2}/u.test(l) && HEADING_LINE.test(l);
}

/**
 * A numbered line that runs on into the next: it ends in a lower-case word and the next line starts in lower case or
 * with a figure ("8 CDM Approved Methodology AM0001, Incineration of HFC23 Waste streams, dated" / "26 September
 * 2003."). A numbered list item wrapped by the layout, not a heading.
 */
function wrapsOn(line: string, next: string | undefined): boolean {
  return next !== undefined && /\p{Ll}$/u.test(line.trimEnd()) && /^[\p{Ll}\p{N}]/u.test(next.trimStart());
}

/**
 * A form's label, wrapped in its narrow column: a short line of words without final punctuation ("Process used to").
 * A short line with a figure is a table's row or a field's value ("Sawnwood 0.84", "05-June-2025").
 */
const LABEL_LINE_CHARS = 32;
/** The field's text beside it runs on much longer lines. */
const FIELD_LINE_CHARS = 45;

function isLabelLine(line: string): boolean {
  const l = line.trim();
  return l.length >= 2 && l.length <= LABEL_LINE_CHARS && !endsClause(l) && hasLetter(l) && !NUMERAL.test(l);
}

/**
 * Runs of form label lines that extraction glues to the field's text after them ("Process used to" / "design the
 * benefit" / "sharing plan" / "The benefit-sharing plan was developed through participatory"): short lines after a
 * finished sentence or a heading, and before a long line that starts a sentence (prose wraps at its column's full
 * width, so its short lines end paragraphs). The offsets where each run starts and ends; lines are judged as the page
 * lays them out (`judged`, see sentenceSpans), `starts` their offsets in the text.
 */
function labelCuts(starts: readonly number[], judged: readonly string[]): number[] {
  const cuts: number[] = [];
  for (let i = 0; i < judged.length; i++) {
    const before = judged[i - 1]?.trim();
    const opens = !before || /[.!?;:]$/.test(before) || isHeadingLine(before);
    if (!opens || !isLabelLine(judged[i] ?? '')) continue;
    let end = i;
    while (end < judged.length && isLabelLine(judged[end] ?? '')) end++;
    const widest = Math.max(...judged.slice(i, end).map((l) => l.trim().length));
    const field = (judged[end] ?? '').trim();
    if (/^["'(\u201C]?\p{Lu}/u.test(field) && field.length >= Math.max(FIELD_LINE_CHARS, 1.5 * widest))
      cuts.push(starts[i] ?? 0, starts[end] ?? 0);
    // The run's lines are judged: the next to look at is the line after it.
    i = end - 1;
  }
  return cuts;
}

/**
 * Sentences of extracted PDF text with their offsets (surrounding whitespace excluded): the boundaries of
 * splitSentences, and also the line break after a heading line or a form's label, which extraction glues to the
 * sentence after it. `head` is the text before `text` on its first line when `text` starts mid-line: the line rules
 * judge the whole line, so the end of a line ("Mr Deepak Asher is the Chief") is not taken for a heading.
 */
export function sentenceSpans(text: string, head = ''): SentenceSpan[] {
  const cuts: number[] = [0];
  for (const m of text.matchAll(SENTENCE_BOUNDARY)) cuts.push(m.index + m[0].length);
  const lines = text.split('\n');
  const judged = [head + (lines[0] ?? ''), ...lines.slice(1)];
  const starts: number[] = [];
  for (let i = 0, at = 0; i < lines.length; at += (lines[i++] ?? '').length + 1) starts.push(at);
  lines.forEach((line, i) => {
    const start = starts[i] ?? 0;
    if (isHeadingLine(judged[i] ?? line) && !wrapsOn(line, lines[i + 1])) cuts.push(start, start + line.length + 1);
  });
  cuts.push(...labelCuts(starts, judged));
  const sorted = cuts.filter((c) => c >= 0 && c <= text.length).sort((a, b) => a - b);
  const firstLineEnd = lines[0]?.length ?? 0;
  // Each cut to the next (the last to the text's end).
  return spansBetween([...sorted, text.length]).flatMap((between): SentenceSpan[] => {
    const span = trimSpan(text, between);
    if (!span) return [];
    const body = text.slice(span.start, span.end);
    return [{ ...span, heading: !body.includes('\n') && isHeadingLine(span.start < firstLineEnd ? head + body : body) }];
  });
}
