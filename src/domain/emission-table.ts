import { hasDigit, oneLine } from './text.js';
/**
 * Finds the estimated emission reductions/removals table of a project description (VCS PD sections 1.11 and 4.4,
 * CDM PDD A.4.x / B.6.4 style) in the text of its pages, and reads it as year -> tCO2e. Pure: page texts in,
 * numbers out.
 *
 * PDF text extraction loses the table grid, so the parser works on the token stream of the pages:
 * - a row is a label holding a year (a bare year "2006", a period "15-July-2022 to 31-Dec-2022", "01/01/2022 -
 *   31/12/2022", "2022-23") followed by one or more quantities; cells of one row may be spread over many lines,
 *   and a row may continue on the next page (running headers, footers and page numbers are dropped first);
 * - the value of a row is its last quantity: the net column (VCS PD 4.4 "Estimated total VCU issuance", CDM
 *   "net anthropogenic removals", or the single value column), unless the header names a cumulative column ("Year |
 *   Net removals | Cumulative"): the yearly column is then the one the cumulative column is the running sum of, or
 *   the column before a cumulative column named last (see yearlyColumn);
 * - a day written before a month name ("28 February 2031") is part of a date, never a quantity;
 * - quantities may use any thousands grouping ("535,052", Indian "5,35,052"), decimals, and a sign written as
 *   "-", "−", "–" or parentheses;
 * - rows whose periods fall in the same calendar year (partial years: "01-Jan-2022 to 14-Jul-2022" and
 *   "15-Jul-2022 to 31-Dec-2022") are summed under that year; a period is filed under its start year;
 * - a "Total" row is read separately and never counted as a year.
 * A run of rows is a table when the text before it names estimated reductions/removals, its years ascend and it is
 * not a row-number column read as values; findEmissionTable picks among the tables (see its options).
 */

export interface EmissionTableRow {
  year: number;
  value: number;
  /** 1-based page where the row starts. */
  page: number;
  /** The row's label as read, e.g. "01-Jan-2023 to 31-Dec-2023". */
  label: string;
}

export interface EmissionTable {
  /** Four-digit year (string key, SPEC 2.2) -> tCO2e. */
  values: Record<string, number>;
  rows: EmissionTableRow[];
  /** Distinct 1-based pages the rows came from, ascending. */
  pages: number[];
  /** The value of the table's own total row, when it has one. */
  total: number | null;
  /** Text just before the first row that identified the table (for logs and tests). */
  header: string;
}

type Kind = 'year' | 'date' | 'fragment' | 'month' | 'connector' | 'number' | 'total' | 'other';

interface Token {
  text: string;
  kind: Kind;
  page: number;
  /** Index of the (content) line the token is on. */
  line: number;
}

interface Row {
  labels: Token[];
  values: number[];
  total: boolean;
  /** Index of the row's first token in the stream. */
  start: number;
  /** Index after the row's last token. */
  end: number;
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
  let t = text.trim();
  let negative = false;
  const paren = /^\((.+)\)$/.exec(t);
  if (paren?.[1] !== undefined) {
    negative = true;
    t = paren[1];
  }
  const sign = /^[-−–]\s?(.+)$/.exec(t);
  if (sign?.[1] !== undefined) {
    negative = !negative;
    t = sign[1];
  }
  // Western (1,234,567) or Indian (12,34,567) grouping, or no grouping; optional decimals.
  if (!/^(\d{1,3}(,\d{3})+|\d{1,3}(,\d{2})*,\d{3}|\d+)(\.\d+)?$/.test(t)) return null;
  const n = Number(t.replace(/,/g, ''));
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
  if (hasDigit(bare) && dateYear(bare) !== null && /^[\w./()–-]+$/.test(bare) && /[-/.()–]|[a-z]/i.test(bare)) {
    return 'date';
  }
  // A date cut by a line break: "15-July-", "31-", "Dec-", "31-Dec-"
  if (FRAGMENT.test(bare) && bare.length > 1) {
    return 'fragment';
  }
  return 'other';
}

/** Lines that repeat across pages (running headers, footers) and bare page numbers are not table content. */
function contentLines(pages: readonly string[]): { text: string; page: number }[] {
  const perPage = pages.map((p) =>
    p
      .split(/\r?\n/)
      .map(oneLine)
      .filter((l) => l.length > 0),
  );
  const seenOn = new Map<string, number>();
  for (const lines of perPage) {
    for (const l of new Set(lines)) seenOn.set(l, (seenOn.get(l) ?? 0) + 1);
  }
  const threshold = Math.max(3, Math.ceil(pages.length * 0.3));
  const out: { text: string; page: number }[] = [];
  perPage.forEach((lines, i) => {
    const page = i + 1;
    lines.forEach((l, j) => {
      const nearEdge = j < 3 || j >= lines.length - 3;
      if (nearEdge && (l === String(page) || /^page \d+( of \d+)?$/i.test(l))) return;
      if (/[a-z]/i.test(l) && (seenOn.get(l) ?? 0) >= threshold) return;
      out.push({ text: l, page });
    });
  });
  return out;
}

