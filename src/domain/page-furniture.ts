import { countLetters, hasDigit, oneLine } from './text.js';
/**
 * Page furniture: what sits on a page of a PDF without being part of what the page says. Running headers and
 * footers, page numbers, table-of-contents lines with dot leaders. It is recognised from the extracted text itself
 * (repetition across pages, position, shape), never from a list of phrases, so it works on documents nobody has
 * seen. The index keeps pages as extracted (running headers name the document a question names: bench/README.md,
 * "answers"); answers, contents demotion and project summaries strip it.
 */

/** A line as compared across pages: case and spacing folded, every digit the same, so "Page 3 of 40" = "Page 4 of 40". */
export function lineShape(line: string): string {
  return oneLine(line).toLowerCase().replace(/\d/g, '#');
}

/** How many lines at the top and at the bottom of a page can be a running header or footer. */
const ZONE_LINES = 8;
/** At most this many pages, spread through the document, decide which lines run across it. */
const SAMPLE_PAGES = 24;
/** A running line is longer than nothing and shorter than a paragraph line would be on its own. */
const MAX_RUNNING_LINE = 200;
/** The characters at each end of a page that the zone's lines are looked for in. */
const ZONE_CHARS = ZONE_LINES * (MAX_RUNNING_LINE + 1);

/**
 * A page number on a line of its own: `12`, `- 12 -`, `Page 3`, `Page 3 of 40`, `3 | Page`, `Page | 3`, `p. 3`,
 * `iv`. Letters other than page/of/p are not allowed, so a heading like "3 Results" is not one.
 */
const PAGE_NUMBER_LINE =
  /^(?:[-\u2013\u2014|\s]*)(?:(?:page|p\.?|pg\.?)\s*\|?\s*)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:of|\/)\s*\d{1,4})?(?:\s*\|?\s*page)?(?:[-\u2013\u2014|\s]*)$/i;

export function isPageNumberLine(line: string): boolean {
  const l = line.trim();
  return l !== '' && l.length <= 24 && PAGE_NUMBER_LINE.test(l);
}

/**
 * Dot leaders (a contents or list-of-figures line: "3.4 Baseline Scenario ........ 43"): five or more dots, spaced
 * or not, or two or more ellipsis characters. A line of only rules (underscores, dashes) counts too.
 */
const LEADERS = /(?:\.\s?){5,}|\u2026{2,}|(?:\u2026\s?\.?){3,}/;
const RULE_LINE = /^[\s_\-\u2013\u2014=.\u2026*~]{5,}$/;

export function isLeaderLine(line: string): boolean {
  return LEADERS.test(line) || RULE_LINE.test(line);
}

/**
 * The runs of contents lines on a page ([start, end) offsets): two or more dot-leader lines (rules alone are not
 * contents), with at most CONTENTS_GAP_LINES other lines between two of them ("List of Figures" between a list of
 * tables and a list of figures). Chunking keeps such a run apart from the page's other text, so that a chunk is either
 * navigation, demoted at search, or content whose rank no contents line's words inflate.
 */
export function contentsRuns(page: string): { start: number; end: number }[] {
  const runs: { start: number; end: number; leaders: number }[] = [];
  // The lines since the last contents line: a new run starts with those of them that head it ("Table of Contents").
  let since: { start: number; text: string }[] = [];
  let end = -1;
  for (const line of page.split('\n')) {
    const start = end + 1;
    end = start + line.length;
    const text = line.trim();
    if (!LEADERS.test(line)) {
      if (text !== '') since.push({ start, text });
      continue;
    }
    const last = runs.at(-1);
    // (An outline entry without leaders between two entries with them is the contents' too.)
    if (last && since.filter((l) => !isOutlineLine(l.text)).length <= CONTENTS_GAP_LINES) {
      last.end = end;
      last.leaders++;
    } else {
      const head = since.slice(-CONTENTS_HEAD_LINES);
      const from = head.findLastIndex((l) => !isListHeading(l.text) && !isOutlineLine(l.text)) + 1;
      runs.push({ start: head[from]?.start ?? start, end, leaders: 1 });
    }
    since = [];
  }
  return runs.filter((r) => r.leaders >= 2).map(({ start, end }) => ({ start, end }));
}

/** Lines that may head a contents run ("Table of Contents", a running header and page number above it). */
const CONTENTS_HEAD_LINES = 3;
/** Other lines that may stand between two contents lines of one run. */
const CONTENTS_GAP_LINES = 2;

/**
 * Shapes of lines that run across the document's pages: among the first and last lines of each page, those whose
 * shape is found on at least 30% of the pages (and at least 4 of them, so a short document's shared table heading is
 * not taken for one).
 */
