import { oneLine } from './text.js';
/**
 * Reads the table of estimated emission reductions/removals of a project description (VCS PD sections 1.11 and 4.4,
 * CDM PDD A.4 / B.6.4) from its pages' text, as year -> tCO2e. Pure: page texts in, numbers out.
 *
 * Text extraction loses the table grid, so the parser reads the pages' token stream: running headers and footers
 * dropped, each token classified (year, date, quantity...), a row is a label holding a year followed by quantities,
 * rows close together form a run, and a run is a table when the text before it names estimated reductions. Which
 * column is a row's value, how partial years and total rows count, and which table wins: docs/derived-fields.md
 * ("metadata.emissions_reductions").
 */

export interface EmissionTableRow {
  year: number;
  value: number;
  /** 1-based page where the row starts. */
  page: number;
}

export interface EmissionTable {
  /** Four-digit year (string key, SPEC 2.2) -> tCO2e. */
  values: Record<string, number>;
  rows: EmissionTableRow[];
  /** Distinct 1-based pages the rows came from, ascending. */
  pages: number[];
  /** The value of the table's own total row, when it has one. */
  total: number | null;
}

type Kind = 'year' | 'date' | 'fragment' | 'month' | 'connector' | 'number' | 'total' | 'other';

interface Token {
  text: string;
  kind: Kind;
  page: number;
  /** Index of the (content) line the token is on. */
  line: number;
  index: number;
}

/** A row being read, then read: its label's tokens (a year or period, or "Total ..."), then its cells (quantities). */
interface Row {
  labels: Token[];
  cells: Token[];
}

/** Rows of one table are at most this many tokens apart (a footnote, "Table continued", a page header). */
const ROW_GAP_TOKENS = 40;

