import { askedUnit, holdsFigureIn } from './units.js';
import { trimSpan, type Span } from './chunking.js';
import { isLeaderLine, isPageNumberLine, isRunningLine } from './page-furniture.js';
import { normalizedTerms, stem, tokenize, withoutExclusions } from './query.js';
import { isLetter, isTitleCase, sentenceSpans, type SentenceSpan } from './sentences.js';

/**
 * Evidence for an answer (CONTRACT 2, "Evidence and abstention"): which sentence(s) of each retrieved passage bear on
 * the question (its `quote`, a verbatim substring of the passage), whether the passages answer the question at all,
 * and the extractive answer made of the quotes. Lexical, and pure but for the passages it keeps once read
 * (passageReading; the cost for 8 windows of ~1.8k characters, read on the spot or ahead: bench/search/answer-step.ts):
 * a sentence is weighed by the question words it holds, each word by how rare it is among the candidate sentences
 * (numbers and codes count as words and match exactly), lightly normalised by sentence length, and less when the
 * question asks for a number and it holds none.
 */

export interface EvidencePassage {
  id: number;
  text: string;
  /** Retrieval relevance in [0, 1] (the citation's score); breaks near-ties between sentences. @default 0 */
  score?: number;
  /** The passage's project, named before its sentences in an answer that spans several projects ("Verra 5533"). */
  project?: string;
  /**
   * Shapes of its document's running lines (domain/page-furniture.ts runningLineShapes): such lines, page numbers
   * and dot-leader lines are never part of a quote.
   */
  running?: ReadonlySet<string>;
  /**
   * The rest of the passage's first and last lines on its page, when the passage is cut from it in the middle of a
   * line (a chunk or window starts and ends at sentences, and sentences share lines). Line rules (running lines,
   * headings, form labels) judge those lines whole.
   */
  line?: LineContext;
  /**
   * What an answer from this passage's project would hold, when its registry record states what the question asks
   * (domain/record-answers.ts: the proponent's name for "Who is the project proponent?", a methodology's code, a
   * place, a yearly figure). A sentence that holds one counts one more question word (RECORD, as a sentence naming a
   * place does for "Where ...?"), and one that holds none weighs RECORDLESS_SHARE, as a sentence without a number
   * does for a question for one: the sentence that names the proponent is quoted, not those that say "the project
   * proponent" in passing.
   */
  expected?: readonly string[];
  /**
   * The whole page the passage is cut from, when known: a question that names the unit of its answer ("in metres",
   * "how many hectares") is answered only when a cited page gives a figure in it (domain/units.ts). @default text
   */
  page?: string;
}

/** The text before a passage on its first line (`head`) and after it on its last (`tail`), as its page has them. */
export interface LineContext {
  head: string;
  tail: string;
}

const WHOLE_LINES: LineContext = { head: '', tail: '' };

export interface Quote {
  passageId: number;
  /** Offsets of the quote in the passage text: `text === passage.text.slice(start, end)`. */
  start: number;
  end: number;
  text: string;
  /** Share of the question's word weight that the quote holds, in [0, 1]. */
  coverage: number;
  /** Ranking score of the quote (coverage, length-normalised, plus a little of the passage's own relevance). */
  score: number;
  /**
   * What the quote is the answer of, when it is a form field's answer: the field's title as the form prints it
   * ("Project Crediting Period" for "01/01/2023 to 31/12/2032."). An answer names it before the quote.
   */
  label?: string;
  /**
   * The quote's best sentence alone, when the quote runs on past it (the next sentence, what it announces, a table's
   * rows below it), or a list's lead-in with its first line: an answer short of room for the whole quote states this
   * instead. None for a table's quote led by its caption.
   */
  core?: string;
}

export interface Evidence {
  /** One quote per passage that has a quotable sentence, in passage order. */
  quotes: Quote[];
  /** True when the best quotes hold enough of the question's rarer words to be taken as an answer. */
  answered: boolean;
  /** The measure `answered` is decided on, in [0, 1] (see ANSWERED_SUPPORT). */
  support: number;
  /**
   * The unit the question asks its answer in ("metres"), when no passage's page gives a figure in it: the question
   * is then not answered, whatever the support (domain/units.ts).
   */
  unitMissing?: string;
}

/** A sentence longer than this (a table or list run together) scores half: it holds question words by chance. */
const MAX_SENTENCE_CHARS = 450;
/** A quote of two sentences stays within this many characters (an answer of ~600 holds two or three facts). */
const MAX_QUOTE_CHARS = 600;
/**
 * The next sentence joins a quote only when at most this many characters stand between them: more is a table, a
 * figure's text or a label that is not quoted, which the quote would carry along.
 */
const MAX_JOIN_GAP = 40;
/** The next sentence joins a quote when its score is at least this share of the quote's best sentence. */
const NEXT_SENTENCE_SHARE = 0.6;
/** Weight of the passage's retrieval score in a sentence's score. */
const PASSAGE_WEIGHT = 0.4;
/**
 * The sentence before a short best sentence (at most SHORT_BEST_CHARS) starts its quote when its score is at least
 * this share of the best one's: a higher bar than the next sentence's, since a quote is read from its start.
 */
const PREV_SENTENCE_SHARE = 0.8;
const SHORT_BEST_CHARS = 200;
/** An answer piece is kept when it scores at least this share of the best piece. */
const PIECE_SHARE = 0.5;
/**
 * A quote repeats a kept piece when this share of the shorter one's words are the other's (or one holds the other
 * whole): it is left out of the answer (one piece per fact), unless the quote gives figures the piece does not: other
 * figures, or any where the piece gives none (a number, a code such as "Sentinel-2").
 */
const REPEAT_SHARE = 0.7;
/**
 * A repeating quote states the same as the kept piece, and its passage is cited beside it, when this share of the
 * longer one's words are shared as well and both give the same figures: the same sentence on another page or in
 * another document of the project ("... 10% of the established parcels were re-measured [1][3]").
 */
const SAME_STATEMENT_SHARE = 0.7;
/**
 * `answered` is true when the best quote (with half credit for its window's other words) holds at least this share
 * of the question's word weight, the words naming the projects and documents left out. Calibrated on
 * ../shared/corpus/qa-dev.jsonl's tuning half (dev-001..045) and qa-dev-unanswerable.jsonl (bench/README.md,
 * "answers"): from 0.26 to 0.29 the tuning half is answered 41/45 times and 8 of the 10 unanswerable questions are
 * refused; the lowest of them is taken, since higher values refuse real answers first.
 */
export const ANSWERED_SUPPORT = 0.26;
/**
 * The support required instead when a word of the question's focus (the words after "what", "which", "how many":
 * "what *irrigation system*", "what *price*") is found in none of the passages: they are about the subject but do
 * not name what is asked. Calibrated like ANSWERED_SUPPORT, on the unanswerable set against all answerable
 * development questions (bench/README.md, "answers").
 */
export const UNFOCUSED_SUPPORT = 0.34;
/**
 * Support below which an answered question's answer says first that the passages may answer it only in part
 * (search.ts ANSWER_HEDGE). Support is calibrated as a confidence: over every question set with gold evidence (the 90
 * development questions, the three held-out sets and their unanswerable questions; bench/README.md "answers", twelfth
 * session), 16 of the 34 answers given below 0.4 carry the gold evidence, and 5 of the 11 unanswerable questions that
 * were answered fall there; above it, 101 of 148 do. Below 0.4 an answer is more often not the answer than it is.
 */
export const HEDGED_SUPPORT = 0.4;

/**
 * A question whose answer is a quantity, a count or a date ("how many", "how long", "when", "what percentage",
 * "which years", "what validation opinion number": up to three words may name what is counted or dated): its answer
 * holds a number, in figures or in words.
 */
const ASKS_FOR_NUMBER =
  /\b(?:how\s+(?:many|much|long|far|often|large|big|high|hot|cold|old|deep|wide|soon|tall|heavy)|when|(?:what|which)\s+(?:[\p{L}\p{N}-]+\s+){0,3}(?:years?|dates?|share|percentage|percent|proportion|fraction|rate|values?|amount|number|level|temperature|price|area|size|period|figures?|ratio|density|volume|total))\b/iu;
const NUMBER_WORD =
  /\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|thousand|million|billion|half|twice|dozen)\b/i;
/**
 * A number in figures or in words (the figures test first: most sentences that have one have figures). A figure
 * inside a code or a formula's name (HCFC22, VM0007, tCO2e) is not a quantity.
 */
function holdsNumber(text: string): boolean {
  return /(?<![A-Za-z\d])\d/.test(text) || NUMBER_WORD.test(text);
}
/**
 * Share of its word score that a sentence without a number keeps when the question asks for one: the answer type
 * of factoid question answering, as a weight rather than a filter (a sentence may give the number in a form this
 * does not read). Measured on the development set (bench/README.md, "answers").
 */
const NUMBERLESS_SHARE = 0.7;

/**
 * Share of its word score that a sentence keeps when its project's record states what the question asks and the
 * sentence does not hold it (EvidencePassage.expected): a weight, not a filter, as NUMBERLESS_SHARE (the record may
 * spell it otherwise, or be out of date).
 */
const RECORDLESS_SHARE = 0.7;

/** An expected answer as a sentence is checked for it: a whole number, a code, or a name's words. */
type ExpectedAnswer = { number: RegExp } | { code: RegExp } | { terms: readonly string[] };

/** A methodology's or a standard's code: letters and digits in one word ("AM0001", "AR-AM0004", "VM0047"). */
const CODE = /^(?=[^\s]*\p{L})(?=[^\s]*\d)[\p{L}\d]+(?:[-./][\p{L}\d]+)*$/u;

function expectedAnswer(text: string): ExpectedAnswer | null {
  // A number, found in a text whose thousands separators are taken out (thousands below).
  if (/^\d+$/u.test(text)) return { number: new RegExp(`(?<![\\d.,])${text}(?!\\d|[.,]\\d)`, 'u') };
  if (CODE.test(text)) {
    // Its runs of letters and of digits, each pair joined or apart ("AM0001", "AM 0001", "AM-0001"), not inside
    // another code ("AM0001" is not "AR-AM0001" or "AM00012").
    const runs = text.match(/\p{L}+|\d+/gu) ?? [];
    return { code: new RegExp(`(?<![\\p{L}\\d-])${runs.join('[\\s./-]?')}(?![\\d]|[.-]\\d)`, 'iu') };
  }
  // A name is its words but its legal form's ("Ltd", "S.A.", "Private Limited"), which any company's name has.
  const words = [...new Set(evidenceTerms(text))];
  legalForms ??= new Set(evidenceTerms(LEGAL_FORMS));
  const forms = legalForms;
  const terms = words.filter((t) => !forms.has(t));
  return terms.length > 0 ? { terms } : words.length > 0 ? { terms: words } : null;
}

/** The words of a company's legal form (as evidenceTerms gives them: read when first needed). */
const LEGAL_FORMS =
  'Ltd Limited Pvt Private Inc Incorporated LLC LLP PLC GmbH AG SA S.A. S.A.S. SAS SRL S.R.L. BV NV Co Company Corp Corporation';
