import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import { parseQuantity } from '../src/domain/emission-table.js';
import type { Logger } from '../src/logger.js';
import type { RecordStore } from '../src/ports/record-store.js';

/**
 * Issuance data from a registry's credit export -> per-project totals -> `metadata.issuances` / `retirements`
 * (through RecordStore.updateEnrichment).
 *
 * Verra transactions export (registry-exports/verra/transactions.csv): one row per block of VCU serial numbers.
 * The export has no transaction-type column, so rows are told apart by `Retirement/Cancellation Date`:
 * - a row with that date is a retired (or cancelled: the export does not distinguish them) block, and its
 *   `Quantity Issued` counts towards `retirements`;
 * - every row belongs to a vintage issuance whose size is `Total Vintage Quantity`, repeated on each block of that
 *   vintage (Verra issues and splits vintages in blocks). `issuances` is the sum of `Total Vintage Quantity` over the
 *   distinct (project, vintage start, vintage end, total vintage quantity) combinations, so a vintage split into 56
 *   blocks counts once, and blocks missing from a partial export do not shrink it.
 * Gold Standard issuances export (registry-exports/gold-standard/issuances.csv): one row per issuance with
 * `Credit Status`, `Quantity` and `GSID`. Rows whose status is `Retired` count towards retirements, every other
 * row (`Issued`) towards issuances; when a file holds no retired row for a project its retirements are left as
 * they were (the issuances export does not say).
 *
 * An import replaces the totals of every project it names (never adds to them): re-importing the same or a newer
 * export cannot double count. A file must therefore hold a project's complete history.
 */

export type TransactionFormat = 'verra' | 'gold-standard';

export interface ProjectTotals {
  issuances: number;
  /** Undefined when the file cannot tell (Gold Standard issuances export without retired rows). */
  retirements?: number;
  rows: number;
}

export interface TransactionRowError {
  /** `file:line` of the CSV record. */
  source: string;
  projectId: number | null;
  error: string;
}

export interface TransactionTotals {
  format: TransactionFormat;
  registry: string;
  totals: Map<number, ProjectTotals>;
  rows: number;
  errors: TransactionRowError[];
}

const VERRA_COLUMNS = ['ID', 'Quantity Issued', 'Total Vintage Quantity', 'Retirement/Cancellation Date'] as const;
const GS_COLUMNS = ['GSID', 'Quantity', 'Credit Status'] as const;

export function detectTransactionFormat(columns: readonly string[]): TransactionFormat | null {
  const has = (c: string) => columns.some((x) => x.trim() === c);
  if (VERRA_COLUMNS.every(has)) return 'verra';
  if (GS_COLUMNS.every(has)) return 'gold-standard';
  return null;
}

