import { isRunningLine, nonEmptyLines, runningLineShapes } from './page-furniture.js';
import { withoutTableRows } from './tables.js';
import { countDigits, countLetters } from './text.js';

/**
 * The headings of a table that runs on across pages, for the chunks of its later pages. A PDF repeats a long table's
 * column headings only on the page where the table starts; the pages after it hold rows of figures and dates alone,
 * which no question's words match (docs/ingestion.md gives an example). Those headings are indexed for full-text
 * search with such a chunk (its ChunkRecord `context`, never quoted), as a section heading situates a paragraph.
 * Read from the extracted text's shape (rows are figures, headings are words), never from a list of phrases. Pure.
 */

/** A chunk is a table's when at least this share of its lines (furniture left out) are rows. */
const ROW_SHARE = 0.6;
/** Pages looked back through for the headings (a table of one row a year runs over a few pages). */
const MAX_PAGES_BACK = 5;
/** Characters of headings kept: the lines nearest the rows (a table's headings sit right above its first row). */
const MAX_HEADING_CHARS = 300;
/** A short line that is part of a date or a period in a row ("01-Jan-", "Dec-", "to 31-", "July-"). */
const DATE_PART = /^(?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?:[-\u2013/\s]|$)|to\b)/iu;
const DATE_PART_CHARS = 14;

/** A row's line: mostly figures ("0 27,769 0 4,998 0 22,770", "Total 0 535,052 0 96,309"), or a date's part. */
function isRowLine(line: string): boolean {
  const letters = countLetters(line);
  const digits = countDigits(line);
  return letters / (letters + digits) < 0.6 || (line.length <= DATE_PART_CHARS && DATE_PART.test(line));
}

/** A heading's line: words ("Estimated buffer pool", "allocation", "(tCO2e)"), at least one of three letters. */
function isHeadingLine(line: string): boolean {
  return !isRowLine(line) && /\p{L}{3}/u.test(line);
}

/** The end of a sentence of prose above a table ("... are given below."): the headings start after it. */
function endsProse(line: string): boolean {
  return /[.!?]["'\u201D\u2019)]*$/u.test(line) && line.split(/\s+/u).length >= 3;
}

export interface ChunkAt {
  /** 1-based page. */
  page: number;
  /** Offset of the chunk in its page's text. */
  offset: number;
  text: string;
}

/**
 * For each chunk, the headings of the table it continues from an earlier page, or '' (most chunks: prose, or a
 * table whose headings are on its own page, which the page's other chunks and the page-level ranking already
 * bring along). A chunk continues a table when most of its lines are rows and, looking back from where it starts,
 * its page holds only rows (and running lines) before it and the page before ends with rows; the headings are the
 * word lines right above those rows, up to MAX_PAGES_BACK pages back, after the last sentence of prose above them.
 */
export function continuedTableHeadings(pagesRead: readonly string[], chunks: readonly ChunkAt[]): string[] {
  // The pages as the PDF gives them: the table rows written out after a page's text (tables.ts) carry their headings.
  const pages = pagesRead.map(withoutTableRows);
  const running = runningLineShapes(pages);
  const content = (text: string): string[] =>
    // (A rule or a line of symbols is neither a row nor a heading.)
    nonEmptyLines(text).filter((l) => /[\p{L}\p{N}]/u.test(l) && !isRunningLine(l, running));
  // Each earlier page's lines, read once, last first (the walk goes back from a chunk).
  const backwards = new Map<number, string[]>();
  const linesBack = (page: number): string[] => {
    let lines = backwards.get(page);
    if (!lines) backwards.set(page, (lines = content(pages[page - 1] ?? '').reverse()));
    return lines;
  };
  return chunks.map((chunk) => {
    const lines = content(chunk.text);
    if (lines.length === 0 || lines.filter(isRowLine).length / lines.length < ROW_SHARE) return '';
    const heading: string[] = [];
    let chars = 0;
    for (let page = chunk.page; page >= Math.max(1, chunk.page - MAX_PAGES_BACK); page--) {
      const before = page === chunk.page ? content((pages[page - 1] ?? '').slice(0, chunk.offset)).reverse() : linesBack(page);
      // A page before that ends with words: the table starts on the chunk's page, after whatever that page ends with.
      if (page < chunk.page && before[0] !== undefined && isHeadingLine(before[0])) return '';
      for (const line of before) {
        if (heading.length > 0 && endsProse(line)) break;
        if (isHeadingLine(line)) {
          // Words on the chunk's own page before it: the table starts there, and the page is found by them already.
          if (page === chunk.page) return '';
          heading.unshift(line);
          chars += line.length + 1;
          if (chars >= MAX_HEADING_CHARS) break;
        } else if (heading.length > 0) {
          break;
        }
      }
      if (heading.length > 0) break;
    }
    const joined = heading.join(' ');
    return joined.length > MAX_HEADING_CHARS ? joined.slice(joined.length - MAX_HEADING_CHARS).replace(/^\S*\s/u, '') : joined;
  });
}