let legalForms: ReadonlySet<string> | undefined;

/** A thousands separator between digits ("26,752", "256 109", "1.000.000"). */
const THOUSANDS = /(\d)[,.\s\u00a0\u202f](?=\d{3}(?!\d))/gu;

/**
 * Share of a name's words (its legal form left out) a sentence holds to name it: "Hexa Carbon One Pvt Ltd" names
 * "Hexa Carbon One Private Limited", "Bosques de la Orinoquia S.A." does not name "Bosques de la Primavera S.A.", and
 * a methodology's title may leave out its version.
 */
const NAME_SHARE = 0.8;

/**
 * Whether a sentence (its text and its words) holds an expected answer: the number, written with or without
 * thousands separators ("26,752", "26 752", "26752"), or most of the name's words.
 */
function holdsExpected(expected: ExpectedAnswer, text: string, terms: ReadonlySet<string>): boolean {
  if ('number' in expected) return expected.number.test(text.replace(THOUSANDS, '$1'));
  if ('code' in expected) return expected.code.test(text);
  let held = 0;
  for (const t of expected.terms) if (terms.has(t)) held++;
  return held / expected.terms.length >= NAME_SHARE;
}

/**
 * A question whose answer is a date ("When did the project start?", "what start date", "which year"): its answer
 * holds one, not merely a figure (a list item's "6", a section's "1.9"). "When" further in is often a condition ("...,
 * and when must the higher value be used?"), and "which years" often a span ("a period of three years"): both stay
 * questions for a number.
 */
const ASKS_FOR_DATE =
  /^\s*when\s+(?:did|does|do|was|were|is|will|has|had)\b|\b(?:what|which)\s+(?:[\p{L}\p{N}-]+\s+){0,4}(?:dates?|year|day|month)\b/iu;
const DATE_IN_TEXT =
  /(?<![\d.,])(?:1[89]\d\d|20\d\d)(?![\d.,]\d)|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b/iu;

/**
 * A question for a place: "Where is ...", "in which county", "which country". ("Where applicable" and "where
 * included" are conditions.)
 */
const ASKS_FOR_PLACE =
  /(?:^|[,;]\s*(?:and\s+)?)where\s+(?:is|are|was|were|does|do|did|will|would|can|could)\b|\b(?:in\s+)?(?:which|what)\s+(?:countr(?:y|ies)|regions?|states?|provinces?|districts?|count(?:y|ies)|cit(?:y|ies)|towns?|villages?|municipalit(?:y|ies)|departments?|locations?)\b/iu;
/** A question for a place: its verb ("located", "situated") and the word "location" say what is asked, not where. */
const PLACE_VERBS = new Set(['locat', 'location', 'situat', 'lie']);
/** What a sentence holds when it names a place (a pseudo-term: no word of a text normalises to it). */
const PLACE = '\u0000place';
/** What a sentence holds when it holds what its project's record states for the question (EvidencePassage.expected). */
const RECORD = '\u0000record';
/**
 * A sentence that names a place: a place's kind before a name ("Country England", "Province Northamptonshire", "the
 * Municipality of La Primavera", "District Panchmahals"), "located / situated in" a name, or coordinates.
 */
const PLACE_IN_TEXT =
  /\b(?:[Cc]ountr(?:y|ies)|[Rr]egions?|[Ss]tates?|[Pp]rovinces?|[Dd]istricts?|[Cc]ount(?:y|ies)|[Cc]it(?:y|ies)|[Tt]owns?|[Vv]illages?|[Mm]unicipalit(?:y|ies)|[Dd]epartments?|[Bb]locks?|[Cc]ommunit(?:y|ies)|[Aa]ddress)\b[\s/:,]*(?:of\s+(?:the\s+)?)?\p{Lu}|\b(?:located|situated|lies|lying)\s+(?:[\p{L}-]+\s+){0,6}?(?:in|at|near|within)\s+(?:the\s+)?\p{Lu}|\b(?:[Ll]atitudes?|[Ll]ongitudes?)\b|\d\s*°/u;

/** Whether a question asks for a quantity, a count or a date (exclusion clauses left out). */
export function asksForNumber(question: string): boolean {
  return ASKS_FOR_NUMBER.test(withoutExclusions(question));
}

/** The words that name what a question asks for: up to two words after its question word ("what price per credit"). */
export function questionFocus(question: string): string[] {
  const m = /\b(?:what|which|how many|how much)\s+([\p{L}\p{N}-]+(?:\s+[\p{L}\p{N}-]+)?)/iu.exec(withoutExclusions(question));
  return m ? [...new Set(evidenceTerms(m[1] ?? ''))] : [];
}

interface Sentence {
  passage: number;
  start: number;
  end: number;
  /** Its words (Candidate.terms, shared with the passage's reading: never changed). */
  terms: ReadonlySet<string>;
  /** How many words it has (its terms without what units stand for): what its length is judged by. */
  size: number;
  /** A table's or figure's caption (CAPTION): never the sentence a quote is led by while its passage has another. */
  caption: boolean;
  overlap: number;
  /** The question asks for a number and the sentence holds none (its word score then counts NUMBERLESS_SHARE). */
  numberless: boolean;
  /** Its project's record states what the question asks and the sentence does not hold it (RECORDLESS_SHARE). */
  recordless: boolean;
  /** When the sentence is a form's instruction (INSTRUCTION): its field's answer after it (fieldAfter), if any. */
  field: Span | null;
  /** When the sentence is a numbered heading standing for its section: the heading's title, its number left out. */
  title?: string;
  /** The score without the answer type. */
  plain: number;
  /** The score without the answer type, by the words `answered` is judged on (the titles' words counted). */
  judged: number;
  score: number;
}

const NO_RUNNING_LINES: ReadonlySet<string> = new Set();

/** Bullet glyphs of Unicode fonts (a character class's body): "•", "▪", "●", "◦", "‣", "⁃". */
const BULLET_GLYPHS = String.raw`\u2022\u25AA\u25CF\u25E6\u2023\u2043`;
/** Private-use glyphs (symbol fonts' bullets and math), as PDF extraction leaves them. */
const PRIVATE_USE = /[\uE000-\uF8FF]/gu;
const WHITESPACE = /\s/u;

/** Words a sentence opens with when it refers back to the one before it ("This value ...", "These ...", "Thus ..."). */
const REFERRING_WORDS = String.raw`this|these|those|it|they|such|the\s+latter|the\s+former|thus|hence|therefore|accordingly`;
/** A sentence that goes on from the one before it: it opens with a word that refers back ("This value ...", "These ..."). */
const CONTINUES = new RegExp(String.raw`^(?:${REFERRING_WORDS}|that|here)\b`, 'iu');
/**
 * A sentence that cannot be read without the one before it: it opens by referring back ("In other words, ...", "This
 * implies ...", "These changes ...", "Thus ..."), unless what it refers to is the document itself ("This
 * methodology ...", "This project ...") or nothing ("It is not economical to ...", REFERS_ELSEWHERE).
 */
const REFERS_BACK = new RegExp(
  String.raw`^(?:in\s+other\s+words|in\s+(?:that|this|such\s+an?|such)\s+cases?|for\s+(?:this|that|these)\s+reasons?|to\s+this\s+end|as\s+such|as\s+a\s+result|consequently|${REFERRING_WORDS})\b`,
  'iu',
);
const REFERS_ELSEWHERE =
  /^(?:this|these)\s+(?:methodolog|project|report|document|section|module|tool|standard|plan|form|table|chapter|annex|appendix|pdd|protocol)|^it\s+(?:is|was)\s+(?:\w+\s+){1,3}(?:that|to)\b/iu;
/**
 * The sentence before a best sentence that refers back is quoted with it when at most this long: a short one says
 * what it refers to; a longer one takes the room of the answer's other facts (160: one development answer lost its
 * evidence so; bench/README.md, "answers", seventeenth session).
 */
const ANTECEDENT_CHARS = 120;

/**
 * A form's instruction to whoever fills it in ("Indicate the project location and attach a GIS file ...", "Describe
 * how ...", "State whether ..."), as registry templates (VCS, CDM, Regen, Gold Standard) print it above each field:
 * an imperative verb of those templates, then what it asks for. It says what the field holds, not the field's answer.
 */
const INSTRUCTION =
  /^(?:please\s+)?(?:indicate|provide|describe|state|specify|explain|justify|demonstrate|attach|summari[sz]e|outline|identify|list|include|insert|enter|give|report)\s+(?:the|a|an|all|any|each|how|whether|which|what|where|when|why|if|in|for|and|this|these|its|their)\b/iu;
/**
 * Text that ends by announcing a list or a value on the lines below: a lead-in of three words or more, not a title,
 * before a colon ("... located at the following address:", "Examples of appropriate models include:"). A form's
 * label ("Validation Phases:") and a formula's "Where:" announce nothing to quote.
 */
export function announces(text: string): boolean {
  const body = text.trimEnd();
  // (The colon is looked for first: this runs on every quote of every search.)
  if (!body.endsWith(':')) return false;
  const line = body.slice(body.lastIndexOf('\n') + 1, -1);
  const lead = line.slice(line.lastIndexOf(':') + 1).trim();
  return (lead.match(/\p{L}+/gu) ?? []).length >= 3 && !isTitleCase(lead);
}
/**
 * Where a quote that announces a list ends its first line after the colon ("... will be either:" / "a) a period of
 * three years prior to the installation of the IR equipment (year (x))"), as an offset into it; null when it
 * announces none.
 */
function listCoreEnd(quote: string): number | null {
  const colon = quote.search(/:[ \t]*\n/u);
  if (colon <= 0 || !announces(quote.slice(0, colon + 1))) return null;
  const itemStart = quote.indexOf('\n', colon) + 1;
  const itemEnd = quote.indexOf('\n', itemStart);
  return itemEnd > itemStart ? itemEnd : null;
}
/** The lines of `text` from offset `from` on, each with its offsets (`line === text.slice(start, end)`). */
function* linesFrom(text: string, from = 0): Generator<{ line: string; start: number; end: number }> {
  let start = from;
  for (const line of text.slice(from).split('\n')) {
    yield { line, start, end: start + line.length };
    start += line.length + 1;
  }
}

/** A line's own list or section marker: "(b) ", "a) ", "A.4.1.5 ", "2. ". */
const LINE_MARKER = /^\s*(?:\(?[a-z\d]{1,3}\)|(?:[A-Z]\.)?\d+(?:\.\d+)*\.?)\s+/u;
/** A text that opens an item of its own: a list or section marker, a bullet, or a numbered label ("Step 3: ", "Method 1: "). */
const ITEM_START = new RegExp(String.raw`${LINE_MARKER.source}|^\s*(?:[${BULLET_GLYPHS}]|\p{Lu}[\p{L}-]*\s+\d+[a-z]?[:.)]\s)`, 'u');

/**
 * The end of what a colon announces: the lines after `from` up to the first that ends a sentence, within
 * FIELD_CHARS, before a heading or a sub-heading ("(b) Physical Location of the Project"). Null when there is none.
 */
