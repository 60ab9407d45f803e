import { extractMarkers } from './markers.js';
import { normalizedTerms } from './query.js';
import { hasDigit } from './text.js';

/**
 * Whether a generated answer says what its citations say (CONTRACT 2, Evidence and abstention: every marker refers to
 * a passage that supports the statement). A model's sentence is kept only when the passages it cites hold most of its
 * content words and every number and code it states; anything else (a paraphrase drifting from the text, a figure
 * the passage does not give, a "the documents do not say") is dropped. Pure: the LLM summariser logs what was dropped
 * and falls back to the extractive answer when nothing is left.
 */

export interface SupportPassage {
  id: number;
  text: string;
}

export interface SentenceSupport {
  /** The sentence as the model wrote it (markers included). */
  sentence: string;
  /** The passages it cites: its own markers, or the one attached to a sentence that had none. */
  cites: number[];
  /** Share of its content words (stemmed, stop words excluded) and numbers and codes found in the cited passages. */
  share: number;
  /** Numbers and codes it states that none of the cited passages holds verbatim. */
  missing: string[];
  supported: boolean;
  /** True when the sentence had no marker and got the one of the passage that supports it. */
  attached: boolean;
}

export interface AnswerSupport {
  /** The supported sentences in their order, with their markers; '' when none is supported. */
  text: string;
  kept: SentenceSupport[];
  dropped: SentenceSupport[];
}

/** Least share of a sentence's content words that its cited passages must hold. */
const MIN_SHARE = 0.6;

export interface SupportOptions {
  /** Soft length budget: supported sentences past it are left out, whole; the first is always kept. @default none */
  maxChars?: number;
}

const MARKER_GROUP = /\[\s*\d{1,4}(?:\s*[,\u2013-]\s*\d{1,4})*\s*\]/g;
/**
 * Statements that the passages do not answer. They carry no fact to cite, so they are never "supported"; an answer
 * made only of them falls back to the extractive one, which decides `answered`.
 */
