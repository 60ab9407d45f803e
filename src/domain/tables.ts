import { countDigits, countLetters, hasLetter, oneLine } from './text.js';

/**
 * Tables of a PDF page read from the positions of its text, and their rows written out with their column headings
 * and caption, so that a quoted row says what its figures are ("Table 4 (Estimated removals), Year 2023: Net
 * removals (tCO2e) 9,870") instead of being a run of numbers. Pure: positioned text items in, rows out. How a table
 * is found (lines by baseline, cells by gaps, rows sharing columns, headings above): docs/ocr-and-tables.md "Tables".
 */

/**
 * A run of text at a position on the page, as pdf.js's getTextContent gives it: x its left edge, y its baseline
 * (viewport units: y grows downwards), height its font size (0 for a blank item).
 */
export interface TextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A table read from one page: its caption, one heading per column and each row's cells by column ('' when none). */
export interface PageTable {
  caption: string;
  headings: string[];
  rows: string[][];
  /** The columns' left and right edges, to match a table that continues on the next page. */
  columns: Span[];
  /** The first row starts near the top of the page's text (a table continued from the page before may). */
  startsPage: boolean;
}

/** A cell's or a column's left and right edges. */
export interface Span {
  x0: number;
  x1: number;
}

interface Cell extends Span {
  text: string;
}

interface Line {
  y: number;
  height: number;
  cells: Cell[];
}

/** A gap between two items wider than this share of the font size separates cells (a word space is ~0.25-0.3). */
const CELL_GAP = 0.9;
/** Items whose baselines differ by less than this share of the font size are on one line. */
const SAME_LINE = 0.6;
/** A table's lines follow each other at most this many font sizes apart (a row of wrapped cells is taller). */
const MAX_ROW_GAP = 4;
/** Heading lines sit at most this many font sizes above the next line down. */
const MAX_HEADING_GAP = 2.6;
/** Heading lines looked at above the first row. */
const MAX_HEADING_LINES = 6;
/** A caption stands at most this many font sizes from the table. */
const MAX_CAPTION_GAP = 4;
/** A table has a label column and at least two more (a label and one figure per line is a list, read well as it is). */
const MIN_COLUMNS = 3;
/** A first row within this many font sizes of the page's first line of text starts the page. */
const TOP_LINES = 5;

const CAPTION = /^(?:table|tab\.)\s*[\p{N}IVX]+[\p{N}.\-\u2013]*[a-z]?\b[.:\-\u2013]?\s*/iu;

const isNumeric = (text: string): boolean => countDigits(text) > countLetters(text);
const TRAILING_STOPS = /[\s.;:]+$/u;

/** The page's items as lines of cells, top to bottom. */
function linesOf(items: readonly TextItem[]): Line[] {
  const visible = items.filter((i) => i.str.trim() !== '' && i.height > 0).sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: TextItem[][] = [];
  for (const item of visible) {
    const last = rows[rows.length - 1];
    const ref = last?.[0];
    if (last && ref && Math.abs(item.y - ref.y) < SAME_LINE * Math.max(ref.height, item.height)) last.push(item);
    else rows.push([item]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const height = Math.max(...row.map((i) => i.height));
    const cells: Cell[] = [];
    for (const item of row) {
      const cell = cells[cells.length - 1];
      const gap = cell ? item.x - cell.x1 : Infinity;
      if (cell && gap < CELL_GAP * height) {
        // Items of one cell: pdf.js splits a run at a font change, and sometimes between words.
        cell.text += gap > 0.15 * height && !cell.text.endsWith(' ') && !item.str.startsWith(' ') ? ` ${item.str}` : item.str;
        cell.x1 = Math.max(cell.x1, item.x + item.width);
      } else {
        cells.push({ text: item.str, x0: item.x, x1: item.x + item.width });
      }
    }
    for (const c of cells) c.text = oneLine(c.text);
    return { y: row[0]?.y ?? 0, height, cells: cells.filter((c) => c.text !== '') };
  });
}

const overlaps = (c: Span, col: Span): boolean => c.x0 < col.x1 && c.x1 > col.x0;