function linesAfter(text: string, from: number): number | null {
  let end: number | null = null;
  for (const { line, end: lineEnd } of linesFrom(text, from)) {
    const body = line.trim();
    if (body === '') continue;
    // A name on a line of its own ("Gujarat Fluorochemicals Limited") is part of the list; a marked title is not.
    const marked = LINE_MARKER.exec(body);
    if (lineEnd - from > FIELD_CHARS || (marked && isTitleCase(body.slice(marked[0].length))) || SECTION_NUMBER.test(body)) break;
    end = lineEnd;
    if (/[.;?!]$/u.test(body)) break;
  }
  return end;
}

/** A section's number on a line of its own, as forms lay it out beside the section's title ("1.10."). */
const SECTION_NUMBER = /^(?:\d+\.)+\d*$/u;
/** A numbered heading's number: "1.6 ", "A.4.1.2. ", "3.2.1 " (two levels at least: "9 The new PAIs" is a footnote). */
const NUMBERED_HEADING = /^(?:[A-Z]\.)?\d+(?:\.\d+)+\.?\s+/u;
/**
 * A numbered heading at least this share of whose words are the question's (its scope words included: "Project
 * Proponent" for "Who is the project proponent?") scores 1 + HEADING_WEIGHT x that share. Measured on the tuning half
 * with the basics set (bench/README.md, fifth session).
 */
const HEADING_NAMED_SHARE = 0.75;
const HEADING_WEIGHT = 0.5;
/** A caption's label: "Table 4.1:", "Figure 3", "Fig.A-1", "Photo 7.". */
const CAPTION_LABEL = String.raw`(?:Table|Figure|Fig\.?|Chart|Map|Graph|Photo)\s*[A-Z]?[-.\d\u2013]*\d[-.\d\u2013]*\s*[:.\u2013\u2014-]?`;
/** A table's or figure's caption: "Table 4.1: Estimated net GHG removals ...", "Figure 3 Project area", "Fig.A-1 ...". */
const CAPTION = new RegExp(String.raw`^${CAPTION_LABEL}\s`, 'iu');
/**
 * A caption's label ending a line's text before a sentence: "Table 11." is a sentence of its own to the splitter,
 * which leaves "Days wage and employment generated (2005-2019)." after it, a caption all the same.
 */
const CAPTION_LABEL_BEFORE = new RegExp(String.raw`(?:^|\n)[ \t]*${CAPTION_LABEL}[ \t]*$`, 'iu');
/** The answer of a field after its instruction: at most this many characters of what follows. */
const FIELD_CHARS = 400;

/** A title's version, as a title page writes it after the title: "Version 2.2", "v1.6". */
const VERSION_TAIL = /\s+(?:version|ver\.|v)\s*\d+(?:\.\d+)*$/iu;
/**
 * A copyright notice and what follows it ("... Forest © 2013 Face the Future", "Copyright 2013 ..."): a title page's,
 * not a statement. ("Copyright of the data remains with ..." is a sentence.)
 */
const COPYRIGHT_TAIL = /(?:^|\s)(?:\u00a9|copyright\s+(?:\u00a9\s*)?\d{4}\b).*$/isu;
/** A question that asks which version (of a methodology, a standard, a document). */
const ASKS_FOR_VERSION = /\bversions?\b/i;

/**
 * A sentence worth quoting: twelve letters or more, not a heading, title, page number or leader line, and mostly
 * words (a flattened table or formula garbled by extraction is mostly digits, symbols and glyphs).
 */
function quotable(text: string, versionAsked = false): boolean {
  // One pass over the characters (every sentence of eight page windows, on every search), then the line shapes.
  let visible = 0;
  let letters = 0;
  let glyphs = 0;
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    if (c < 128 ? c === 32 || (c >= 9 && c <= 13) : WHITESPACE.test(ch)) continue;
    visible++;
    if (c >= 0xe000 && c <= 0xf8ff) glyphs++;
    // Mathematical alphanumerics (U+1D400-U+1D7FF, a surrogate pair): a formula's symbols as extraction leaves them
    // ("𝑖𝑖𝑐𝑐(𝑠𝑠𝑒𝑒)"), not words.
    else if (c === 0xd835) glyphs++;
    else if (isLetter(ch)) letters++;
  }
  if (letters < 12 || letters / visible < 0.55 || glyphs > 2) return false;
  // A document's title with its version ("... REDD Projects Version 2.2") or its copyright ("... Forest © 2013 Face
  // the Future") states nothing either, unless the question asks which version ("Methodology Version 1.2.2" answers
  // it); a copyright notice alone neither. (A title has no digit: without a version the text is judged as it is.)
  const versionless = versionAsked ? text : text.replace(VERSION_TAIL, '');
  // (The notice's sign or word is looked for first: this runs on every candidate sentence of every search.)
  const title = versionless.includes('\u00a9') || /copyright/i.test(versionless) ? versionless.replace(COPYRIGHT_TAIL, '') : versionless;
  return !isLeaderLine(text) && !isPageNumberLine(text) && title.trim() !== '' && !isTitleCase(title) && !TEMPLATE_PLACEHOLDER.test(text);
}

/**
 * Where a formula that extraction has turned into letter fragments starts in `text` (between `from` and `to`): eight
 * words in a row of which six or more are fragments, a lone letter or two lower-case letters that are no English word
 * or unit ("dc DW ti sp l SDW ti sp l SDW D H BDia B", a dead-wood equation's subscripts). A formula whose symbols
 * stayed whole ("LFME = 0.4 if C BSLpre = NCS ...") is readable and is not one. Null when there is none, or when
 * fewer than 20 letters come before it (then the text is the formula, and `quotable` judges it).
 */
export function garbledFrom(text: string, from = 0, to = text.length): number | null {
  const words: { at: number; fragment: boolean }[] = [];
  for (const m of text.slice(from, to).matchAll(/\S+/gu)) {
    const bare = m[0].replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    // (An initial, "J." of "Schimel, J. P.", is a name's, not a formula's.)
    const initial = /^\p{Lu}\.$/u.test(m[0].replace(/,$/u, ''));
    const fragment = /^\p{L}$/u.test(bare) ? !/^[aAI]$/u.test(bare) && !initial : /^\p{Ll}{2}$/u.test(bare) && !SHORT_WORDS.has(bare);
    words.push({ at: from + (m.index ?? 0), fragment });
  }
  for (let i = 0; i + GARBLE_WINDOW <= words.length; i++) {
    let n = 0;
    for (let j = i; j < i + GARBLE_WINDOW; j++) if (words[j]?.fragment) n++;
    if (n < GARBLE_FRAGMENTS) continue;
    const first = words.slice(i).find((w) => w.fragment)?.at ?? from;
    let letters = 0;
    for (const ch of text.slice(from, first)) if (isLetter(ch)) letters++;
    return letters >= 20 ? first : null;
  }
  return null;
}
/** A colon, then on a line of its own a list's marker with nothing after it: "a.", "(i)", "1)". */
const DANGLING_MARKER = /:[ \t]*\n\s*(?:\(?[a-z]\)|[a-z]\.|\(?[ivx]{1,4}\)|\d{1,2}[.)])\s*$/u;
const GARBLE_WINDOW = 8;
const GARBLE_FRAGMENTS = 6;
/** Two-letter lower-case words and units of these documents' prose, which are no fragments. */
const SHORT_WORDS = new Set(
  'am an as at be by do go he if in is it me my no of on or so to up us we ie eg vs ha kg km cm mm mg kt mt gj mw kw yr'.split(' '),
);

/**
 * A template's placeholder for the proponent to fill in, words in square brackets ("[project ID]", "[name of
 * product(s) whose emissions footprint is changed]"): the sentence is the template's text, not the project's. A
 * reference ("[12]", "[IPCC 2006]") has a figure in it and is no placeholder.
 */
const TEMPLATE_PLACEHOLDER = /\[\p{L}[\p{L}()'\u2019-]*(?:\s+[\p{L}()'\u2019,/-]+)+\]/u;

/** What joins a compound's parts: a hyphen, a slash, or a dash between words ("5th June—World Environment Day"). */
const COMPOUND = /[-/\u2010-\u2015]/u;
const COMPOUND_JOINS = /[-/\u2010-\u2015]+/u;
/** An ordinal in figures is its number: "5th June" is "5 June", "the 2nd monitoring period". */
function ordinal(term: string): string {
  return /^\d+(?:st|nd|rd|th)$/u.test(term) ? term.replace(/\D+$/u, '') : term;
}

/** "tCO2e", "tCO2-e", "tCO2": tonnes of the gas after the "t". */
const TONNES_OF = /^t(co2-?e|co2)$/u;
const TONNE = stem('tonnes');

/**
 * What a unit's short form stands for, beside it: a tonne of a gas is the tonnes of that gas ("41,250 tCO2e per
 * year" answers "how many tonnes of CO2e"). Kept apart from evidenceTerms so that it does not lengthen a sentence.
 */
export function unitTerms(terms: Iterable<string>): string[] {
  const out: string[] = [];
  for (const t of terms) {
    // (A first-letter test before the expression: this runs over every word of every candidate sentence.)
    if (t.charCodeAt(0) !== 116 || t.length < 4) continue;
    const unit = TONNES_OF.exec(t);
    if (unit?.[1]) out.push(TONNE, unit[1].replace('-', ''));
  }
  return out;
}

/**
 * Words as compared between a question and sentences: normalised terms (domain/query.ts), and a compound is also
 * its parts, so "HFC-23" meets "HFC 23" and "tree-planting" meets "planting of trees".
 */
export function evidenceTerms(text: string): string[] {
  const out: string[] = [];
  for (const term of normalizedTerms(text)) {
    const t = ordinal(term);
    out.push(t);
    if (COMPOUND.test(t)) for (const part of t.split(COMPOUND_JOINS)) if (part !== '') out.push(ordinal(stem(part)));
  }
  return out;
}

/** A figure standing as a table's cell: whitespace on both sides ("12,000", "0.95", "18%", "(2.5)"), not "HFC-23" or "CH4". */
const CELL_FIGURE = /(?<=^|\s)[(\-\u2212]?\d[\d,./]*%?\)?(?=\s|$)/gu;

/** A table row's cells: figures, and dashes or blanks for empty ones. */
const ROW_CELLS = /^(?:[(\-\u2212]?\d[\d,./]*%?\)?|[-\u2013\u2014]|\s)+$/u;

/**
 * The rows of a table that follow a quote and that the question names by their label ("HFC-23 CHF3 12,000 11,700
 * 1.03" for a question about HFC-23's GWP; "CO2 185,000 149,591" for "what are the CO2 and CH4 values"): a line with
 * two or more figures after a label of words. The quote then runs on to the last such row before `limit`, so that
 * it holds the figures asked for. Null when no row is named.
 */
