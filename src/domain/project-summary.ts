import { isContentsText, stripPageFurniture } from './page-furniture.js';
import { splitSentences } from './sentences.js';
import { countLetters, oneLine } from './text.js';

/**
 * Text heuristics of a project's summary (services/enrich-project.ts): which documents describe the project, which
 * of their passages are its summary, and how a summary reads without markers.
 */

/** Document types that describe the project itself, best first: a type (lower case) is one of `is` or contains one of `has`. */
const DESCRIPTION_TYPES: ReadonlyArray<{ is?: readonly string[]; has?: readonly string[]; rank: number }> = [
  { is: ['project description', 'project design document'], rank: 0 },
  { is: ['draft project description'], has: ['project plan'], rank: 1 },
  { has: ['project description', 'design document'], rank: 2 },
];
/** Other document types that name the project's documents, each containing one phrase (lower case), best first. */
const OTHER_TYPES = ['validation report', 'monitoring report', 'verification report', 'registration review'];
/** Titles that give a project description away when its type is generic ("Other"). */
const DESCRIPTION_TITLE = /proj(?:ect)?[_ -]?desc|project[_ -]?design|\bPDD\b|project[_ -]?plan/i;

/** Where a document comes among a project's documents when looking for its description: lower is better. */
export function documentRank(d: { documentType: string; title: string }): number {
  // "PDD" as a word, in any case, names a project design document.
  if (/\bPDD\b/i.test(d.documentType)) return 0;
  const type = d.documentType.toLowerCase();
  for (const { is = [], has = [], rank } of DESCRIPTION_TYPES) {
    if (is.includes(type) || has.some((phrase) => type.includes(phrase))) return rank;
  }
  if (DESCRIPTION_TITLE.test(d.title)) return 3;
  const other = OTHER_TYPES.findIndex((phrase) => type.includes(phrase));
  return other >= 0 ? 10 + other : 20;
}

export function isDescriptionDocument(d: { documentType: string; title: string }): boolean {
  return documentRank(d) <= 3;
}

const MAX_PASSAGES = 6;
const PASSAGE_CHARS = 900;
const FALLBACK_CHARS = 800;

const HEADING =
  /^(?:section\s+)?(?:[A-Z]?\d*(?:\.\d+)*\.?\s+)?(?:summary description of the project|(?:general )?description of the (?:proposed )?(?:a\/r )?(?:cdm )?project(?: activity)?|executive summary|project (?:overview|summary)|summary of the project)\b/i;

function isHeadingLine(line: string): boolean {
  const l = oneLine(line);
  if (l.length > 140 || /\.{4,}|…{2,}/.test(l) || /\s\d+(\s*-\s*\d+)?$/.test(l)) return false;
  return HEADING.test(l);
}

/** Running prose: enough letters, no table-of-contents leaders, not a grid of numbers. */
function isProse(text: string): boolean {
  if (text.length < 160 || /\.{5,}|…{2,}/.test(text)) return false;
  const digits = text.match(/\d/g)?.length ?? 0;
  return countLetters(text) / text.length > 0.6 && digits / text.length < 0.12;
}

/** Sentence-aligned pieces of at most `max` characters (a longer sentence is its own piece). */
function pieces(text: string, max = PASSAGE_CHARS): string[] {
  const out: string[] = [];
  for (const s of splitSentences(text)) {
    const last = out.at(-1);
    if (last !== undefined && last.length + 1 + s.length <= max) out[out.length - 1] = `${last} ${s}`;
    else out.push(s);
  }
  return out;
}

/** A document's extracted pages, with its title (`state.title`: the document state the service read them for). */
export interface DocText<S extends { title: string } = { title: string }> {
  state: S;
  pages: string[];
}

/** A passage for the summariser (structurally the summariser port's CitedPassage). */
export interface SummaryPassage {
  id: number;
  text: string;
  documentTitle: string;
  page: number;
}

/**
 * Passages for the summary (docs/derived-fields.md, "summary"): from the first document, the text under its summary
 * heading and the page after, else its first pages of prose; then the next documents' (two each once some are taken).
 */
export function summaryPassages<S extends { title: string }>(docs: readonly DocText<S>[], max = MAX_PASSAGES): SummaryPassage[] {
  const out: SummaryPassage[] = [];
  for (const doc of docs) {
    if (out.length >= max) break;
    // Pages indexed before the ingest removed page furniture still carry it; removing it again changes nothing.
    const pages = stripPageFurniture(doc.pages);
    const numbered = pages.map((text, i) => ({ page: i + 1, text }));
    const start = pages.findIndex((p) => !isContentsText(p) && p.split('\n').some(isHeadingLine));
    const lines = (pages[start] ?? '').split('\n');
    const underHeading = lines.slice(lines.findIndex(isHeadingLine) + 1).join('\n');
    const candidates = [
      ...(start >= 0 ? [{ page: start + 1, text: underHeading }, ...numbered.slice(start + 1, start + 2)] : []),
      ...numbered.slice(0, 10).filter((c) => !isContentsText(c.text)),
    ];
    const first = out.length;
    const perDoc = docs.length > 1 && first > 0 ? 2 : max;
    for (const c of candidates) {
      for (const text of pieces(c.text)) {
        if (out.length >= max || out.length - first >= perDoc) break;
        // A piece is taken once per document (the page under the heading is also among the first pages).
        if (!isProse(text) || out.slice(first).some((p) => p.text === text)) continue;
        out.push({ id: out.length + 1, text, documentTitle: doc.state.title, page: c.page });
      }
    }
  }
  return out;
}

/** Summaries are stored without [n] markers: the cleaned record has no citations to point them at. */
export function stripMarkers(text: string): string {
  return text
    .replace(/\s*\[\s*\d+(?:\s*[,\u2013-]\s*\d+)*\s*\]/g, '')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ +([.,;:!?])/g, '$1')
    .trim();
}

/** The text's first sentences within `maxChars` (cut at a word, with an ellipsis, when no sentence ends early enough). */
export function firstSentences(text: string, maxChars = FALLBACK_CHARS): string {
  const flat = oneLine(text);
  if (flat.length <= maxChars) return flat;
  const cut = flat.slice(0, maxChars);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('.'));
  return end > maxChars / 3 ? cut.slice(0, end + 1) : `${cut.replace(/\s+\S*$/, '')}…`;
}