/** The columns a cell falls into (by overlap, else the nearest within a font size). */
function columnsOf(cell: Cell, columns: readonly Span[], slack: number): number[] {
  const hit = columns.flatMap((col, i) => (overlaps(cell, col) ? [i] : []));
  if (hit.length > 0) return hit;
  let best = -1;
  let dist = slack;
  columns.forEach((col, i) => {
    const d = Math.max(col.x0 - cell.x1, cell.x0 - col.x1);
    if (d < dist) [best, dist] = [i, d];
  });
  return best < 0 ? [] : [best];
}

/**
 * A row's line: two cells or more, one of them a figure. (A line of words in three or more columns is a heading line
 * above such rows, or a row of a table of words, which is left as the text layer gives it.)
 */
const isRowLine = (line: Line): boolean => line.cells.length >= 2 && line.cells.some((c) => isNumeric(c.text));

/** Columns from the cells of a table's row lines: overlapping cells share a column. */
function columnsFrom(lines: readonly Line[]): Span[] {
  const spans = lines.flatMap((l) => l.cells.map((c) => ({ x0: c.x0, x1: c.x1 }))).sort((a, b) => a.x0 - b.x0);
  const cols: Span[] = [];
  for (const s of spans) {
    const last = cols[cols.length - 1];
    if (last && s.x0 < last.x1) last.x1 = Math.max(last.x1, s.x1);
    else cols.push({ ...s });
  }
  return cols;
}

/** Every row line's cells fall into distinct columns: the lines share one grid. */
function sharesGrid(lines: readonly Line[], columns: readonly Span[]): boolean {
  return lines.filter(isRowLine).every((l) => {
    const used = l.cells.map((c) => columnsOf(c, columns, 0));
    return used.every((u) => u.length === 1) && new Set(used.map((u) => u[0])).size === l.cells.length;
  });
}

/**
 * At least half of the cells right of the first column are figures: a table of figures, which the text layer turns
 * into runs of numbers. (A form of two or three columns of words reads well as the text layer gives it.)
 */
function mostlyFigures(run: readonly Line[], columns: readonly Span[]): boolean {
  const cells = run.flatMap((l) => l.cells.filter((c) => (columnsOf(c, columns, 0)[0] ?? 0) > 0));
  return cells.filter((c) => isNumeric(c.text)).length * 2 >= cells.length;
}

const captionText = (line: Line | undefined): string | null => {
  const text = line?.cells.map((c) => c.text).join(' ') ?? '';
  return CAPTION.test(text) ? text : null;
};

/**
 * The tables of a page, top to bottom. A table is a run of two or more row lines (with the lines of their wrapped
 * cells between them) whose cells fall into one set of columns, two or more; a page with none gives [].
 */
export function findTables(items: readonly TextItem[]): PageTable[] {
  const lines = linesOf(items);
  const tables: PageTable[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = lines[i] as Line;
    if (!isRowLine(first)) continue;
    // Grow the run while each next line is close and keeps one grid with the run's row lines.
    let end = i + 1;
    let columns = columnsFrom([first]);
    while (end < lines.length) {
      const next = lines[end] as Line;
      const prev = lines[end - 1] as Line;
      if (next.y - prev.y > MAX_ROW_GAP * Math.max(prev.height, next.height)) break;
      if (isRowLine(next)) {
        const grown = columnsFrom(lines.slice(i, end + 1).filter(isRowLine));
        if (grown.length < 2 || !sharesGrid(lines.slice(i, end + 1), grown)) break;
        columns = grown;
      } else if (next.cells.some((c) => columnsOf(c, columns, 0).length !== 1) || captionText(next)) {
        break;
      }
      end++;
    }
    const run = lines.slice(i, end);
    // Trailing wrapped lines after the last row line belong to it only when close; trim lines of prose below.
    for (let last = run.at(-1); last && run.length > 1 && !isRowLine(last) && last.cells.length === 1; last = run.at(-1)) {
      if (last.y - (run.at(-2)?.y ?? 0) <= 1.6 * last.height) break;
      run.pop();
    }
    if (run.filter(isRowLine).length >= 2 && columns.length >= MIN_COLUMNS && mostlyFigures(run, columns)) {
      tables.push(readTable(lines, i, run, columns));
      i += run.length - 1;
    }
  }
  return tables;
}