const NOT_FOUND =
  /\bnot found\b|\bno (?:information|mention|details?)\b|\b(?:passages?|documents?|texts?|context|sources?)\b[^.]*\b(?:do|does|did|is|are|was|were|can)(?:\s+not|n['\u2019]t|not)\b|\bnot (?:mentioned|stated|specified|provided|given|answered)\b|\bcannot be (?:found|determined|answered)\b/i;
/** True when the text says that the passages do not answer (the reply the prompt asks for, or a paraphrase of it). */
export function statesNotFound(text: string): boolean {
  return NOT_FOUND.test(text);
}

/** A number as written: digit groups joined by `,` or `.` (256,109; 5,35,052; 12.5). */
const NUMBER = /\d+(?:[.,]\d+)*/g;
/** A code: letters then at least two digits, optionally hyphenated (VM0007, AR-AM0001, VCS5533); not tCO2e. */
const CODE = /^[a-z]{1,8}(?:-[a-z]{1,8})*-?\d{2,}[a-z\d.-]*$/;

/**
 * Splits an answer into its lines and each line into sentences; a marker run after the full stop stays with the
 * sentence it follows ("20 years. [1] The risk ..."). A sentence ends at . ! or ? followed by a space and a capital,
 * digit or opening quote, so "e.g. the" and "12.5" do not split.
 */
export function answerSentences(answer: string): string[][] {
  return answer
    .split(/\n+/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) =>
      line
        .split(/(?<=[.!?]["\u201d\u2019)]*(?:\s*\[[\d,\s\u2013-]+\])*)\s+(?=[\p{Lu}\p{N}"\u201c(])/u)
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    );
}

/** Text in the form numbers and codes are compared in: NFKC (tCO₂e -> tCO2e), lower case. */
function folded(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A passage as sentences are checked against it: its words, its folded text (codes are looked up in it), and the two
 * texts numbers are looked up in: with thousands commas removed (256,109 -> 256109), and with every separator between
 * digit groups removed (256 109tCO2e -> 256109tco2e, 5,35,052 -> 535052).
 */
function prepare(p: SupportPassage) {
  const plain = folded(p.text);
  return {
    id: p.id,
    terms: new Set(normalizedTerms(p.text)),
    plain,
    unseparated: plain.replace(/,(?=\d{3})/g, ''),
    joined: plain.replace(/(\d)[,\s\u00a0\u202f'](?=\d)/g, '$1'),
  };
}

type PreparedPassage = ReturnType<typeof prepare>;

/** The number occurs as a whole number in the text: not inside a longer one (20 is not in 2042 nor in 12.20). */
function holdsNumber(p: PreparedPassage, n: string): boolean {
  const re = new RegExp(`(?<!\\d|\\d[.,])${escapeRegExp(n)}(?!\\d|[.,]\\d)`);
  return re.test(p.unseparated) || re.test(p.joined);
}

function holdsCode(p: PreparedPassage, code: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(code)}(?![\\p{L}\\p{N}])`, 'u').test(p.plain);
}

/** What a sentence states: its content words, and the numbers and codes it gives. */
function claimsOf(sentence: string) {
  const bare = folded(sentence.replace(MARKER_GROUP, ' '));
  const terms = [...new Set(normalizedTerms(bare))];
  const codes = terms.filter((t) => CODE.test(t));
  const words = terms.filter((t) => !hasDigit(t));
  // Digits inside codes are checked with the code; the rest as numbers.
  const withoutCodes = codes.reduce((s, c) => s.split(c).join(' '), bare);
  // Numbers without thousands separators (256,109 -> 256109); decimal points kept.
  const numbers = [...new Set([...withoutCodes.matchAll(NUMBER)].map((m) => m[0].replace(/,(?=\d)/g, '')))];
  return { words, numbers, codes };
}

type Claims = ReturnType<typeof claimsOf>;

function judge(claims: Claims, cited: PreparedPassage[]): { share: number; missing: string[]; supported: boolean } {
  const words = claims.words.filter((w) => cited.some((p) => p.terms.has(w))).length;
  const missing = [
    ...claims.numbers.filter((n) => !cited.some((p) => holdsNumber(p, n))),
    ...claims.codes.filter((c) => !cited.some((p) => holdsCode(p, c))),
  ];
  // Numbers and codes count as content: "It runs to 14/07/2042 [1]" states a date, not the verb "run".
  const checkable = claims.words.length + claims.numbers.length + claims.codes.length;
  const share = checkable === 0 ? 0 : (words + checkable - claims.words.length - missing.length) / checkable;
  // At least one word: a bare "1 [3]." or "Yes [1]." states nothing that can be checked.
  return { share, missing, supported: cited.length > 0 && claims.words.length > 0 && share >= MIN_SHARE && missing.length === 0 };
}

/**
 * A sentence that can stand as an answer: not a fragment (starting in lower case or with an ellipsis, as a model
 * copying from the middle of a passage does), not a lead-in or a heading ending with a colon ("Passages:",
 * "[1] PD.pdf, page 9:"), not the prompt's question echoed, not a contents line with dot leaders. A list item's
 * bullet is ignored.
 */
function isWholeStatement(sentence: string): boolean {
  const body = sentence
    .replace(MARKER_GROUP, ' ')
    .replace(/^\s*(?:[-*\u2022]|\d{1,2}[.)])\s+/u, '')
    .trim();
  return (
    body !== '' &&
    !/^(?:\u2026|\.\.\.|\p{Ll})/u.test(body) &&
    !/^(?:question|answer|passages?)\s*:/i.test(body) &&
    !/[:?]\s*$/.test(body) &&
    !/(?:\.\s?){4,}/.test(body)
  );
}

/** Puts `[id]` before the sentence's closing punctuation. */
function withMarker(sentence: string, id: number): string {
  const m = /^(.*?)([.!?]*["\u201d\u2019)]*)$/su.exec(sentence);
  return `${m?.[1] ?? sentence} [${id}]${m?.[2] ?? ''}`;
}

/**
 * A sentence's verdict. One with markers is judged against the union of its cited passages; one without markers
 * against each passage, and gets the marker of the best one that supports it.
 */
function verdictOf(sentence: string, prepared: ReadonlyMap<number, PreparedPassage>): SentenceSupport {
  const cites = extractMarkers(sentence);
  const unsupported = { sentence, cites, share: 0, missing: [], supported: false, attached: false };
  if (NOT_FOUND.test(sentence) || !isWholeStatement(sentence)) return unsupported;
  const claims = claimsOf(sentence);
  if (cites.length > 0) {
    const cited = cites.flatMap((id) => prepared.get(id) ?? []);
    return { sentence, cites, ...judge(claims, cited), attached: false };
  }
  let best: SentenceSupport | null = null;
  for (const p of prepared.values()) {
    const j = judge(claims, [p]);
    // The supported passage with the largest share; failing any, the closest one (for the log).
    if (best === null || (j.supported && !best.supported) || (j.supported === best.supported && j.share > best.share)) {
      best = { sentence, cites: [p.id], ...j, attached: j.supported };
    }
  }
  return best?.supported ? best : { ...(best ?? unsupported), cites: [] };
}

/**
 * Checks every sentence of `answer` against the passages it cites (verdictOf). Markers should already be validated
 * (validateMarkers): a marker citing no passage supports nothing.
 */
export function checkAnswerSupport(answer: string, passages: readonly SupportPassage[], opts: SupportOptions = {}): AnswerSupport {
  const maxChars = opts.maxChars ?? Number.POSITIVE_INFINITY;
  const prepared = new Map(passages.map((p) => [p.id, prepare(p)]));
  const kept: SentenceSupport[] = [];
  const dropped: SentenceSupport[] = [];
  const lines: string[] = [];
  let length = 0;
  for (const line of answerSentences(answer)) {
    const out: string[] = [];
    for (const sentence of line) {
      const verdict = verdictOf(sentence, prepared);
      if (!verdict.supported) {
        dropped.push(verdict);
        continue;
      }
      const id = verdict.cites[0];
      const text = verdict.attached && id !== undefined ? withMarker(sentence, id) : sentence;
      if (kept.length > 0 && length + 1 + text.length > maxChars) continue;
      kept.push(verdict);
      out.push(text);
      length += (length > 0 ? 1 : 0) + text.length;
    }
    if (out.length > 0) lines.push(out.join(' '));
  }
  return { text: lines.join('\n'), kept, dropped };
}

/**
 * Where a reply starts repeating itself: the end of the first copy when a sentence (markers and case aside) repeats
 * an earlier one, or when a run of 8 to 200 characters follows itself at least twice more (a checkbox line, a phrase
 * without a full stop). Small local models fall into such loops at temperature 0. Returns null when there is none.
 */
export function repetitionStart(text: string): number | null {
  const periodic = /([\s\S]{8,200}?)\1{2,}/u.exec(text);
  const loop = periodic ? periodic.index + (periodic[1]?.length ?? 0) : null;

  const seen = new Set<string>();
  const sentence = /[^.!?\n]+(?:[.!?]+|\n|$)(?:\s*\[[\d,\s\u2013-]+\])*/gu;
  for (const m of text.matchAll(sentence)) {
    const key = folded(m[0].replace(MARKER_GROUP, ' '))
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
    if (key.length < 12) continue;
    if (seen.has(key)) return Math.min(m.index, loop ?? m.index);
    seen.add(key);
  }
  return loop;
}

/** The reply up to where it starts repeating itself (repetitionStart), trimmed; `cut` says whether anything went. */
export function cutRepetition(text: string): { text: string; cut: boolean } {
  const at = repetitionStart(text);
  return at === null ? { text, cut: false } : { text: text.slice(0, at).trimEnd(), cut: true };
}