const MONTH_NAME = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)`;
const MONTHS = new RegExp(`^${MONTH_NAME}\\.?$`, 'i');
const FRAGMENT = new RegExp(`^(\\d{1,2}[-/.]?)?(${MONTH_NAME}\\.?)?[-/]$`, 'i');
const YEAR = /^(19|20)\d{2}$/;
const CONNECTORS = new Set(['to', '-', '–', '—', 'until', 'till', 'through', 'thru', 'and']);

/**
 * A table cell quantity: "535,052", "5,35,052", "1 234" is not one (two cells), "12.5", "-40,795", "−3", "(1,234)".
 * Null for anything else, including years written with separators ("2,022" is a quantity, "2022" is too).
 */
export function parseQuantity(text: string): number | null {
  // In parentheses or after a minus sign, a quantity is negative; in both, positive again.
  const paren = /^\((.+)\)$/.exec(text.trim());
  const unbracketed = paren?.[1] ?? text.trim();
  const sign = /^[-−–]\s?(.+)$/.exec(unbracketed);
  const t = sign?.[1] ?? unbracketed;
  const negative = (paren !== null) !== (sign !== null);
  // Western (1,234,567) or Indian (12,34,567) grouping, or no grouping; optional decimals.
  const n = /^(\d{1,3}(,\d{3})+|\d{1,3}(,\d{2})*,\d{3}|\d+)(\.\d+)?$/.test(t) ? Number(t.replaceAll(',', '')) : NaN;
  if (!Number.isFinite(n)) return null;
  return negative && n !== 0 ? -n : n;
}

/** The year a date-like token names: "15-July-2022", "01/01/2022", "2022-12-31", "Dec-2022", "2022-23". */
function dateYear(text: string): number | null {
  const m = /(?:^|[^\d])((?:19|20)\d{2})(?:$|[^\d])/.exec(text);
  return m?.[1] !== undefined ? Number(m[1]) : null;
}

/** A token without the stars, colons and semicolons a cell may end with ("2022*", "Total:"). */
function bareText(text: string): string {
  return text.replace(/[*:;]+$/, '');
}

function classify(text: string): Kind {
  const bare = bareText(text);
  if (YEAR.test(bare)) return 'year';
  if (/^total/i.test(bare)) return 'total';
  if (CONNECTORS.has(bare.toLowerCase())) return 'connector';
  if (parseQuantity(bare) !== null) return 'number';
  if (MONTHS.test(bare)) return 'month';
  // Dates with a year: 15-July-2022, 01/01/2022, 2022-12-31, Dec-2022, 2022-23, 2022/23, (2022)
  if (dateYear(bare) !== null && /^[\w./()–-]+$/.test(bare) && /[-/.()–]|[a-z]/i.test(bare)) return 'date';
  // A date cut by a line break: "15-July-", "31-", "Dec-", "31-Dec-"
  if (FRAGMENT.test(bare) && bare.length > 1) return 'fragment';
  return 'other';
}

/** Lines that repeat across pages (running headers, footers) and bare page numbers are not table content. */
function contentLines(pages: readonly string[]): { text: string; page: number }[] {
  const perPage = pages.map((p) => p.split('\n').map(oneLine).filter(Boolean));
  const seenOn = new Map<string, number>();
  for (const l of perPage.flatMap((lines) => [...new Set(lines)])) seenOn.set(l, (seenOn.get(l) ?? 0) + 1);
  const threshold = Math.max(3, Math.ceil(pages.length * 0.3));
  const isContent = (l: string, j: number, lines: string[], page: number): boolean => {
    const nearEdge = j < 3 || j >= lines.length - 3;
    if (nearEdge && (l === String(page) || /^page \d+( of \d+)?$/i.test(l))) return false;
    return !(/[a-z]/i.test(l) && (seenOn.get(l) ?? 0) >= threshold);
  };
  return perPage.flatMap((lines, i) => lines.filter((l, j) => isContent(l, j, lines, i + 1)).map((text) => ({ text, page: i + 1 })));
}

const UNITS = /^\(?(tco2e?|tco2-?eq|t|tonnes?|co2e|ha|hectares?)\)?[.,;]?$/i;

/** The classified token stream the parser reads. */
function tokenize(pages: readonly string[]): Token[] {
  // Dates that a narrow table column broke over lines are joined again: "15-July-" + "2022", "31-" + "Dec-" + "2022".
  const joined: { text: string; page: number; line: number }[] = [];
  contentLines(pages).forEach((line, n) => {
    for (const text of line.text.split(' ')) {
      const prev = joined.at(-1);
      if (prev && /[A-Za-z\d][-/]$/.test(prev.text) && classify(prev.text) === 'fragment' && /^([A-Za-z]|(19|20)\d{2}\b)/.test(text))
        prev.text += text;
      else joined.push({ text, page: line.page, line: n });
    }
  });
  const tokens: Token[] = joined.map((t, index) => ({ ...t, kind: classify(t.text), index }));
  tokens.forEach((t, i) => {
    const next = tokens[i + 1]?.line === t.line ? tokens[i + 1] : undefined;
    // "Total" names a total row only where a row label starts: at the start of a line.
    if (t.kind === 'total' && tokens[i - 1]?.line === t.line) t.kind = 'other';
    // "28 February 2031": a day of a date (prose or a period label), not a cell.
    if (t.kind === 'number' && next?.kind === 'month' && /^\d{1,2}$/.test(t.text)) t.kind = 'fragment';
    // A number followed by a word on its line is prose or a heading ("5 MONITORING", "1,200 trees"), not a cell.
    const wordFollows = next?.kind === 'other' && /^[A-Za-z(]/.test(next.text) && !UNITS.test(next.text);
    if (wordFollows && (t.kind === 'number' || t.kind === 'year')) t.kind = 'other';
  });
  return tokens;
}

function rowYear(labels: readonly Token[]): number | null {
  const firstDate = labels.find((t) => t.kind === 'date');
  if (firstDate) return dateYear(firstDate.text);
  // "2022 - 2023" is a period filed under its start; a lone year before another ("2038 2039") is the tail of a
  // row cut by a page break, so the last year is this row's.
  const isYear = (t: Token): boolean => t.kind === 'year';
  const connectorAt = labels.findIndex((t) => t.kind === 'connector');
  const year = (connectorAt > 0 ? labels.slice(0, connectorAt).findLast(isYear) : undefined) ?? labels.findLast(isYear);
  return year ? Number(year.text.slice(0, 4)) : null;
}

/** Kinds of token a row's label is made of: "15-July-2022 to 31-Dec-2022", "2022 - 2023", "Dec-" "2022". */
const LABEL_KINDS = new Set<Kind>(['year', 'date', 'fragment', 'month', 'connector']);
/** A total row's label is at most this many tokens ("Total" and its words, e.g. "Total estimated ERs (tCO2e)"). */
const MAX_TOTAL_LABEL = 14;

const isTotal = (row: Row): boolean => row.labels[0]?.kind === 'total';

const rowStart = (row?: Row): number => row?.labels[0]?.index ?? 0;

/** Index after the row's last cell. */
const rowEnd = (row: Row): number => (row.cells.at(-1)?.index ?? 0) + 1;

/** The quantity in a cell ("2022*" is 2022). */
const quantity = (cell?: Token): number | undefined => cell && (parseQuantity(bareText(cell.text)) ?? 0);

/** Column count of the table being read: the rows just before the one starting at `start`, with no gap between them. */
function columnCount(rows: readonly Row[], start: number): number {
  const counts: number[] = [];
  let next = start;
  for (let k = rows.length - 1; k >= 0 && counts.length < 6; k--) {
    const r = rows[k];
    if (!r || next - rowEnd(r) > ROW_GAP_TOKENS) break;
    if (!isTotal(r)) counts.push(r.cells.length);
    next = rowStart(r);
  }
  // Their most frequent count, the largest of equally frequent ones (0 when there are none).
  const count = (v: number): number => counts.filter((x) => x === v).length;
  return counts.reduce((best, v) => (count(v) > count(best) || (count(v) === count(best) && v > best) ? v : best), 0);
}

/** The part of the row being read that token `t` joins (`rows`: those read before it), or null when it ends the row. */
function partOf(row: Row, t: Token, rows: readonly Row[]): 'labels' | 'cells' | null {
  // After a row's quantities: a quantity is one more, and so is a bare number such as 2000 while the row is short.
  if (row.cells.length > 0) {
    const more = t.kind === 'number' || (t.kind === 'year' && !isTotal(row) && row.cells.length < columnCount(rows, rowStart(row)));
    return more ? 'cells' : null;
  }
  // After "Total": words of its label, then its quantities (a "2022" among them too).
  if (isTotal(row) && (t.kind === 'number' || t.kind === 'year')) return 'cells';
  if (isTotal(row)) return t.kind === 'other' && row.labels.length < MAX_TOTAL_LABEL ? 'labels' : null;
  // Label tokens make a year row's label ("Total" starts a total row's); a quantity after a year or date starts its cells.
  if (LABEL_KINDS.has(t.kind) || (t.kind === 'total' && row.labels.length === 0)) return 'labels';
  return t.kind === 'number' && row.labels.some((l) => l.kind === 'year' || l.kind === 'date') ? 'cells' : null;
}

/** Splits the token stream into candidate rows (label with a year + quantities, or a total row). */
function readRows(tokens: readonly Token[]): Row[] {
  const rows: Row[] = [];
  let row: Row = { labels: [], cells: [] };
  const finish = (): void => {
    if (row.cells.length > 0) rows.push(row);
    row = { labels: [], cells: [] };
  };
  for (const t of tokens) {
    let part = partOf(row, t, rows);
    if (part === null) {
      // The token that ends a row is read again as the first of the next.
      finish();
      part = partOf(row, t, rows);
    }
    if (part !== null) row[part].push(t);
  }
  finish();
  return rows;
}

/** Consecutive rows with little text between them (a footnote, a "Table continued" line) form one run. */
function groupRuns(rows: readonly Row[]): Row[][] {
  // A run starts at the first row, after a gap, and after a total row (which closes its table).
  const opens = (r: Row, prev?: Row): boolean => !prev || isTotal(prev) || rowStart(r) - rowEnd(prev) > ROW_GAP_TOKENS;
  const starts = rows.flatMap((r, i) => (opens(r, rows[i - 1]) ? [i] : []));
  return starts.map((start, k) => rows.slice(start, starts[k + 1]));
}

/** What the text just before a run must name: estimates of reductions or removals. */
const ESTIMATE_WORDS = /estimat|ex[- ]ante|expected|projected|annual/i;
const REDUCTION_WORDS = /reduction|removal|vcus?\b|vers?\b|cers?\b|credits|sequestration|issuance/i;

/** A header word naming a cumulative column, and the words of a table's label column (the columns follow them). */
const CUMULATIVE = /^(cumulative|accumulated)\b/i;
const LABEL_COLUMN = new Set(['year', 'years', 'vintage', 'vintages', 'period', 'periods', 'calendar']);

/** Whether `sums` is the running sum of `cells`, row by row (to the unit: cells may be rounded). */
function isRunningSum(cells: number[], sums: number[]): boolean {
  let total = 0;
  return cells.every((cell, i) => {
    total += cell;
    return Math.abs((sums[i] ?? NaN) - total) <= Math.max(1, Math.abs(total) * 1e-4);
  });
}

/**
 * Which quantity of a row is its year's value, counted from the row's end (0: the last). The last, unless a column
 * named after the header's label column ("Year", "Vintage period") is cumulative (whole-period running totals): then
 * the column it is the running sum of, else, when the cumulative column is named last, the column before it.
 */
function yearlyColumn(headerWords: readonly string[], rows: readonly Row[]): number {
  const labelAt = headerWords.findLastIndex((w) => LABEL_COLUMN.has(w.toLowerCase()));
  const columns = headerWords.slice(labelAt + 1).filter((w) => !/^\(?(tco2e?|tco2-?eq|t|co2e?)\)?[.,;:]?$/i.test(w));
  if (!columns.some((w) => CUMULATIVE.test(w))) return 0;
  const width = Math.min(...rows.map((r) => r.cells.length));
  if (!(width >= 2)) return 0;
  const column = (fromEnd: number): number[] => rows.map((r) => quantity(r.cells.at(-1 - fromEnd)) ?? NaN);
  const indexes = [...Array(width).keys()];
  const yearly = indexes.flatMap((c) => indexes.filter((y) => y !== c && isRunningSum(column(y), column(c))));
  return yearly[0] ?? (CUMULATIVE.test(columns.at(-1) ?? '') ? 1 : 0);
}

/**
 * Years of a real table ascend (a run whose years jump around is prose or an index), and its values are not the row
 * numbers a "No. | Year | ..." table read wrongly yields as each value: 2, 3, 4...
 */
function isYearTable(rows: readonly EmissionTableRow[]): boolean {
  if (new Set(rows.map((r) => r.year)).size < 2) return false;
  const steps = rows.slice(1).map((b, i) => ({ a: rows[i] ?? b, b }));
  const ascending = steps.filter(({ a, b }) => b.year >= a.year).length;
  const counting = steps.filter(({ a, b }) => b.value - a.value === 1 && Math.abs(b.value) < 1000).length;
  return ascending >= steps.length * 0.8 && counting < steps.length * 0.6;
}

/** A run of rows as an emission-reduction table, or null when it is not one. */
function tableOf(run: readonly Row[], tokens: readonly Token[]): EmissionTable | null {
  // Its header: the 80 words before its first row (its caption and column headings, and the text before them).
  const start = rowStart(run[0]);
  const words = tokens.slice(Math.max(0, start - 80), start).map((t) => t.text);
  const yearRows = run.filter((r) => !isTotal(r));
  const header = words.join(' ');
  if (yearRows.length < 2 || !ESTIMATE_WORDS.test(header) || !REDUCTION_WORDS.test(header)) return null;
  const fromEnd = yearlyColumn(words, yearRows);
  const rows = yearRows.flatMap((r): EmissionTableRow[] => {
    const year = rowYear(r.labels);
    const value = quantity(r.cells.at(-1 - fromEnd));
    return year === null || value === undefined ? [] : [{ year, value, page: r.labels[0]?.page ?? 1 }];
  });
  if (!isYearTable(rows)) return null;
  const values: Record<string, number> = {};
  for (const r of rows) values[String(r.year)] = roundSum((values[String(r.year)] ?? 0) + r.value);
  const totalRow = run.find(isTotal);
  return {
    values,
    rows,
    pages: [...new Set(rows.map((r) => r.page))].sort((a, b) => a - b),
    total: totalRow ? (quantity(totalRow.cells.at(-1 - fromEnd) ?? totalRow.cells.at(-1)) ?? null) : null,
  };
}

/** Every emission-reduction table found in a document, in document order. `pages[0]` is page 1. */
export function findEmissionTables(pages: readonly string[]): EmissionTable[] {
  const tokens = tokenize(pages);
  return groupRuns(readRows(tokens)).flatMap((run) => tableOf(run, tokens) ?? []);
}

/**
 * The emission-reduction table of a document, or null when none is found. `pages[0]` is page 1. `estimate` is the
 * registry's estimated annual reductions: when several tables qualify (a VCS PD v4.4 has two), the one whose mean
 * yearly value is closest to it wins; without it, the one with the most rows, then the first.
 */
export function findEmissionTable(pages: readonly string[], estimate?: number): EmissionTable | null {
  const miss = (t: EmissionTable): number => {
    if (estimate === undefined || !Number.isFinite(estimate) || estimate <= 0) return 0;
    const values = Object.values(t.values);
    return Math.abs(values.reduce((a, b) => a + b, 0) / values.length - estimate) / estimate;
  };
  // Lower miss first, then more rows; the sort is stable, so the first of equals wins.
  return findEmissionTables(pages).sort((a, b) => miss(a) - miss(b) || b.rows.length - a.rows.length)[0] ?? null;
}

/** Sums of decimal cells ("12.1" + "0.2") are kept free of binary noise. */
function roundSum(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** Sum of the table's yearly values (to compare with its total row). */
export function tableSum(table: EmissionTable): number {
  return roundSum(Object.values(table.values).reduce((a, b) => a + b, 0));
}