function tableRowsAfter(
  text: string,
  from: number,
  limit: number,
  named: (label: readonly string[]) => boolean,
): { end: number; terms: Set<string> } | null {
  let found = null as { end: number; terms: Set<string> } | null;
  for (const { line, end: lineEnd } of linesFrom(text.slice(0, Math.min(text.length, limit)), from)) {
    if (lineEnd > limit) break;
    const figures = [...line.matchAll(CELL_FIGURE)];
    const first = figures[0];
    // The label, then only the cells: "Thinning 1 Thinning 2 Thinning 3" is a heading row.
    if (figures.length >= 2 && first !== undefined && first.index > 0 && ROW_CELLS.test(line.slice(first.index))) {
      // Whole words of the label: "HFC-32" is not named by a question about "HFC-23", though both hold "HFC".
      const label = normalizedTerms(line.slice(0, first.index)).map(ordinal);
      if (label.length > 0 && named(label)) found = { end: lineEnd, terms: new Set([...(found?.terms ?? []), ...evidenceTerms(line)]) };
    }
  }
  return found;
}

/**
 * The first line of a parameter's record in the VCS and CDM templates' monitoring tables ("Data / Parameter R",
 * "Data/Parameter: Root-shoot ratio, Rj"), followed by its unit, description, source and value applied: a group of
 * lines starts there, so that a parameter's rows are quoted with their value, not after the previous record's tail.
 */
const PARAMETER_RECORD = /^\s*Data\s*\/\s*parameter\b/iu;
/** The same at the start of any line of a text. */
const PARAMETER_RECORD_LINE = new RegExp(PARAMETER_RECORD.source, 'imu');
/** The labels of a parameter record's rows after its value (VCS and CDM templates): where the value ends. */
const RECORD_LABEL =
  /^\s*(?:Justification|Choice of data|Purpose of data|Monitoring equipment|Measuring|Measurement|QA\/QC|Comments?\b|Any comment|Calculation method|Description of measurement|Data\s*\/\s*parameter|Source of data|Data unit)/iu;
/** Text that ends a sentence: final punctuation, perhaps before a closing quote or bracket. */
const ENDS_SENTENCE = /[.!?]["'\u201D\u2019)\]]*$/u;
/** A "sentence" longer than this is a form or a flattened table: it is quoted by groups of its lines instead. */
const LONG_SPAN_CHARS = 350;
const LINE_GROUP_CHARS = 250;
/**
 * A list's item at the start of a line: a bullet glyph (a symbol font's too), a dash, or a letter or numeral in
 * brackets ("• The project proponent must demonstrate ...", "b) Subject to an easement ...", "(ii) Existing ...").
 */
const LIST_ITEM_LINE = new RegExp(
  String.raw`^\s*(?:[${BULLET_GLYPHS}\u25A0\u27A2\u00BE\uE000-\uF8FF]|[-\u2013\u2014](?=\s)|\(?(?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s)`,
  'u',
);

/**
 * Sentence spans that may be quoted: headings left out, and a span too long to be a sentence (a form's fields, a
 * table run together, a list without punctuation; not a long sentence of prose, isProse) cut at its line breaks into
 * groups of lines: where a list's item starts, when the group holds one (LIST_ITEM_LINE), else at the line that
 * outgrows LINE_GROUP_CHARS ("• The project proponent must demonstrate that the reference region contains, at
 * minimum," was the end of one group and "15% forest cover at the beginning of the crediting period" began the next).
 */
function quotableSpans(text: string, spans: readonly SentenceSpan[], running: ReadonlySet<string>, context: LineContext): Span[] {
  const furniture = furnitureLines(text, running, context);
  const out: Span[] = [];
  for (const s of spans) {
    if (s.heading) continue;
    for (const piece of withoutRanges(text, s, furniture)) {
      const body = text.slice(piece.start, piece.end);
      if (piece.end - piece.start <= LONG_SPAN_CHARS || !body.includes('\n') || isProse(body)) {
        out.push(piece);
        continue;
      }
      let start = piece.start;
      let end = piece.start;
      // Where the group's last list item starts, and where its text before that item ends: a group that outgrows
      // LINE_GROUP_CHARS is cut there rather than in the middle of the item, so the item starts a group of its own.
      let itemStart = -1;
      let beforeItem = -1;
      for (const m of text.slice(piece.start, piece.end).matchAll(/[^\n]+/g)) {
        const lineStart = piece.start + m.index;
        const lineEnd = lineStart + m[0].length;
        const record = PARAMETER_RECORD.test(m[0]);
        const item = LIST_ITEM_LINE.test(m[0]);
        if (end > start && (lineEnd - start > LINE_GROUP_CHARS || record)) {
          if (itemStart > start && !record && !item) {
            out.push({ start, end: beforeItem });
            start = itemStart;
          } else {
            out.push({ start, end });
            start = lineStart;
          }
          itemStart = -1;
        }
        if (item && lineStart > start) {
          itemStart = lineStart;
          beforeItem = end;
        }
        end = lineEnd;
      }
      if (end > start) out.push({ start, end });
    }
  }
  return out;
}

/** A wrapped line of prose is at least this long but for a paragraph's last; a table's or list's lines are shorter. */
const PROSE_LINE_CHARS = 50;

/**
 * A long span that is one sentence of wrapped prose: it ends a sentence, fits MAX_SENTENCE_CHARS, and every line but
 * its last is full (PROSE_LINE_CHARS). It is quoted whole, not cut into groups of lines in mid-sentence ("... will
 * increase forest resources, improve the local environment" stopped short of "and increase income of local farmers").
 */
function isProse(body: string): boolean {
  if (body.length > MAX_SENTENCE_CHARS || !ENDS_SENTENCE.test(body)) return false;
  const lines = body.split('\n');
  return lines.slice(0, -1).every((l) => l.trim().length >= PROSE_LINE_CHARS);
}

/**
 * Offsets of the lines of `text` that are page furniture: running lines of its document, page numbers, leaders. The
 * first and last lines are judged with the rest of their page lines (`context`): "This information" that starts a
 * passage is the end of a running confidentiality line, and so is "The information contained herein belongs
 * exclusively to GFL ... whatsoever." that ends one, its line running on with "This information".
 */
function furnitureLines(text: string, running: ReadonlySet<string>, context: LineContext): Span[] {
  const out: Span[] = [];
  for (const { line, start, end } of linesFrom(text)) {
    const whole = `${start === 0 ? context.head : ''}${line}${end === text.length ? context.tail : ''}`;
    if (line.trim() !== '' && (isRunningLine(whole, running) || isLeaderLine(whole))) out.push({ start, end });
  }
  return out;
}

/** A span minus the ranges it overlaps, as trimmed pieces (empty ones dropped). */
function withoutRanges(text: string, span: Span, ranges: readonly Span[]): Span[] {
  const pieces: Span[] = [];
  let start = span.start;
  for (const r of ranges) {
    if (r.end <= start || r.start >= span.end) continue;
    if (r.start > start) pieces.push({ start, end: r.start });
    start = Math.max(start, r.end);
  }
  if (start < span.end) pieces.push({ start, end: span.end });
  return pieces.map((p) => trimSpan(text, p)).filter((p): p is Span => p !== null);
}

/** The question's words as compared with sentences (exclusion clauses dropped: they name what is not wanted). */
export function questionTerms(question: string): string[] {
  const terms = evidenceTerms(withoutExclusions(question));
  return [...new Set([...terms, ...unitTerms(terms)])];
}

/** "project": every search is over projects, so the word says where to look whenever a scope text has it. */
const SEARCH_UNIT = stem('project');

/**
 * The question's words that name where its answer is looked for (EvidenceOptions.scope):
 * - a name found in a scope text: a word with a capital or a digit, other than the question's first ("Gujarat",
 *   "GFL", "VM0007", "5533"), and its gloss in brackets right after it ("VCS project 5533 (afforestation of
 *   indigenously owned lands in West Bengal)");
 * - a run of two or more consecutive words found together in one scope text ("thermal oxidation" of the project's
 *   name, "validation report" of a document's type; stop words do not break a run);
 * - "project", the unit every search is over.
 * A common word that a scope text merely holds is a word of the question: "requests" in "How many clarification
 * requests ...?" is what is asked, though a document is titled "registration request form".
 */
export function scopeTerms(question: string, scopeTexts: readonly string[]): Set<string> {
  const texts = scopeTexts.map(scopeTextTerms);
  const out = questionNamer(question)(texts);
  if (texts.some((text) => text.has(SEARCH_UNIT))) out.add(SEARCH_UNIT);
  return out;
}

/** A scope text's terms as questionNamer compares them (a file name's underscores and dots are spaces). */
export function scopeTextTerms(text: string): ReadonlySet<string> {
  // The same titles, types and records come back search after search: each is read once (bounded by clearing).
  const known = SCOPE_TEXT_TERMS.get(text);
  if (known) return known;
  const terms = new Set(evidenceTerms(text.replace(/[_.]+/g, ' ')));
  if (SCOPE_TEXT_TERMS.size >= SCOPE_TEXT_TERMS_MAX) SCOPE_TEXT_TERMS.clear();
  SCOPE_TEXT_TERMS.set(text, terms);
  return terms;
}
const SCOPE_TEXT_TERMS = new Map<string, ReadonlySet<string>>();
const SCOPE_TEXT_TERMS_MAX = 10_000;

interface QuestionWord {
  /** A capital or a digit (a number of three digits or more), and not the question's first word. */
  name: boolean;
  /** Its terms (evidenceTerms): the word's own, then a compound's parts. */
  terms: string[];
}

/** A word a text holds: its own term, or every part of a compound ("HFC-23" in "HFC 23", not "low-productive" in "Productive"). */
function holds(text: ReadonlySet<string>, w: QuestionWord): boolean {
  const [own, ...parts] = w.terms;
  return (own !== undefined && text.has(own)) || (parts.length > 0 && parts.every((t) => text.has(t)));
}

function questionWord(w: string, i: number): QuestionWord {
  // A short number ("5 June", "Appendix 1") is any number, not a name.
  const name = i > 0 && (/^\p{N}+$/u.test(w) ? w.length >= 3 : /[\p{Lu}\p{N}]/u.test(w));
  return { name, terms: evidenceTerms(w) };
}

/**
 * The question's words that name one of some scope texts (as scopeTextTerms), by scopeTerms' rules without
 * "project". The question is read once: a search asks it of each document it looks at.
 */
export function questionNamer(question: string): (texts: readonly ReadonlySet<string>[]) => Set<string> {
  const kept = withoutExclusions(question);
  const words = tokenize(kept)
    .map(questionWord)
    .filter((w) => w.terms.length > 0);
  // A name's gloss in brackets names it again: "VM0005 (conversion of low-productive to high-productive forest)";
  // brackets with a figure qualify it instead ("version 1.1 of VM0005 (August 2011)").
  const glosses: { head: QuestionWord[]; gloss: string[] }[] = [];
  for (const m of kept.matchAll(/(\S+)\s*\(([^()]+)\)/gu)) {
    const gloss = m[2] ?? '';
    const head = tokenize(m[1] ?? '')
      .map((w) => questionWord(w, 1))
      .filter((w) => w.name);
    if (head.length > 0 && !/\p{N}/u.test(gloss)) glosses.push({ head, gloss: evidenceTerms(gloss) });
  }
  return (texts) => {
    const anywhere = (w: QuestionWord): boolean => texts.some((text) => holds(text, w));
    const out = new Set<string>();
    for (const g of glosses) if (g.head.some(anywhere)) for (const t of g.gloss) out.add(t);
    words.forEach((w, i) => {
      if (w.name && anywhere(w)) for (const t of w.terms) out.add(t);
      for (const text of texts) {
        let end = i;
        while (end < words.length && holds(text, words[end] as QuestionWord)) end++;
        if (end - i >= 2) for (const x of words.slice(i, end)) for (const t of x.terms) out.add(t);
      }
    });
    return out;
  };
}

export interface EvidenceOptions {
  /**
   * Texts that name where the answer is looked for: the projects' names, ids, locations and methodologies, the
   * documents' titles and types. The question words that name them (scopeTerms) say where to look, not what is asked
   * ("What does DNV's validation report of the Eastern Plains project estimate?"): they are left out of the weighing,
   * unless nothing else is left.
   */
  scope?: readonly string[];
  /**
   * The searched documents' own titles (the first lines of their first page: "Infra-red Automatic Refrigerant Leak
   * Detection Efficiency Project Methodology"). The question words they name ("the infra-red refrigerant leak
   * detection methodology") say where to look as the scope's do, for choosing the sentences; `answered` is judged as
   * if they were asked, so that a question about a document's subject that it does not answer stays unanswered.
   */
  titles?: readonly string[];
  /** `answered` threshold on `support`. @default ANSWERED_SUPPORT */
  minSupport?: number;
  /** `answered` threshold on `support` when a focus word of the question is in no passage. @default UNFOCUSED_SUPPORT */
  minFocusSupport?: number;
  /** Shown every candidate sentence as weighed, before the quotes are chosen (evaluation: bench/eval/quotes.ts). */
  onSentences?: (sentences: WeighedSentence[]) => void;
}

/** A candidate sentence of a passage as findEvidence weighed it. */
export interface WeighedSentence {
  passageId: number;
  text: string;
  /** Share of the question's word weight it holds, in [0, 1]. */
  coverage: number;
  /** Its ranking score (coverage, length-normalised, plus a little of the passage's own relevance). */
  score: number;
}

/**
 * What a form's field holds after its instruction (or a section after its numbered heading): the text that follows
 * it, by whole sentences (a bare date or figure included: "01/01/2023."), up to the next heading or instruction,
 * within FIELD_CHARS and at least one sentence, at most `maxSpans` of them. Null when a heading follows at once.
 */
function fieldAfter(text: string, spans: readonly SentenceSpan[], instructionEnd: number, maxSpans = Infinity): Span | null {
  let start = -1;
  let end = -1;
  let taken = 0;
  for (const s of spans) {
    if (s.start < instructionEnd) continue;
    if (taken++ >= maxSpans) break;
    const body = text.slice(s.start, s.end);
    // The next section: a heading, or its number on a line of its own ("1.10." before "Permanence Period"), or the
    // next field's instruction. (A line in title case is the field's too: "Organisation Name Ecometric Ltd".)
    if (s.heading || SECTION_NUMBER.test(body) || INSTRUCTION.test(body)) break;
    if (start >= 0 && s.end - start > FIELD_CHARS) break;
    if (start < 0) start = s.start;
    end = s.end;
  }
  if (start < 0) return null;
  // Lines that run to the end of the passage, the last one unfinished: the window cut it ("... Private Limite").
  const lastBreak = text.lastIndexOf('\n', end - 1);
  if (end === text.length && lastBreak > start && !/[.!?:;)\]]\s*$/u.test(text.slice(start, end))) end = lastBreak;
  return { start, end };
}