export function runningLineShapes(pages: readonly string[]): Set<string> {
  const counts = new Map<string, number>();
  // Pages spread evenly through a long document: a running line is on most of them, and answers read this per document.
  const step = Math.max(1, pages.length / SAMPLE_PAGES);
  const sample = pages.length <= SAMPLE_PAGES ? pages : Array.from({ length: SAMPLE_PAGES }, (_, i) => pages[Math.floor(i * step)] ?? '');
  for (const page of sample) {
    // Only the ends of a page can hold its running lines: the middle of a long page is not split at all.
    const head = nonEmptyLines(page.slice(0, ZONE_CHARS)).slice(0, ZONE_LINES);
    const tail = nonEmptyLines(page.length > ZONE_CHARS ? page.slice(-ZONE_CHARS) : page).slice(-ZONE_LINES);
    const zone = new Set([...head, ...tail].filter((l) => l.length <= MAX_RUNNING_LINE).map(lineShape));
    for (const s of zone) counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  const threshold = Math.max(4, Math.ceil(sample.length * 0.3));
  return new Set([...counts].flatMap(([shape, n]) => (n >= threshold && /[\p{L}\p{N}]/u.test(shape) ? [shape] : [])));
}

/** A text's lines, trimmed, blank ones left out. */
export function nonEmptyLines(page: string): string[] {
  return page
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/** A page number on its own line, or one of the document's running lines (shapes from runningLineShapes). */
export function isRunningLine(line: string, running: ReadonlySet<string>): boolean {
  const t = line.trim();
  return isPageNumberLine(t) || (running.size > 0 && t.length <= MAX_RUNNING_LINE && running.has(lineShape(t)));
}

/**
 * The page without its furniture: running headers and footers and page numbers are peeled from its top and bottom
 * (only there: the same words inside the page are content), dot-leader and rule lines are removed anywhere. Other
 * lines are kept exactly, blank lines included, so the page reads as before.
 */
export function withoutFurniture(page: string, running: ReadonlySet<string>): string {
  const lines = page.split('\n');
  const isRunning = (l: string): boolean => l.trim() === '' || isRunningLine(l, running);
  let start = 0;
  let end = lines.length;
  // Peel within the zone only: a page whose every line repeats elsewhere is not all header.
  for (let peeled = 0; start < end && peeled < ZONE_LINES && isRunning(lines[start] ?? ''); start++) {
    if ((lines[start] ?? '').trim() !== '') peeled++;
  }
  for (let peeled = 0; end > start && peeled < ZONE_LINES && isRunning(lines[end - 1] ?? ''); end--) {
    if ((lines[end - 1] ?? '').trim() !== '') peeled++;
  }
  return lines
    .slice(start, end)
    .filter((l) => !isLeaderLine(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Every page of a document without its furniture (see withoutFurniture); page count and order are unchanged. */
export function stripPageFurniture(pages: readonly string[]): string[] {
  const running = runningLineShapes(pages);
  return pages.map((p) => withoutFurniture(p, running));
}

/** A section marker, a title of words without final punctuation, perhaps a page number: "3.4 Baseline Scenario 43". */
const OUTLINE_LINE = /^(?:(?:section|annex|appendix)\s+)?(?:[A-Z]|\d+)(?:\.\d+)*[.:]?\s+(\S.*?)(?:\s+(?:[A-Z]-)?\d{1,3})?$/i;

function isOutlineLine(line: string): boolean {
  if (line.length >= 110 || /[.;,:]$/.test(line)) return false;
  const title = OUTLINE_LINE.exec(line)?.[1];
  if (!title || hasDigit(title)) return false;
  const visible = title.replace(/\s+/g, '');
  return countLetters(visible) >= 0.8 * visible.length;
}

/**
 * A table of contents (or list of figures), or a chunk's piece of one: at least three dot-leader lines; two making
 * half its lines; leader lines and outline entries only; or at least five outline lines making 40% of its lines. It
 * repeats every heading word of the document, so it matches most questions about it, but never holds an answer. A
 * numbered list of requirements ends its items with punctuation and a table's numbered rows carry figures: neither
 * is an outline line.
 */
export function isContentsText(text: string): boolean {
  const lines = nonEmptyLines(text);
  const leaders = lines.filter(isLeaderLine).length;
  if (leaders >= 3 || (leaders >= 2 && leaders >= lines.length / 2)) return true;
  const entries = lines.filter((l) => !isPageNumberLine(l));
  const isEntry = (l: string): boolean => isLeaderLine(l) || isOutlineLine(l);
  if (leaders > 0 && entries.every(isEntry)) return true;
  // A piece of a list of tables or figures with its heading: "List of Tables" / "Table 1: SOC Results ....... 2".
  if (entries.some((l) => LEADERS.test(l)) && entries.every((l) => isEntry(l) || isListHeading(l))) return true;
  return lines.filter(isOutlineLine).length >= Math.max(5, lines.length * 0.4);
}

/**
 * A contents list's own heading, or an entry cut by a chunk's end: a few words, no sentence's end ("List of Figures",
 * "Table 3:").
 */
function isListHeading(line: string): boolean {
  return line.length <= 40 && !/[.!?;]$/u.test(line) && line.split(/\s+/u).length <= 5;
}