/** A table's rows (wrapped cells merged), headings and caption, from its run of lines starting at `start`. */
function readTable(lines: readonly Line[], start: number, run: readonly Line[], columns: Span[]): PageTable {
  const first = run[0] as Line;
  const last = run[run.length - 1] as Line;
  const above = headingsAbove(lines, start, columns);
  const down = lines[start + run.length];
  const captionBelow = down && down.y - last.y <= MAX_CAPTION_GAP * down.height ? (captionText(down) ?? '') : '';
  return {
    caption: above.caption || captionBelow,
    headings: above.headings,
    rows: mergeLeadingLabels(rowsOf(run, columns)),
    columns,
    // Above it only the running header, or the wrapped cells of a row begun on the page before.
    startsPage:
      first.y - (lines[0]?.y ?? 0) <= TOP_LINES * first.height ||
      lines.slice(1, start).every((l) => l.cells.every((c) => columnsOf(c, columns, 0).length === 1)),
  };
}

/** The cells of a table's row lines by column; a line that wraps the row line above adds to that row's cells. */
function rowsOf(run: readonly Line[], columns: readonly Span[]): string[][] {
  const rows: string[][] = [];
  let prev: Line | undefined;
  for (const line of run) {
    const wrapped = !isRowLine(line) && prev !== undefined && line.y - prev.y <= 1.6 * line.height;
    const row = wrapped ? (rows[rows.length - 1] as string[]) : columns.map(() => '');
    if (!wrapped) rows.push(row);
    for (const cell of line.cells) {
      const col = columnsOf(cell, columns, 0)[0];
      // A cell wrapped at a hyphen ("01-Jan-" / "2023") reads joined.
      if (col !== undefined) row[col] = row[col] ? `${row[col]}${/[-\u2013/]$/u.test(row[col]) ? '' : ' '}${cell.text}` : cell.text;
    }
    prev = line;
  }
  return rows;
}

/**
 * The headings over a table's columns, from the word lines right above its first row (line `start`), and its caption:
 * a "Table N" line above them (or above the title line that stops them), else that title line itself.
 */
function headingsAbove(lines: readonly Line[], start: number, columns: readonly Span[]): { headings: string[]; caption: string } {
  const parts: string[][] = columns.map(() => []);
  let caption = '';
  let title = '';
  let stopped = false;
  let above = start - 1;
  let below = lines[start] as Line;
  for (let n = 0; above >= 0 && n < MAX_HEADING_LINES; n++, above--) {
    const line = lines[above] as Line;
    if (below.y - line.y > MAX_HEADING_GAP * Math.max(line.height, below.height)) break;
    caption = captionText(line) ?? '';
    if (caption) break;
    if (line.cells.every((c) => isNumeric(c.text)) || line.cells.some((c) => c.x0 < (columns[0]?.x0 ?? 0) - 2 * line.height)) break;
    const spans = line.cells.map((c) => columnsOf(c, columns, line.height));
    if (spans.some((s) => s.length === 0)) break;
    // A cell over three columns or more is the table's title (or prose above it): the headings are below it.
    if (spans.some((s) => s.length >= Math.min(3, columns.length))) {
      stopped = true;
      const only = line.cells.length === 1 ? line.cells[0]?.text : undefined;
      if (only !== undefined && hasLetter(only) && !/[.:;]$/u.test(only)) title = only;
      break;
    }
    line.cells.forEach((cell, k) => {
      for (const col of spans[k] ?? []) parts[col]?.unshift(cell.text);
    });
    below = line;
  }
  if (!caption) {
    const up = lines[stopped ? above - 1 : above];
    if (up && below.y - up.y <= MAX_CAPTION_GAP * 2 * up.height) caption = captionText(up) ?? '';
    caption ||= title;
  }
  return { headings: parts.map(headingText), caption };
}