/**
 * The title of the field an instruction belongs to: the title line right above it ("1.9." / "Project Crediting
 * Period" / "Indicate the crediting period, ..."), its number left out. Undefined when something else stands there.
 */
function fieldTitle(text: string, spans: readonly SentenceSpan[], instruction: Span): string | undefined {
  const before = spans.filter((s) => s.end <= instruction.start && !SECTION_NUMBER.test(text.slice(s.start, s.end)));
  const title = before[before.length - 1];
  if (!title) return undefined;
  const body = text.slice(title.start, title.end).replace(LINE_MARKER, '').replace(/\s+/g, ' ').trim();
  return (title.heading || isTitleCase(body)) && body.length <= 80 && /\p{L}/u.test(body) ? body : undefined;
}

/**
 * A candidate sentence of a passage as read whatever the question: a quotable span, or a numbered heading standing
 * for its section (`title`). What only some questions need of it is read when first needed, and kept (candidate*
 * below): a search reads no more of a passage than it did before passages were kept.
 */
interface Candidate extends Span {
  /** Its words: the span's text (a heading: its title). */
  words: string;
  /** What the answer types test: its field's answer when it has one, else its words. */
  typed: string;
  /** A form's instruction: its field's answer after it (fieldAfter); a heading: its section's first sentence. */
  field: Span | null;
  /** A numbered heading standing for its section: the heading's title, its number left out. */
  title?: string;
  /** quotable(words) (a heading always is). */
  quotable: boolean;
  caption: boolean;
  // Read when first needed.
  /** quotable(words, true): when the question asks which version, a title with its version may answer it. */
  quotableIfVersionAsked?: boolean;
  /** evidenceTerms of its words with what units stand for (unitTerms), and without PLACE / with it. Never changed. */
  terms?: ReadonlySet<string>;
  placeTerms?: ReadonlySet<string>;
  /** How many words it has (evidenceTerms only): what its length is judged by. */
  size?: number;
  holdsNumber?: boolean;
  holdsDate?: boolean;
  /** evidenceTerms of `typed` when it is a field's answer (for a sentence, its terms). */
  typedTerms?: ReadonlySet<string>;
  placeInText?: boolean;
}

/** A candidate's words (its terms, PLACE among them when asked for and it names a place) and its word count. */
function candidateWords(c: Candidate, place: boolean): { terms: ReadonlySet<string>; size: number } {
  if (c.terms === undefined || c.size === undefined) {
    const own = new Set(evidenceTerms(c.words));
    c.size = own.size;
    for (const u of unitTerms(own)) own.add(u);
    c.terms = own;
  }
  if (!place) return { terms: c.terms, size: c.size };
  c.placeTerms ??= new Set([...c.terms, PLACE]);
  return { terms: c.placeTerms, size: c.size + 1 };
}

/** The words of what a candidate is judged by for the answer type: its field's answer, or its own words. */
function typedTerms(c: Candidate, terms: ReadonlySet<string>): ReadonlySet<string> {
  if (!c.field) return terms;
  c.typedTerms ??= new Set(evidenceTerms(c.typed));
  return c.typedTerms;
}

/** Whether a candidate may be quoted for a question that asks (or does not ask) which version. */
function candidateQuotable(c: Candidate, versionAsked: boolean): boolean {
  if (!versionAsked) return c.quotable;
  c.quotableIfVersionAsked ??= c.title !== undefined || quotable(c.words, true);
  return c.quotableIfVersionAsked;
}

interface PassageReading {
  spans: SentenceSpan[];
  /** In page order (at one offset, a sentence before a heading). */
  candidates: Candidate[];
}

/**
 * A passage's sentences and candidates: what findEvidence reads of a passage whatever the question (with their
 * words, about two thirds of its time: bench/README.md "search"). Kept by passage text and line context (and its
 * document's running lines), so a passage seen again, by a later search or by warmPassage while the query embeds, is
 * not read again.
 */
function passageReading(text: string, running: ReadonlySet<string> = NO_RUNNING_LINES, context: LineContext = WHOLE_LINES): PassageReading {
  const key = context.head === '' && context.tail === '' ? text : `${context.head}\u0000${text}\u0000${context.tail}`;
  const known = READINGS.get(key);
  if (known && known.running === running) return known.reading;
  const spans = sentenceSpans(text, context.head);
  const candidates: Candidate[] = [];
  const candidate = (span: Span, words: string, field: Span | null, quotableNow: boolean, title?: string): Candidate => ({
    start: span.start,
    end: span.end,
    words,
    typed: field ? text.slice(field.start, field.end) : words,
    field,
    ...(title !== undefined ? { title } : {}),
    quotable: quotableNow,
    caption: CAPTION.test(words) || CAPTION_LABEL_BEFORE.test(text.slice(Math.max(0, span.start - 24), span.start)),
  });
  for (const s of quotableSpans(text, spans, running, context)) {
    const words = text.slice(s.start, s.end);
    // An instruction is judged by its field's answer for the answer type: "Indicate the crediting period ..." is
    // answered by "01/01/2023 to 31/12/2032." after it.
    candidates.push(candidate(s, words, INSTRUCTION.test(words) ? fieldAfter(text, spans, s.end) : null, quotable(words)));
  }
  // A numbered heading stands for its section, like an instruction for its field: "1.6 Project Proponent" is
  // answered by "Organization name Hexa Carbon One Private Limited ..." under it, which holds no word of "Who is
  // the project proponent?". Only numbered ones: a line in capitals may be a running header ("ROTATION AGE").
  for (const h of spans) {
    if (!h.heading) continue;
    const body = text.slice(h.start, h.end);
    const number = NUMBERED_HEADING.exec(body);
    if (!number) continue;
    const title = body.slice(number[0].length).replace(/\s+/g, ' ').trim();
    if (!/\p{L}/u.test(title) || isRunningLine(body, running)) continue;
    // Its first sentence (or run of lines): a section runs on to other matters, a field's answer does not.
    let field = fieldAfter(text, spans, h.end, 1);
    let named = title;
    // A line in title case after it is the heading's own, wrapped ("7.2 Activity Method - All Tidal Wetlands
    // Conservation and Restoration" / "Project Activities"), when a sentence follows it; alone, it is the field's
    // value ("B.2.4. Inclusion of monitoring plan" / "N.A").
    const tail = field ? text.slice(field.start, field.end) : '';
    if (field && !tail.includes('\n') && isTitleCase(tail)) {
      const after = fieldAfter(text, spans, field.end, 1);
      if (after) {
        named = `${title} ${tail.trim()}`;
        field = after;
      }
    }
    if (field) candidates.push(candidate(h, named, field, true, named));
  }
  // In page order (the headings were added after the sentences): "the next sentence" of findEvidence is. (A stable
  // sort: at one offset the sentence stays first.)
  candidates.sort((a, b) => a.start - b.start);
  const reading = { spans, candidates };
  // (The same text read with another document's running lines takes that reading's place.)
  if (!known && READINGS.size >= READINGS_MAX) READINGS.delete(READINGS.keys().next().value ?? '');
  READINGS.set(key, { running, reading });
  return reading;
}
/** Passages read (passageReading), oldest first: a search reads eight, and warms up to a dozen while it embeds. */
const READINGS = new Map<string, { running: ReadonlySet<string>; reading: PassageReading }>();
const READINGS_MAX = 512;

/**
 * Reads a passage ahead of a search's answer step (passageReading): a search warms its likely passages while the
 * query embeds, so the answer step after retrieval only weighs them.
 */
export function warmPassage(passage: Pick<EvidencePassage, 'text' | 'running' | 'line'>): void {
  for (const c of passageReading(passage.text, passage.running, passage.line).candidates) if (c.quotable) candidateWords(c, false);
}

