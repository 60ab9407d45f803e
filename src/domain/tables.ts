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
export type TextItem = { str: string; x: number; y: number; width: number; height: number };

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
export type Span = { x0: number; x1: number };
type Cell = Span & { text: string };
type Line = { y: number; height: number; cells: Cell[] };

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
    const ref = rows.at(-1)?.[0];
    if (ref && Math.abs(item.y - ref.y) < SAME_LINE * Math.max(ref.height, item.height)) rows.at(-1)?.push(item);
    else rows.push([item]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const height = Math.max(...row.map((i) => i.height));
    const cells: Cell[] = [];
    for (const item of row) {
      const cell = cells.at(-1);
      const gap = cell ? item.x - cell.x1 : Infinity;
      if (cell && gap < CELL_GAP * height) {
        // Items of one cell: pdf.js splits a run at a font change, and sometimes between words.
        cell.text += gap > 0.15 * height && !cell.text.endsWith(' ') && !item.str.startsWith(' ') ? ` ${item.str}` : item.str;
        cell.x1 = Math.max(cell.x1, item.x + item.width);
      } else cells.push({ text: item.str, x0: item.x, x1: item.x + item.width });
    }
    return { y: row[0]?.y ?? 0, height, cells: cells.map((c) => ({ ...c, text: oneLine(c.text) })).filter((c) => c.text !== '') };
  });
}

const overlaps = (c: Span, col: Span): boolean => c.x0 < col.x1 && c.x1 > col.x0;

/** The columns a cell falls into (by overlap, else the nearest within `slack`). */
function columnsOf(cell: Cell, columns: readonly Span[], slack = 0): number[] {
  const hit = columns.flatMap((col, i) => (overlaps(cell, col) ? [i] : []));
  if (hit.length > 0) return hit;
  const dist = (col: Span): number => Math.max(col.x0 - cell.x1, cell.x0 - col.x1);
  const nearest = columns.reduce((best, col, i) => (dist(col) < best.d ? { i, d: dist(col) } : best), { i: -1, d: slack });
  return nearest.i < 0 ? [] : [nearest.i];
}

/** Each of the line's cells falls into exactly one of the columns. */
const inGrid = (line: Line, columns: readonly Span[]): boolean => line.cells.every((c) => columnsOf(c, columns).length === 1);

/**
 * A row's line: two cells or more, one of them a figure. (A line of words in three or more columns is a heading line
 * above such rows, or a row of a table of words, which is left as the text layer gives it.)
 */
const isRowLine = (line: Line): boolean => line.cells.length >= 2 && line.cells.some((c) => isNumeric(c.text));

/** A line close enough below the line before to hold the wrapped cells of its row. */
const wraps = (line: Line, prev: Line): boolean => line.y - prev.y <= 1.6 * line.height;

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

/**
 * The next line down continues a table's run: it is close, and a row line keeping one grid with the run's row lines (two
 * columns or more, a column for each cell of a row line), or a line of cells within their columns that is no caption.
 */
function continues(run: readonly Line[], next: Line): boolean {
  const prev = run.at(-1) as Line;
  if (next.y - prev.y > MAX_ROW_GAP * Math.max(prev.height, next.height)) return false;
  const rowLines = [...run, next].filter(isRowLine);
  const columns = columnsFrom(rowLines);
  if (!isRowLine(next)) return inGrid(next, columns) && !captionText(next);
  return (
    columns.length >= 2 &&
    rowLines.every((l) => inGrid(l, columns) && new Set(l.cells.map((c) => columnsOf(c, columns)[0])).size === l.cells.length)
  );
}

/**
 * At least half of the cells right of the first column are figures: a table of figures, which the text layer turns
 * into runs of numbers. (A form of two or three columns of words reads well as the text layer gives it.)
 */
function mostlyFigures(run: readonly Line[], columns: readonly Span[]): boolean {
  const cells = run.flatMap((l) => l.cells.filter((c) => (columnsOf(c, columns)[0] ?? 0) > 0));
  return cells.filter((c) => isNumeric(c.text)).length * 2 >= cells.length;
}

/** The line's text if it is a caption ("Table 4: ..."), else ''. */
const captionText = (line: Line): string => {
  const text = line.cells.map((c) => c.text).join(' ');
  return CAPTION.test(text) ? text : '';
};