/**
 * A column's heading read out: a formula's symbols, set in mathematical letters, say nothing, and a final stop would
 * end the row's sentence in the middle.
 */
function headingText(parts: readonly string[]): string {
  return oneLine(
    parts
      .join(' ')
      .replace(/[\u{1D400}-\u{1D7FF}\uFFFD\p{Co}]+/gu, '')
      .replace(/\(\s*\)/gu, '')
      .replace(TRAILING_STOPS, ''),
  );
}

/** A row holding its label alone (its figures on the next row line) is merged into the row after it. */
function mergeLeadingLabels(rows: string[][]): string[][] {
  return rows.filter((row, k) => {
    const next = rows[k + 1];
    const label = row.filter((c) => c !== '').length === 1 ? row[0] : '';
    if (!label || next?.[0] !== '' || next.filter((c) => c !== '').length < 2) return true;
    next[0] = label;
    return false;
  });
}

/** "Table 7: Estimated GHG emission reductions" as "Table 7 (Estimated GHG emission reductions)". */
function captionLabel(caption: string): string {
  const m = CAPTION.exec(caption);
  if (!m) return caption;
  const name = m[0].replace(/[.:\-\u2013\s]+$/u, '').trim();
  const title = caption.slice(m[0].length).replace(TRAILING_STOPS, '').trim();
  return title ? `${name} (${title})` : name;
}

/**
 * A table's rows written out with their headings, one line each: "Table 7 (Estimated GHG emission reductions), Year
 * 2023: Baseline emissions (tCO2e) 12,345, Net reductions (tCO2e) 9,870." The first column is the row's label. A
 * table with no heading over its figures gives none: its rows would read as they already do.
 */
export function renderTableRows(table: Pick<PageTable, 'caption' | 'headings' | 'rows'>): string[] {
  const { headings, rows } = table;
  if (headings.slice(1).every((h) => h === '')) return [];
  const caption = table.caption ? captionLabel(table.caption) : '';
  return rows.flatMap((row) => {
    const label = row[0] ?? '';
    const parts = row.flatMap((cell, col) => (col === 0 || cell === '' ? [] : [headings[col] ? `${headings[col]} ${cell}` : cell]));
    if (parts.length === 0) return [];
    const labelled = label ? `${headings[0] ? `${headings[0]} ` : ''}${label}` : '';
    const head = [caption, labelled].filter((s) => s !== '').join(', ');
    // Commas, not semicolons, between the cells: a row is one sentence (sentences.ts ends one at a semicolon).
    const line = `${head ? `${head}: ` : ''}${parts.join(', ')}`;
    return [/[.!?]$/u.test(line) ? line : `${line}.`];
  });
}

/**
 * The headings (and caption) of a table that continues one on the page before: a table that starts its page, has
 * no headings of its own and has the previous table's columns takes that table's headings.
 */
export function continueTable(table: PageTable, previous: PageTable | null): PageTable {
  if (!previous || !table.startsPage || table.headings.some((h) => h !== '')) return table;
  const aligned =
    previous.columns.length === table.columns.length && table.columns.every((c, k) => overlaps(c, previous.columns[k] as Span));
  return aligned ? { ...table, headings: previous.headings, caption: table.caption || previous.caption } : table;
}

/** Starts the block of rendered rows appended to a page's text; the page's own text is everything before it. */
export const TABLE_ROWS_HEADING = 'Table rows with their headings:';
const BLOCK = `\n\n${TABLE_ROWS_HEADING}\n`;

/** A page's text with its tables' rendered rows appended under TABLE_ROWS_HEADING (the text itself when none). */
export function withTableRows(text: string, rows: readonly string[]): string {
  return rows.length === 0 ? text : `${text}${BLOCK}${rows.join('\n')}`;
}

/** A page's own text, without the rendered rows withTableRows appended: what the derived fields are read from. */
export function withoutTableRows(text: string): string {
  const at = text.lastIndexOf(BLOCK);
  return at < 0 ? text : text.slice(0, at);
}