/** Forgets every passage read (a benchmark's cold searches: bench/search/answer-step.ts). */
export function forgetPassageReadings(): void {
  READINGS.clear();
}

export function findEvidence(question: string, passages: readonly EvidencePassage[], opts: EvidenceOptions = {}): Evidence {
  const asked = questionTerms(question);
  const scope = scopeTerms(question, opts.scope ?? []);
  // The documents' own titles name where to look as well, for the choice of sentences only (see EvidenceOptions).
  const titled = opts.titles?.length ? new Set([...scope, ...scopeTerms(question, opts.titles)]) : scope;
  const kept = withoutExclusions(question);
  const wantsPlace = ASKS_FOR_PLACE.test(kept);
  // What each passage's project record says the answer holds, when the question asks for a field it states.
  const expectedOf = passages.map((p) => (p.expected ?? []).map(expectedAnswer).filter((e): e is ExpectedAnswer => e !== null));
  const wantsRecord = expectedOf.some((e) => e.length > 0);
  // A question for a place weighs "names a place" as one word (PLACE) instead of its verb: "Where is the project
  // located?" is answered by "Country England, United Kingdom.", which holds no word of it.
  const questionWords = (names: ReadonlySet<string>): string[] => {
    const specific = [
      ...asked.filter((t) => !names.has(t) && !(wantsPlace && PLACE_VERBS.has(t))),
      ...(wantsPlace ? [PLACE] : []),
      ...(wantsRecord ? [RECORD] : []),
    ];
    return specific.length > 0 ? specific : asked;
  };
  const q = questionWords(titled);
  // The words `answered` is judged on: a title's words still count there, so naming a document's subject does not
  // make any sentence about that subject an answer.
  const judged = titled === scope ? q : questionWords(scope);
  const wantsDate = ASKS_FOR_DATE.test(kept);
  const wantsNumber = wantsDate || asksForNumber(question);
  const versionAsked = ASKS_FOR_VERSION.test(question);
  const sentences: Sentence[] = [];
  // Each passage as read whatever the question (passageReading: its sentence spans, and its candidates with their
  // words), then weighed for this one.
  const readings = passages.map((p) => passageReading(p.text, p.running, p.line));
  const spansOf = (i: number): readonly SentenceSpan[] => readings[i]?.spans ?? [];
  readings.forEach((reading, i) => {
    for (const c of reading.candidates) {
      if (!candidateQuotable(c, versionAsked)) continue;
      const words = candidateWords(c, wantsPlace && (c.placeInText ??= PLACE_IN_TEXT.test(c.typed)));
      const expects = expectedOf[i] ?? [];
      const holdsRecord = expects.length > 0 && expects.some((e) => holdsExpected(e, c.typed, typedTerms(c, words.terms)));
      const terms = holdsRecord ? new Set([...words.terms, RECORD]) : words.terms;
      const size = words.size;
      sentences.push({
        field: c.field,
        ...(c.title !== undefined ? { title: c.title } : {}),
        passage: i,
        start: c.start,
        end: c.end,
        terms,
        size,
        caption: c.caption,
        overlap: 0,
        numberless: wantsNumber && !(wantsDate ? (c.holdsDate ??= DATE_IN_TEXT.test(c.typed)) : (c.holdsNumber ??= holdsNumber(c.typed))),
        recordless: expects.length > 0 && !holdsRecord,
        plain: 0,
        judged: 0,
        score: 0,
      });
    }
  });
  const empty = { quotes: [], answered: false, support: 0 };
  if (sentences.length === 0 || q.length === 0) return empty;

  // Rarer question words weigh more: a word found in every sentence tells nothing about which one answers.
  const n = sentences.length;
  const words = judged === q ? q : [...new Set([...q, ...judged])];
  const df = new Map<string, number>();
  for (const s of sentences) for (const t of words) if (s.terms.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = new Map(words.map((t) => [t, Math.log(1 + (n + 1) / ((df.get(t) ?? 0) + 0.5))]));
  const totalOf = (ws: readonly string[]): number => ws.reduce((sum, t) => sum + (idf.get(t) ?? 0), 0);
  const weighOf = (ws: readonly string[], terms: ReadonlySet<string>): number =>
    ws.reduce((sum, t) => sum + (terms.has(t) ? (idf.get(t) ?? 0) : 0), 0);
  const total = totalOf(q);
  const weigh = (terms: ReadonlySet<string>): number => weighOf(q, terms);
  const judgedTotal = totalOf(judged);
  const judge = (terms: ReadonlySet<string>): number => weighOf(judged, terms) / judgedTotal;

  const askedTerms = new Set(asked);
  for (const s of sentences) {
    s.overlap = weigh(s.terms) / total;
    const chars = s.end - s.start;
    // Long sentences hold more words by chance; dampen, do not divide, so an informative sentence still wins.
    const lengthNorm = 1 / Math.sqrt(Math.max(1, s.size / 15)) / (chars > MAX_SENTENCE_CHARS ? 2 : 1);
    const answerType = (s.numberless ? NUMBERLESS_SHARE : 1) * (s.recordless ? RECORDLESS_SHARE : 1);
    const relevance = PASSAGE_WEIGHT * (passages[s.passage]?.score ?? 0);
    // A heading made of the question's words is what is asked about; a sentence holding them in passing is not.
    const named = s.title !== undefined ? [...s.terms].filter((t) => askedTerms.has(t)).length / Math.max(1, s.terms.size) : 0;
    const bonus = named >= HEADING_NAMED_SHARE ? 1 + HEADING_WEIGHT * named : 1;
    s.plain = s.overlap * lengthNorm * bonus + relevance;
    s.score = s.overlap * lengthNorm * answerType * bonus + relevance;
    s.judged = judged === q ? s.plain : judge(s.terms) * lengthNorm * bonus + relevance;
  }
  opts.onSentences?.(
    sentences.map((s) => ({
      passageId: passages[s.passage]?.id ?? 0,
      text: passages[s.passage]?.text.slice(s.start, s.end) ?? '',
      coverage: s.overlap,
      score: s.score,
    })),
  );

  const byPassage = new Map<number, Sentence[]>();
  for (const s of sentences) {
    const own = byPassage.get(s.passage);
    if (own) own.push(s);
    else byPassage.set(s.passage, [s]);
  }
  // A table row is named by any word of the question, a name the scope holds included ("HFC-23" of the project's name
  // heads the row of its GWP).
  const anyAsked = new Set(normalizedTerms(kept).map(ordinal));
  const rowLabelAsked = (label: readonly string[]): boolean => label.some((t) => anyAsked.has(t));
  // The quote of a passage by a sentence score: its best sentence, and the next one too when the fact runs on
  // ("... is expected to achieve 535,052 tCO2e. The annual average is ..."): when that one holds question words of its
  // own and scores nearly as well (a sentence after a strong passage's best one scores by the passage's relevance
  // alone), or gives the number asked for; then on through what it announces with a colon, and the rows of a table
  // below it that the question names. A form's instruction is quoted by its field's answer instead.
  const textOf = (s: Sentence): string => passages[s.passage]?.text.slice(s.start, s.end) ?? '';
  const quoteBy = (
    own: Sentence[],
    key: (s: Sentence) => number,
  ): {
    best: Sentence;
    start: number;
    end: number;
    terms: ReadonlySet<string>;
    coverage: number;
    label?: string | undefined;
    joinedBefore?: boolean;
  } => {
    // A table's or figure's caption names what is shown without stating it: it never leads a quote while its passage
    // has a sentence (it may still be the next sentence a quote takes along), unless rows of figures follow it. Then
    // it leads the quote of its table, whose rows state what it names ("Table C-1 Wood density, BEF and Root-shoot
    // ratio for species used ... Schima superba 0.598 (482, 0.012) 1.79 (120, 0.36) ..."), as far as they fit.
    const top = own.reduce((a, b) => (key(b) > key(a) ? b : a));
    const text = passages[top.passage]?.text ?? '';
    const table =
      top.caption && !top.field && top.overlap > 0 ? tableRowsAfter(text, top.end, top.start + MAX_QUOTE_CHARS, () => true) : null;
    if (table) {
      const terms = new Set([...top.terms, ...table.terms]);
      return { best: top, start: top.start, end: table.end, terms, coverage: weigh(terms) / total };
    }
    const leads = own.filter((s) => !s.caption);
    const best = (leads.length > 0 ? leads : own).reduce((a, b) => (key(b) > key(a) ? b : a));
    // A form's instruction holds the question's words; its field's answer follows it.
    const field = best.field;
    if (field) {
      const answer = evidenceTerms(text.slice(field.start, field.end));
      const terms = new Set([...best.terms, ...answer, ...unitTerms(answer)]);
      return {
        best,
        start: field.start,
        end: field.end,
        terms,
        coverage: weigh(terms) / total,
        label: best.title ?? fieldTitle(text, spansOf(best.passage), best),
      };
    }
    let end = best.end;
    let terms = best.terms;
    const next = own[own.indexOf(best) + 1];
    // A question asking for a number whose best sentence holds none: the next sentence gives it when it has one and
    // goes on from this one ("... carrying capacity (head of cattle per ha). This value oscillates between 0.09 ...").
    const givesNumber = next !== undefined && best.numberless && !next.numberless && CONTINUES.test(textOf(next));
    if (
      next &&
      next.title === undefined &&
      best.overlap > 0 &&
      (givesNumber || (next.overlap > 0 && key(next) >= NEXT_SENTENCE_SHARE * key(best))) &&
      next.end - best.start <= MAX_QUOTE_CHARS &&
      // Not across a heading (the next sentence then opens another section), nor across a table or a figure's text
      // that is not quoted (the quote would carry it along).
      !spansOf(best.passage).some((h) => h.heading && h.start >= best.end && h.start < next.start) &&
      next.start - best.end <= MAX_JOIN_GAP
    ) {
      end = next.end;
      terms = new Set([...terms, ...next.terms]);
    }
    // A quote that ends by announcing what follows ("... located at the following address:") runs on through it.
    if (announces(text.slice(best.start, end))) {
      const announced = linesAfter(text, end);
      if (announced) {
        const listed = evidenceTerms(text.slice(end, announced));
        terms = new Set([...terms, ...listed, ...unitTerms(listed)]);
        end = announced;
      }
    }
    // A parameter's record (its name, unit and description) runs on through its value applied, up to the record's next
    // label: "Value(s) applied) Pino sp 0.46 (<50 t.ha ...) 0.32 (50-150 t.ha ...)" is what a question about it asks.
    if (PARAMETER_RECORD.test(text.slice(best.start, end))) {
      const limit = best.start + MAX_QUOTE_CHARS;
      const rest = text.slice(end, limit);
      const value = /^[ \t]*Values?(?:\(s\))?\)?[ \t]+(?:applied|of monitored parameter)\b/imu.exec(rest);
      // (Not the next record's value: a record without one ends where the next starts.)
      const nextRecord = PARAMETER_RECORD_LINE.exec(rest);
      if (value && (!nextRecord || value.index < nextRecord.index)) {
        let valueEnd = end + value.index + value[0].length;
        for (const { line, end: lineEnd } of linesFrom(text, valueEnd)) {
          if (lineEnd > limit) break;
          if (lineEnd > valueEnd && RECORD_LABEL.test(line)) break;
          valueEnd = lineEnd;
        }
        const added = evidenceTerms(text.slice(end, valueEnd));
        terms = new Set([...terms, ...added]);
        end = valueEnd;
      }
    }
    // A table's rows that the question names by their label, after the quote: their figures are what is asked.
    const rows = tableRowsAfter(text, end, best.start + MAX_QUOTE_CHARS, rowLabelAsked);
    if (rows) {
      end = rows.end;
      terms = new Set([...terms, ...rows.terms]);
    }
    // The sentence before the best one starts the quote when the best cannot be read without it (its words are not
    // counted: they only make the quote readable), as far as both fit:
    // - a best sentence that refers back ("In other words, HFC 23 ... till the year 2040.", "These changes align with
    //   ...") takes the short sentence before it, which says what it refers to ("This implies that HCFC 22 can be
    //   produced in India till the year 2040.");
    // - a group of a long span's lines that starts in the middle of its sentence ("those based on UNFCCC host-country
    //   thresholds ..."), the group before it ending without a sentence's end, takes that group ("Land in the project
    //   area consists of ...").
    // And it starts the quote when the fact starts there: a short best sentence takes the sentence before it when that
    // one holds question words of its own and scores nearly as well ("The Clarification Requests are stated ... in
    // Appendix A. The validation of the Project resulted in ten Clarification Requests.", "The system uses special
    // materials like high Cr-Mo steel ... Wherever ambient temperatures exist, use of plastics like FRP or PP is
    // made."), unless the best sentence opens an item of its own ("Step 3: ...", "b) ..."), whose sentence before is
    // another item's. The quote's core (composeAnswer) is then the best sentence alone.
    let start = best.start;
    let joinedBefore = false;
    const prev = own[own.indexOf(best) - 1];
    if (prev && prev.title === undefined && !prev.caption && !prev.field && end - prev.start <= MAX_QUOTE_CHARS) {
      const said = textOf(best);
      // (Read only when the rest holds: the spans are walked for a heading between.)
      const adjoins = (): boolean =>
        best.start - prev.end <= MAX_JOIN_GAP &&
        !spansOf(best.passage).some((h) => h.heading && h.start >= prev.end && h.start < best.start);
      const refersBack = REFERS_BACK.test(said) && !REFERS_ELSEWHERE.test(said) && prev.end - prev.start <= ANTECEDENT_CHARS && adjoins();
      const groupCut = /^\p{Ll}/u.test(said) && !ENDS_SENTENCE.test(textOf(prev)) && best.start - prev.end <= 2;
      if (refersBack || groupCut) start = prev.start;
      else if (
        prev.overlap > 0 &&
        key(prev) >= PREV_SENTENCE_SHARE * key(best) &&
        best.end - best.start <= SHORT_BEST_CHARS &&
        !ITEM_START.test(said) &&
        adjoins()
      ) {
        start = prev.start;
        joinedBefore = true;
      }
    }
    return { best, start, end, terms, coverage: weigh(terms) / total, joinedBefore };
  };
  const quotes: Quote[] = [];
  let support = 0;
  passages.forEach((p, i) => {
    const own = byPassage.get(i);
    if (!own) return;
    // A passage none of whose sentences holds a word the titles leave is quoted by the words they name.
    const byScore = quoteBy(own, (s) => s.score);
    const byTitleWords = byScore.best.overlap === 0 && judged !== q;
    const pick = byTitleWords ? quoteBy(own, (s) => s.judged) : byScore;
    const { best, start, label } = pick;
    // A formula garbled by extraction is left out: the quote stops where it starts ("... is estimated as:"); so is a
    // list's first marker that the passage ends on, without its item ("... taking into account:\na.").
    const beforeFormula = garbledFrom(p.text, start, pick.end) ?? pick.end;
    const dangling = DANGLING_MARKER.exec(p.text.slice(start, beforeFormula));
    const end = trimSpan(p.text, { start, end: dangling ? start + dangling.index + 1 : beforeFormula })?.end ?? pick.end;
    const coverage = byTitleWords ? judge(pick.terms) : pick.coverage;
    // Its core, stated when the whole does not fit (composeAnswer): its best sentence, or a list's lead-in with its
    // first line ("The baseline period will be either: a) a period of three years prior to the installation ...").
    // A caption states nothing alone: a table's quote has none.
    const coreStart = pick.joinedBefore ? best.start : start;
    let coreEnd =
      label === undefined && !best.caption && (best.end < end || coreStart > start)
        ? trimSpan(p.text, { start: coreStart, end: best.end })?.end
        : undefined;
    const listed = label === undefined && !best.caption ? listCoreEnd(p.text.slice(coreStart, end)) : null;
    if (listed !== null && coreStart + listed < (coreEnd ?? end)) coreEnd = coreStart + listed;
    quotes.push({
      passageId: p.id,
      start,
      end,
      text: p.text.slice(start, end),
      coverage,
      score: best.score,
      ...(label ? { label } : {}),
      ...(coreEnd !== undefined && coreEnd > coreStart ? { core: p.text.slice(coreStart, coreEnd) } : {}),
    });
    // Support: the words of the quote that the question's words alone choose (the answer type only orders the
    // sentences: a figure is not evidence that the question is answered; nor do the titles' words, which only say
    // where to look), plus half the credit for question words found only elsewhere in its passage (a project's name
    // in the heading above the sentence that answers).
    // (The quote shown, when the judged words lead to the same sentence: its quote is chosen again only otherwise.)
    const judgedBest = own.reduce((a, b) => (b.judged > a.judged ? b : a));
    const held = judge((judgedBest === pick.best ? pick : quoteBy(own, (s) => s.judged)).terms);
    const passageTerms = new Set(own.flatMap((s) => [...s.terms]));
    const elsewhere = judge(passageTerms) - held;
    support = Math.max(support, held + 0.5 * Math.max(0, elsewhere));
  });
  // What the question's focus names ("which company") is what its record states, when a sentence holds that.
  const recordHeld = wantsRecord && sentences.some((s) => s.terms.has(RECORD));
  const focusMissing = !recordHeld && questionFocus(question).some((t) => !scope.has(t) && !sentences.some((s) => s.terms.has(t)));
  const required = Math.max(opts.minSupport ?? ANSWERED_SUPPORT, focusMissing ? (opts.minFocusSupport ?? UNFOCUSED_SUPPORT) : 0);
  // A question that names the unit of its answer is not answered by pages that give no figure in it, however many of
  // its words they hold ("How tall is the stack, in metres?" / "discharged to atmosphere via an exhaust stack").
  // (Each page once: several citations often share one.)
  const unit = askedUnit(kept);
  if (unit && ![...new Set(passages.map((p) => p.page ?? p.text))].some((page) => holdsFigureIn(unit, page))) {
    return { quotes, answered: false, support, unitMissing: unit.name };
  }
  return { quotes, answered: support >= required, support };
}