const UNITS = /^\(?(tco2e?|tco2-?eq|t|tonnes?|co2e|ha|hectares?)\)?[.,;]?$/i;

/** Exported for tests and diagnostics: the classified token stream the parser reads. */
export function tokenize(pages: readonly string[]): Token[] {
  const raw: { text: string; page: number; line: number }[] = [];
  contentLines(pages).forEach((line, n) => {
    for (const w of line.text.split(' ')) if (w.length > 0) raw.push({ text: w, page: line.page, line: n });
  });
  // Rejoin dates that a narrow table column broke over lines: "15-July-" + "2022", "31-" + "Dec-" + "2022".
  const joined: { text: string; page: number; line: number }[] = [];
  for (const t of raw) {
    const prev = joined[joined.length - 1];
    if (prev && /[A-Za-z\d][-/]$/.test(prev.text) && classify(prev.text) === 'fragment' && /^([A-Za-z]|(19|20)\d{2}\b)/.test(t.text)) {
      prev.text += t.text;
      continue;
    }
    joined.push({ ...t });
  }
  const tokens: Token[] = joined.map((t) => ({ ...t, kind: classify(t.text) }));
  tokens.forEach((t, i) => {
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    // "Total" names a total row only where a row label starts: at the start of a line.
    if (t.kind === 'total' && prev && prev.line === t.line) t.kind = 'other';
    // "28 February 2031": a day of a date (prose or a period label), not a cell.
    if (t.kind === 'number' && next && next.line === t.line && next.kind === 'month' && /^\d{1,2}$/.test(t.text)) {
      t.kind = 'fragment';
    }
    // A number followed by a word on its line is prose or a heading ("5 MONITORING", "1,200 trees"), not a cell.
    if (
      (t.kind === 'number' || t.kind === 'year') &&
      next &&
      next.line === t.line &&
      next.kind === 'other' &&
      /^[A-Za-z(]/.test(next.text) &&
      !UNITS.test(next.text)
    ) {
      t.kind = 'other';
    }
  });
  return tokens;
}

function rowYear(labels: readonly Token[]): number | null {
  const firstDate = labels.find((t) => t.kind === 'date');
  if (firstDate) return dateYear(firstDate.text);
  const years = labels.filter((t) => t.kind === 'year');
  if (years.length === 0) return null;
  // "2022 - 2023" is a period filed under its start; a lone year before another ("2038 2039") is the tail of a
  // row cut by a page break, so the last year is this row's.
  const connectorAt = labels.findIndex((t) => t.kind === 'connector');
  if (connectorAt > 0) {
    const before = labels.slice(0, connectorAt).filter((t) => t.kind === 'year');
    const last = before[before.length - 1];
    if (last) return Number(last.text.slice(0, 4));
  }
  const last = years[years.length - 1];
  return last ? Number(last.text.slice(0, 4)) : null;
}

function mode(values: number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = 0;
  let bestCount = 0;
  for (const [v, c] of counts) if (c > bestCount || (c === bestCount && v > best)) [best, bestCount] = [v, c];
  return best;
}

/** Splits the token stream into candidate rows (label with a year + quantities, or a total row). */
function readRows(tokens: readonly Token[]): Row[] {
  const rows: Row[] = [];
  let labels: Token[] = [];
  let labelStart = 0;
  let values: number[] = [];
  let total = false;
  let end = 0;

  const finish = () => {
    if (values.length > 0 && (total || rowYear(labels) !== null)) {
      rows.push({ labels, values, total, start: labelStart, end });
    }
    labels = [];
    values = [];
    total = false;
  };
  const startLabel = (t: Token, i: number) => {
    labels = [t];
    labelStart = i;
    total = t.kind === 'total';
  };
  /** Column count of the table being read: rows just before this one, with no gap between them. */
  const columns = () => {
    const counts: number[] = [];
    let next = labelStart;
    for (let k = rows.length - 1; k >= 0 && counts.length < 6; k--) {
      const r = rows[k];
      if (!r || next - r.end > ROW_GAP_TOKENS) break;
      if (!r.total) counts.push(r.values.length);
      next = r.start;
    }
    return counts.length === 0 ? 0 : mode(counts);
  };

  tokens.forEach((t, i) => {
    const bare = bareText(t.text);
    if (values.length === 0) {
      if (total) {
        end = i + 1;
        if (t.kind === 'number' || t.kind === 'year') {
          values.push(parseQuantity(bare) ?? 0);
          return;
        }
        if (t.kind === 'other' && labels.length < 14) {
          labels.push(t);
          return;
        }
        total = false;
        labels = [];
        if (t.kind !== 'other') {
          labels = [t];
          labelStart = i;
          total = t.kind === 'total';
        }
        return;
      }
      const labelKinds: Kind[] = ['year', 'date', 'fragment', 'month', 'connector'];
      if (labelKinds.includes(t.kind)) {
        if (labels.length === 0) labelStart = i;
        labels.push(t);
      } else if (t.kind === 'number' && labels.some((l) => l.kind === 'year' || l.kind === 'date')) {
        values.push(parseQuantity(bare) ?? 0);
      } else if (t.kind === 'total') {
        startLabel(t, i);
      } else {
        labels = [];
      }
      end = i + 1;
      return;
    }
    // Reading quantities of a row.
    if (t.kind === 'number') {
      values.push(parseQuantity(bare) ?? 0);
      end = i + 1;
      return;
    }
    if (t.kind === 'year' && !total && values.length < columns()) {
      // A bare number such as 2000 in a row that is still short of the table's column count is a value.
      values.push(Number(bare));
      end = i + 1;
      return;
    }
    finish();
    if (t.kind === 'other') return;
    if (t.kind === 'total' || ['year', 'date', 'fragment', 'month', 'connector'].includes(t.kind)) startLabel(t, i);
  });
  finish();
  return rows;
}

interface Run {
  rows: Row[];
}

/** Consecutive rows with little text between them (a footnote, a "Table continued" line) form one run. */
function groupRuns(rows: readonly Row[], maxGapTokens = ROW_GAP_TOKENS): Run[] {
  const runs: Run[] = [];
  let current: Row[] = [];
  for (const r of rows) {
    const prev = current[current.length - 1];
    if (prev && r.start - prev.end > maxGapTokens) {
      runs.push({ rows: current });
      current = [];
    }
    current.push(r);
    if (r.total) {
      // A total row closes its table.
      runs.push({ rows: current });
      current = [];
    }
  }
  if (current.length > 0) runs.push({ rows: current });
  return runs;
}

const HEADER_WORDS = {
  estimate: /estimat|ex[- ]ante|expected|projected|annual/i,
  reduction: /reduction|removal|vcus?\b|vers?\b|cers?\b|credits|sequestration|issuance/i,
  unit: /tco2|tonnes|t ?co2|co2 ?e/i,
};

function headerText(tokens: readonly Token[], run: Run, window = 80): string {
  const first = run.rows[0];
  if (!first) return '';
  const from = Math.max(0, first.start - window);
  return tokens
    .slice(from, first.start)
    .map((t) => t.text)
    .join(' ');
}

export interface FindEmissionTableOptions {
  /**
   * The registry's estimated annual reductions. A VCS PD v4.4 holds two such tables: section 1.11 per calendar
   * year (the estimate the registry publishes as its annual figure) and section 4.4 per vintage with baseline,
   * project, leakage and buffer columns (net issuance). When several tables qualify, the one whose mean yearly
   * value is closest to this estimate wins; without it, the one with the most rows, then the first.
   */
  annualEstimate?: number;
}

/** A header word naming a cumulative column, and the words of a table's label column (the columns follow them). */
const CUMULATIVE = /^(cumulative|accumulated)\b/i;
const LABEL_COLUMN = new Set(['year', 'years', 'vintage', 'vintages', 'period', 'periods', 'calendar']);

/** Whether `sums` is the running sum of `cells`, row by row (to the unit: cells may be rounded). */
function isRunningSum(cells: number[], sums: number[]): boolean {
  let total = 0;
  for (let i = 0; i < cells.length; i++) {
    total += cells[i] ?? 0;
    const sum = sums[i] ?? NaN;
    if (!(Math.abs(sum - total) <= Math.max(1, Math.abs(total) * 1e-4))) return false;
  }
  return true;
}

/**
 * Which quantity of a row is its year's value, counted from the row's end (0: the last). The last one, unless the
 * column names after the header's label column ("Year", "Vintage period") include a cumulative column, whose cells
 * are whole-period totals: then the column that the cumulative one is the running sum of (the net or annual
 * reductions or removals beside it), else, when the cumulative column is named last, the column before it.
 */
function yearlyColumn(header: string, rows: readonly Row[]): number {
  const words = header.split(/\s+/).filter((w) => w.length > 0);
  let labelAt = -1;
  words.forEach((w, i) => {
    if (LABEL_COLUMN.has(w.toLowerCase())) labelAt = i;
  });
  const columns = words.slice(labelAt + 1).filter((w) => !/^\(?(tco2e?|tco2-?eq|t|co2e?)\)?[.,;:]?$/i.test(w));
  if (!columns.some((w) => CUMULATIVE.test(w))) return 0;
  const width = Math.min(...rows.map((r) => r.values.length));
  if (!(width >= 2)) return 0;
  const column = (fromEnd: number): number[] => rows.map((r) => r.values[r.values.length - 1 - fromEnd] ?? NaN);
  for (let cumulative = 0; cumulative < width; cumulative++) {
    for (let yearly = 0; yearly < width; yearly++) {
      if (yearly !== cumulative && isRunningSum(column(yearly), column(cumulative))) return yearly;
    }
  }
  const last = columns[columns.length - 1];
  return last !== undefined && CUMULATIVE.test(last) ? 1 : 0;
}

function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Every emission-reduction table found in a document, in document order. `pages[0]` is page 1. */
export function findEmissionTables(pages: readonly string[]): EmissionTable[] {
  const tokens = tokenize(pages);
  const runs = groupRuns(readRows(tokens));
  const tables: EmissionTable[] = [];
  for (const run of runs) {
    const yearRows = run.rows.filter((r) => !r.total);
    const header = headerText(tokens, run);
    if (yearRows.length < 2) continue;
    if (!HEADER_WORDS.estimate.test(header) || !HEADER_WORDS.reduction.test(header)) continue;
    const rows: EmissionTableRow[] = [];
    const fromEnd = yearlyColumn(header, yearRows);
    for (const r of yearRows) {
      const year = rowYear(r.labels);
      const value = r.values[r.values.length - 1 - fromEnd];
      const firstLabel = r.labels[0];
      if (year === null || value === undefined || !firstLabel) continue;
      rows.push({ year, value, page: firstLabel.page, label: r.labels.map((l) => l.text).join(' ') });
    }
    if (new Set(rows.map((r) => r.year)).size < 2) continue;
    // Years of a real table ascend; a run whose years jump around is prose or an index.
    let ascending = 0;
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1];
      const b = rows[i];
      if (a && b && b.year >= a.year) ascending++;
    }
    if (ascending < (rows.length - 1) * 0.8) continue;
    // A "No. | Year | ..." table read wrongly yields the next row's number as each value: 2, 3, 4...
    let counting = 0;
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1];
      const b = rows[i];
      if (a && b && b.value - a.value === 1 && Math.abs(b.value) < 1000) counting++;
    }
    if (counting >= (rows.length - 1) * 0.6) continue;
    const values: Record<string, number> = {};
    for (const r of rows) values[String(r.year)] = roundSum((values[String(r.year)] ?? 0) + r.value);
    const totalRow = run.rows.find((r) => r.total);
    const total = totalRow
      ? (totalRow.values[totalRow.values.length - 1 - fromEnd] ?? totalRow.values[totalRow.values.length - 1] ?? null)
      : null;
    tables.push({
      values,
      rows,
      pages: [...new Set(rows.map((r) => r.page))].sort((a, b) => a - b),
      total,
      header,
    });
  }
  return tables;
}

/** The emission-reduction table of a document, or null when none is found. `pages[0]` is page 1. */
export function findEmissionTable(pages: readonly string[], opts: FindEmissionTableOptions = {}): EmissionTable | null {
  const tables = findEmissionTables(pages);
  let best: EmissionTable | null = null;
  let bestKey: [number, number] = [Infinity, 0];
  const estimate = opts.annualEstimate;
  for (const t of tables) {
    const miss =
      estimate !== undefined && Number.isFinite(estimate) && estimate > 0
        ? Math.abs(mean(Object.values(t.values)) - estimate) / estimate
        : 0;
    // Lower miss first, then more rows; strict comparison keeps the first of equals.
    if (miss < bestKey[0] || (miss === bestKey[0] && t.rows.length > bestKey[1])) {
      best = t;
      bestKey = [miss, t.rows.length];
    }
  }
  return best;
}

/** Sums of decimal cells ("12.1" + "0.2") are kept free of binary noise. */
function roundSum(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

/** Sum of the table's yearly values (to compare with its total row). */
export function tableSum(table: EmissionTable): number {
  return roundSum(Object.values(table.values).reduce((a, b) => a + b, 0));
}