/** The caption on `line`, if it stands at most `gap` of its font sizes from the line `from`. */
const captionNear = (line: Line | undefined, from: Line, gap: number): string =>
  line && Math.abs(from.y - line.y) <= gap * line.height ? captionText(line) : '';

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
    const run = [first];
    for (let next = lines[i + 1]; next && continues(run, next); next = lines[i + run.length]) run.push(next);
    // Trailing wrapped lines after the last row line belong to it only when close; trim lines of prose below.
    const stray = (last: Line): boolean => !isRowLine(last) && last.cells.length === 1 && !wraps(last, run.at(-2) as Line);
    while (run.length > 1 && stray(run.at(-1) as Line)) run.pop();
    const columns = columnsFrom(run.filter(isRowLine));
    if (run.filter(isRowLine).length < 2 || columns.length < MIN_COLUMNS || !mostlyFigures(run, columns)) continue;
    const above = headingsAbove(lines, i, columns);
    tables.push({
      caption: above.caption || captionNear(lines[i + run.length], run.at(-1) as Line, MAX_CAPTION_GAP),
      headings: above.headings,
      rows: mergeLeadingLabels(rowsOf(run, columns)),
      columns,
      // Above it only the running header, or the wrapped cells of a row begun on the page before.
      startsPage: first.y - (lines[0]?.y ?? 0) <= TOP_LINES * first.height || lines.slice(1, i).every((l) => inGrid(l, columns)),
    });
    i += run.length - 1;
  }
  return tables;
}

/** The cells of a table's row lines by column; a line that wraps the row line above adds to that row's cells. */
function rowsOf(run: readonly Line[], columns: readonly Span[]): string[][] {
  const rows: string[][] = [];
  run.forEach((line, k) => {
    if (k === 0 || isRowLine(line) || !wraps(line, run[k - 1] as Line)) rows.push(columns.map(() => ''));
    const row = rows.at(-1) as string[];
    for (const cell of line.cells) {
      const col = columnsOf(cell, columns)[0];
      // A cell wrapped at a hyphen ("01-Jan-" / "2023") reads joined.
      if (col !== undefined) row[col] = row[col] ? `${row[col]}${/[-\u2013/]$/u.test(row[col]) ? '' : ' '}${cell.text}` : cell.text;
    }
  });
  return rows;
}

/**
 * The headings over a table's columns, from the word lines right above its first row (line `start`), and its caption:
 * a "Table N" line above them (or above the title line that stops them), else that title line itself.
 */
function headingsAbove(lines: readonly Line[], start: number, columns: readonly Span[]): { headings: string[]; caption: string } {
  const parts: string[][] = columns.map(() => []);
  const read = (caption: string): { headings: string[]; caption: string } => ({ headings: parts.map(headingText), caption });
  let below = lines[start] as Line;
  for (let above = start - 1; above >= start - MAX_HEADING_LINES; above--) {
    const line = lines[above];
    if (!line || below.y - line.y > MAX_HEADING_GAP * Math.max(line.height, below.height)) {
      return read(captionNear(line, below, 2 * MAX_CAPTION_GAP));
    }
    const spans = line.cells.map((c) => columnsOf(c, columns, line.height));
    const farLeft = line.cells.some((c) => c.x0 < (columns[0]?.x0 ?? 0) - 2 * line.height);
    if (captionText(line) || farLeft || line.cells.every((c) => isNumeric(c.text)) || spans.some((s) => s.length === 0)) {
      return read(captionText(line));
    }
    // A cell over three columns or more is the table's title (or prose above it): the headings are below it.
    if (spans.some((s) => s.length >= Math.min(3, columns.length))) {
      const only = line.cells.length === 1 ? (line.cells[0]?.text ?? '') : '';
      return read(captionNear(lines[above - 1], below, 2 * MAX_CAPTION_GAP) || (hasLetter(only) && !/[.:;]$/u.test(only) ? only : ''));
    }
    line.cells.forEach((cell, k) => {
      for (const col of spans[k] ?? []) parts[col]?.unshift(cell.text);
    });
    below = line;
  }
  return read(captionNear(lines[start - MAX_HEADING_LINES - 1], below, 2 * MAX_CAPTION_GAP));
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
export function renderTableRows({ caption, headings, rows }: Pick<PageTable, 'caption' | 'headings' | 'rows'>): string[] {
  if (headings.slice(1).every((h) => h === '')) return [];
  const name = captionLabel(caption);
  const joined = (sep: string, ...parts: (string | undefined)[]): string => parts.filter((p) => p).join(sep);
  return rows.flatMap(([label = '', ...cells]) => {
    const parts = cells.flatMap((cell, k) => (cell === '' ? [] : [joined(' ', headings[k + 1], cell)]));
    if (parts.length === 0) return [];
    // Commas, not semicolons, between the cells: a row is one sentence (sentences.ts ends one at a semicolon).
    const line = joined(': ', joined(', ', name, label && joined(' ', headings[0], label)), parts.join(', '));
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