/**
 * `Text ends here.` -> `Text ends here [3].`: the marker sits inside the sentence it supports; several passages that
 * state it are cited in a run, in order (`[2][5]`).
 */
export function withMarker(sentence: string, id: number | readonly number[]): string {
  const m = /^(.*?)([.!?;:\u2026]*)$/su.exec(sentence.trimEnd());
  const body = (m?.[1] ?? sentence).replace(/[\s,]+$/u, '');
  const end = m?.[2] ?? '';
  const markers = (typeof id === 'number' ? [id] : [...new Set(id)].sort((a, b) => a - b)).map((n) => `[${n}]`).join('');
  // A sentence cut short keeps its ellipsis before the marker: "... deed of… [3]."; one that stops at its colon stops
  // before what it announces (a form field's value, a list, a formula left out): "... is estimated as… [2]."
  if (end.includes('\u2026') || end.endsWith(':')) return `${body}\u2026 ${markers}.`;
  return `${body} ${markers}${end === '' || end === ';' ? '.' : end}`;
}

/** The figures a text gives (digits, thousands separators dropped: "2,000" = "2000"), each once, as one sorted string. */
function figuresOf(text: string): string {
  const figures = (text.match(/\d[\d,.]*/g) ?? []).map((d) => d.replace(/[,.]+$/u, '').replace(/,/g, ''));
  return [...new Set(figures)].sort().join(' ');
}

/**
 * Text that closes a bracket it never opened ("Reforestation and Revegetation) and has ..."): the word before the
 * first ")" that comes before any "(", unless it is a list item's number or letter ("1)", "c)", "iv)").
 */
function closesUnopened(prose: string): boolean {
  const m = /^[^()]*?([\p{L}\p{N}]*)\)/u.exec(prose);
  const word = m?.[1] ?? '';
  return m !== null && word.length >= 2 && !/^\d+$/.test(word) && !/^[ivxlc]+$/i.test(word);
}

/**
 * Text that opens a bracket it never closes, after its last sentence's end ("... vent of Column No. C-209 (within the
 * HFC"): it stops in the middle of the bracket.
 */