/** "1340", "VCS1340", "GS11236", "11191.0" -> the numeric project id; null otherwise. */
export function exportProjectId(value: string | undefined): number | null {
  const m = /^(?:[A-Za-z]{2,4}[-\s]?)?(\d+)(?:\.0+)?$/.exec((value ?? '').trim());
  if (!m?.[1]) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function cell(row: Record<string, string>, column: string): string {
  return (row[column] ?? '').trim();
}

/** Accumulates totals row by row, so a registry-wide export never has to be held in memory. */
export function createTotalsAccumulator(format: TransactionFormat): {
  add(source: string, row: Record<string, string>): void;
  result(): TransactionTotals;
} {
  const registry = format === 'verra' ? 'Verra' : 'Gold Standard';
  const totals = new Map<number, ProjectTotals>();
  const errors: TransactionRowError[] = [];
  const vintagesSeen = new Set<string>();
  let count = 0;
  const totalsOf = (id: number): ProjectTotals => {
    let t = totals.get(id);
    if (!t) {
      t = { issuances: 0, rows: 0 };
      totals.set(id, t);
    }
    return t;
  };
  const add = (source: string, row: Record<string, string>): void => {
    count++;
    const idCell = cell(row, format === 'verra' ? 'ID' : 'GSID');
    const id = exportProjectId(idCell);
    if (id === null) {
      errors.push({ source, projectId: null, error: `project id ${JSON.stringify(idCell)} is not a positive integer` });
      return;
    }
    if (format === 'verra') {
      const quantityCell = cell(row, 'Quantity Issued');
      const vintageCell = cell(row, 'Total Vintage Quantity');
      const quantity = parseQuantity(quantityCell);
      const vintageTotal = parseQuantity(vintageCell);
      if (quantity === null || quantity < 0) {
        errors.push({ source, projectId: id, error: `Quantity Issued ${JSON.stringify(quantityCell)} is not a quantity` });
        return;
      }
      if (vintageTotal === null || vintageTotal < 0) {
        errors.push({ source, projectId: id, error: `Total Vintage Quantity ${JSON.stringify(vintageCell)} is not a quantity` });
        return;
      }
      const t = totalsOf(id);
      t.rows++;
      const vintageKey = [id, cell(row, 'Vintage Start'), cell(row, 'Vintage End'), vintageTotal].join('|');
      if (!vintagesSeen.has(vintageKey)) {
        vintagesSeen.add(vintageKey);
        t.issuances += vintageTotal;
      }
      if (cell(row, 'Retirement/Cancellation Date') !== '') t.retirements = (t.retirements ?? 0) + quantity;
      else t.retirements ??= 0;
      return;
    }
    const quantityCell = cell(row, 'Quantity');
    const quantity = parseQuantity(quantityCell);
    if (quantity === null || quantity < 0) {
      errors.push({ source, projectId: id, error: `Quantity ${JSON.stringify(quantityCell)} is not a quantity` });
      return;
    }
    const t = totalsOf(id);
    t.rows++;
    if (/^retired$/i.test(cell(row, 'Credit Status'))) t.retirements = (t.retirements ?? 0) + quantity;
    else t.issuances += quantity;
  };
  return { add, result: () => ({ format, registry, totals, rows: count, errors }) };
}

/** Rows -> totals; pure, so the rules above are testable without files or stores. */
export function totalsFromRows(
  format: TransactionFormat,
  rows: Iterable<{ source: string; row: Record<string, string> }>,
): TransactionTotals {
  const acc = createTotalsAccumulator(format);
  for (const { source, row } of rows) acc.add(source, row);
  return acc.result();
}

/** Reads a transactions CSV (streamed: full registry exports run to hundreds of MB) into per-project totals. */
export async function readTransactionTotals(file: string): Promise<TransactionTotals> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
  } catch (err) {
    throw new Error(`transactions file not readable: ${file} (${(err as Error).message})`);
  }
  let format: TransactionFormat | null = null;
  const parser = createReadStream(file).pipe(
    parse({
      bom: true,
      columns: (header: string[]) => {
        format = detectTransactionFormat(header);
        if (!format) {
          throw new Error(
            `${file}: not a known transactions export; expected the Verra columns (${VERRA_COLUMNS.join(', ')}) or ` +
              `the Gold Standard columns (${GS_COLUMNS.join(', ')}), got: ${header.join(', ')}`,
          );
        }
        return header.map((h) => h.trim());
      },
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }),
  );
  let acc: ReturnType<typeof createTotalsAccumulator> | null = null;
  try {
    for await (const rec of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      // The header callback has run by the first record, so the format is known.
      acc ??= createTotalsAccumulator(format ?? 'verra');
      acc.add(`${file}:${rec.info.lines}`, rec.record);
    }
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(message.startsWith(file) ? message : `${file}: unreadable CSV: ${message}`, { cause: err });
  }
  if (!format) throw new Error(`${file}: empty file, no header row`);
  return (acc ?? createTotalsAccumulator(format)).result();
}

export interface ImportTransactionsResult {
  format: TransactionFormat;
  registry: string;
  rows: number;
  /** Projects whose totals were written. */
  updated: number;
  /** Projects named in the file that the record store does not hold (their totals were not stored). */
  unknownProjects: number[];
  /** Projects left unchanged because one of their rows could not be read (their totals would be wrong). */
  skippedProjects: number[];
  errors: TransactionRowError[];
}

/**
 * Imports a transactions export: totals are computed per project and written over the previous ones. Projects with
 * an unreadable row keep their previous totals and are reported; projects the store does not hold are reported
 * (import their records first, then run this again).
 */
export async function importTransactions(
  store: RecordStore,
  file: string,
  opts: { logger?: Logger } = {},
): Promise<ImportTransactionsResult> {
  const log = opts.logger;
  const totals = await readTransactionTotals(file);
  const broken = new Set(totals.errors.map((e) => e.projectId).filter((id): id is number => id !== null));
  const ids = [...totals.totals.keys()].filter((id) => !broken.has(id)).sort((a, b) => a - b);
  const refs: ProjectRef[] = ids.map((projectId) => ({ registry: totals.registry, projectId }));
  const stored = refs.length > 0 ? await store.getMany(refs) : new Map();
  const result: ImportTransactionsResult = {
    format: totals.format,
    registry: totals.registry,
    rows: totals.rows,
    updated: 0,
    unknownProjects: [],
    skippedProjects: [...broken].sort((a, b) => a - b),
    errors: totals.errors,
  };
  for (const ref of refs) {
    if (!stored.has(projectKey(ref))) {
      result.unknownProjects.push(ref.projectId);
      continue;
    }
    const t = totals.totals.get(ref.projectId);
    if (!t) continue;
    await store.updateEnrichment(ref, {
      issuances: t.issuances,
      ...(t.retirements !== undefined ? { retirements: t.retirements } : {}),
    });
    result.updated++;
  }
  for (const e of totals.errors) log?.warn({ source: e.source, projectId: e.projectId }, `transaction row not read: ${e.error}`);
  if (result.unknownProjects.length > 0) {
    log?.warn(
      { registry: totals.registry, count: result.unknownProjects.length, first: result.unknownProjects.slice(0, 10) },
      'transactions name projects the record store does not hold; import their records, then import the transactions again',
    );
  }
  log?.info(
    {
      file,
      format: result.format,
      rows: result.rows,
      updated: result.updated,
      unknown: result.unknownProjects.length,
      skipped: result.skippedProjects.length,
    },
    'transactions imported',
  );
  return result;
}