function opensUnclosed(prose: string): boolean {
  const tail = prose.slice(prose.search(/[.!?]\s[^.!?]*$/u) + 1);
  return /\([^()]*$/u.test(tail);
}

/** A line break before a bullet glyph (a symbol font's too) that starts a list's next item, and the text before it. */
const BULLET_ITEM_BREAK = new RegExp(String.raw`(\S)[ \t]*\n[ \t]*[${BULLET_GLYPHS}\uE000-\uF8FF](?=\s)`, 'gu');
const BULLET = new RegExp(`[${BULLET_GLYPHS}]`, 'gu');

/**
 * A quote as answer prose: one line, without bullet glyphs or reference markers of its own ("[12]", "/12/"). A quote
 * that starts in the middle of a sentence (its page or window begins there) is shown to start so: "…uplift the ...",
 * "…Reforestation and Revegetation) and has ..."; and one that stops in the middle of a sentence (a form's or list's
 * lines taken in groups, cut where the sentence runs on) to stop so: "... recorded against the deed of…".
 */
function asProse(text: string): string {
  const prose = checkedOptions(text)
    // A list's items, one per line after a bullet, read as a list: "... 1,200 0C; Gas residence time ..." (an item
    // that ends its own sentence or clause keeps its punctuation).
    .replace(BULLET_ITEM_BREAK, (_all: string, before: string) => (/[.,;:!?]$/u.test(before) ? `${before} ` : `${before}; `))
    .replace(PRIVATE_USE, ' ')
    .replace(BULLET, ' ')
    .replace(/\[\s*\d+(?:\s*[,\u2013-]\s*\d+)*\s*\]/g, '')
    // A validation report's references by number between slashes ("... department of Vichada /1/", "/58/"), with
    // the means of verification a validation protocol's row gives after one ("/1/ DR", "/2/ DR, I": document review,
    // interview, cross-check), unless the sentence names its source by one ("... is further corroborated by /37/.").
    .replace(
      /(^|\s)(\/\d{1,3}(?:,\s*\d{1,3})*\/)(?:\s+(?:DR|I|CV)(?:\s*,\s*(?:DR|I|CV))*(?=\s))?(?=$|[\s.,;:])/gu,
      (all: string, before: string, _ref: string, at: number, whole: string) =>
        /\b(?:by|in|see|from|of|to|and|with|per)\s*$/iu.test(whole.slice(Math.max(0, at - 12), at)) ? all : before,
    )
    // A section number that extraction glued to its heading's first word: "B.7.18Are the ..." -> "B.7.18 Are the ...".
    .replace(/(\b(?:[A-Z]\.)?\d+(?:\.\d+)+)(?=\p{Lu}\p{Ll})/gu, '$1 ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s\-\u2013\u2014*>]+/u, '')
    .trim();
  // A list item's letter ("a) Clarification whether ...", "(iv) the area ...") starts the item, not a cut.
  const cut = (/^\p{Ll}/u.test(prose) && !LIST_LETTER.test(prose)) || closesUnopened(prose);
  const open = RUNS_ON.test(prose) || opensUnclosed(prose);
  return `${cut ? '\u2026' : ''}${open ? prose.replace(/[\s,]+$/u, '') : prose}${open ? '\u2026' : ''}`;
}
const LIST_LETTER = /^\(?(?:[a-z]|[ivx]{1,4})\)\s/u;
const UNCHECKED = '\u2610';
const CHECKBOX = /[\u2610\u2611\u2612]/gu;
/**
 * A form's checkboxes read as the options ticked: "Crediting period ☐ Seven years, twice renewable\n☐ Ten years,
 * fixed\n☒ Other (state ...)" -> "Crediting period: Other (state ...)", "... a separate document? ☒ Yes ☐ No\nFor
 * ARR ..." -> "... a separate document? Yes. For ARR ...". An option runs from its box to the next box or the end of
 * its line; options that follow one another (only spaces between) are one field. A field with no box ticked is left
 * as it is (the form was not filled in, and saying so is the proponent's to do).
 */
function checkedOptions(text: string): string {
  const boxes = [...text.matchAll(CHECKBOX)].map((m) => m.index ?? 0);
  if (boxes.length === 0) return text;
  const options = boxes.map((at, i) => {
    const next = boxes[i + 1] ?? text.length;
    const line = text.indexOf('\n', at);
    const end = Math.min(next, line < 0 ? text.length : line);
    return { at, end, ticked: text[at] !== UNCHECKED, label: text.slice(at + 1, end).trim() };
  });
  let out = '';
  let from = 0;
  for (let i = 0; i < options.length;) {
    let j = i + 1;
    while (j < options.length && /^\s*$/u.test(text.slice(options[j - 1]?.end ?? 0, options[j]?.at ?? 0))) j++;
    const field = options.slice(i, j);
    const first = field[0];
    const last = field[field.length - 1];
    if (first && last && field.some((o) => o.ticked)) {
      const before = text.slice(from, first.at).replace(/\s+$/u, '');
      const ticked = field.filter((o) => o.ticked && o.label !== '').map((o) => o.label);
      // A field on lines of its own ends there: "... document? Yes. For ARR and IFM projects ...".
      const lastLabel = ticked.at(-1) ?? '';
      const whole =
        !/[.:;?!]$/u.test(lastLabel) &&
        !RUNS_ON.test(lastLabel) &&
        (lastLabel.match(/\(/gu) ?? []).length === (lastLabel.match(/\)/gu) ?? []).length;
      const ends = whole && text[last.end] === '\n' && /^\s*\p{Lu}/u.test(text.slice(last.end));
      out += `${before}${/[\p{L}\p{N})]$/u.test(before) ? ':' : ''} ${ticked.join(', ')}${ends ? '.' : ''}`;
      from = last.end;
    }
    i = j;
  }
  return out + text.slice(from);
}

/**
 * Text that stops where its sentence runs on: after a comma, or after a word that never ends an English sentence (an
 * article, a preposition, a conjunction, a relative pronoun, a copula), in lower case: "Appendix A" ends one.
 */
const RUNS_ON =
  /(?:,|\s(?:a|an|the|of|to|in|for|with|by|on|at|from|into|under|between|than|as|and|or|nor|but|that|which|whose|where|is|are|was|were|be|been|its|their|this|these))$/u;

export interface ComposeOptions {
  /** Soft budget in characters: the best piece is always kept, further ones only while they fit. @default 600 */
  maxChars?: number;
  /**
   * Each project's best quote before any project's second, whatever their scores (a question that asks every project
   * for the same fact: "Who is the project proponent?" over a batch). @default false
   */
  eachProject?: boolean;
}

/**
 * The extractive answer: the quotes that bear on the question, best first, one per distinct fact, each followed by
 * its marker; in an answer over several projects each piece is introduced by its project. Empty when there is no
 * quote. A quote that repeats most of a kept one's words is left out, unless the two give different figures (a
 * project plan's "5-10 tCO2e per ha" beside its "7-10"): then both are facts (one that a kept piece holds whole is
 * left out all the same). When it states the same (the same sentence on another page or in another document of the
 * project), its passage is cited beside the kept piece, so that a reader sees every place the statement is made.
 * A quote too long for the room left is stated by its best sentence alone (Quote.core) when that fits once the whole
 * quotes that do are in.
 */
export function composeAnswer(evidence: Evidence, passages: readonly EvidencePassage[], opts: ComposeOptions = {}): string {
  const maxChars = opts.maxChars ?? 600;
  const byScore = [...evidence.quotes].sort((a, b) => b.score - a.score || a.passageId - b.passageId);
  const best = byScore[0];
  if (!best) return '';
  const projects = new Set(passages.map((p) => p.project ?? ''));
  const byId = new Map(passages.map((p) => [p.id, p]));
  // Asked of each project: each one's best quote that holds a question word leads, in score order, then the rest.
  const leads = new Set<Quote>();
  if (opts.eachProject && projects.size > 1) {
    const seen = new Set<string>();
    for (const q of byScore) {
      const project = byId.get(q.passageId)?.project ?? '';
      if (q.coverage > 0 && !seen.has(project)) {
        seen.add(project);
        leads.add(q);
      }
    }
  }
  const ranked = leads.size > 0 ? [...leads, ...byScore.filter((q) => !leads.has(q))] : byScore;
  const chosen: { terms: Set<string>; prose: string; text: string; figures: string; ids: number[]; project: string | undefined }[] = [];
  const shared = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
    let n = 0;
    for (const t of a) if (b.has(t)) n++;
    return n;
  };
  // The kept piece a quote repeats, if any. (Asked of each project, the same words from two projects are two facts:
  // "Ecometric Ltd" is both farms' proponent.)
  const repeatOf = (prose: string, terms: ReadonlySet<string>, figures: string, project: string | undefined) =>
    chosen.find(
      (c) =>
        !(leads.size > 0 && c.project !== project) &&
        (c.prose.includes(prose) ||
          prose.includes(c.prose) ||
          // Two figures for the same thing are two facts, whichever the reader should trust; so is a quote that gives
          // figures or a code where the kept piece gives none ("... with Sentinel-2 multispectral pixel values used as
          // the predictor data" beside "The predictors were the pixel values from multispectral satellite imagery").
          (shared(terms, c.terms) / Math.max(1, Math.min(terms.size, c.terms.size)) >= REPEAT_SHARE &&
            !(figures !== '' && c.figures !== figures))),
    );
  let used = 0;
  // Quotes too long for the room left, with the place their best sentence alone would take among the pieces.
  const cut: { quote: Quote; core: string; project: string | undefined; at: number }[] = [];
  for (const quote of ranked) {
    if (chosen.length > 0 && !leads.has(quote) && (quote.coverage === 0 || quote.score < PIECE_SHARE * best.score)) break;
    const prose = asProse(quote.text);
    if (prose === '') continue;
    const terms = new Set(normalizedTerms(prose));
    const figures = figuresOf(prose);
    const project = projects.size > 1 ? byId.get(quote.passageId)?.project : undefined;
    const repeated = repeatOf(prose, terms, figures, project);
    if (repeated) {
      const sameStatement =
        repeated.project === project &&
        repeated.figures === figures &&
        shared(terms, repeated.terms) / Math.max(1, terms.size, repeated.terms.size) >= SAME_STATEMENT_SHARE;
      if (sameStatement && !repeated.ids.includes(quote.passageId)) {
        repeated.ids.push(quote.passageId);
        used += `[${quote.passageId}]`.length;
      }
      continue;
    }
    const labelled = quote.label ? `${quote.label}: ${prose}` : prose;
    const text = project ? `${project}: ${labelled}` : labelled;
    const piece = withMarker(text, quote.passageId);
    if (chosen.length > 0 && used + piece.length + 1 > maxChars) {
      // (A core that stops without a sentence's end, a list's first line, shows that the quote runs on.)
      const stated = quote.core === undefined ? '' : asProse(quote.core);
      const core = stated === '' || /[.!?\u2026]["'\u201D\u2019)\]]*$/u.test(stated) ? stated : `${stated}\u2026`;
      if (core !== '') cut.push({ quote, core, project, at: chosen.length });
      continue;
    }
    chosen.push({ terms, prose, text, figures, ids: [quote.passageId], project });
    used += piece.length + 1;
  }
  // The room the whole quotes leave goes to the best sentences of those that did not fit, in score order, each in its
  // quote's place: "If historical leak rate information ... is not available, a more conservative alternative
  // historical baseline can be created ... [3]." rather than nothing of a 629-character quote. No kept piece moves.
  let inserted = 0;
  for (const { quote, core, project, at } of cut) {
    const text = project ? `${project}: ${core}` : core;
    const piece = withMarker(text, quote.passageId);
    if (used + piece.length + 1 > maxChars) continue;
    const terms = new Set(normalizedTerms(core));
    const figures = figuresOf(core);
    if (repeatOf(core, terms, figures, project)) continue;
    chosen.splice(at + inserted, 0, { terms, prose: core, text, figures, ids: [quote.passageId], project });
    inserted++;
    used += piece.length + 1;
  }
  return chosen.map((c) => withMarker(c.text, c.ids)).join(' ');
}

/**
 * An overview of passages that are already about the subject (a project description's summary section): their
 * leading quotable sentences in order, within the budget, each passage's run followed by its marker. The lead of
 * such a text is its best summary; matching words of a generic "summarise" instruction would pick at random.
 */
export function leadSummary(passages: readonly EvidencePassage[], maxChars = 1200): string {
  const parts: string[] = [];
  let used = 0;
  for (const p of passages) {
    const run: string[] = [];
    for (const s of sentenceSpans(p.text, p.line?.head)) {
      const text = p.text.slice(s.start, s.end);
      if (s.heading || !quotable(text)) continue;
      const prose = asProse(text);
      if (used + prose.length + 6 > maxChars && (parts.length > 0 || run.length > 0)) break;
      run.push(prose);
      used += prose.length + 1;
    }
    if (run.length > 0) {
      const last = run.pop() ?? '';
      parts.push([...run, withMarker(last, p.id)].join(' '));
    }
    if (used >= maxChars * 0.9) break;
  }
  return parts.join(' ');
}
