import type { CountryLookup } from '../country-lookup.js';
import type { CreditPeriod } from '../credit-period.js';
import { countryNameForCode, countryNamed, isCountryCodeShape } from '../countries.js';
import { type CalendarDate, dayNumber, formatDayMonthYear, isValidDate, parseIsoDate, parseRegistryNumber } from '../registry-values.js';
import { squashSpaces } from '../text.js';

/** One row of a registry's CSV export, keyed by its header (trimmed). Stored as-is as the project's raw record. */
export type ExportRow = Record<string, string>;

/** What a registry export row gives towards the cleaned record; the rest gets the documented fallbacks. */
export interface ExportFields {
  name: string;
  description: string;
  /** Country name, '' when unknown. */
  location: string;
  methodology: string;
  proponent: string;
  reductions: number;
  /** dd/mm/yyyy or null. */
  registration: string | null;
  status: string;
  type: string;
  creditPeriods: CreditPeriod[];
  sizeHectares: number;
  /** Totals the export itself carries (ACR, CAR, Isometric); undefined when it has no such column. */
  issuances?: number;
  retirements?: number;
  /** Activity descriptions the row names (project type, AFOLU activities, pathway...). */
  reductionActivity: string[];
}

/** The mapping of one registry's project export to the cleaned record (docs/registry-exports.md tabulates them). */
export interface RegistryExportMapping {
  /** Record format suffix: rows are stored as `csv:<source>`; also the folder name under registry-exports/. */
  source: string;
  /** Canonical registry name (src/domain/registries.ts). */
  registry: string;
  /** Column holding the registry's project id. */
  idColumn: string;
  /** Columns a file must have to be read with this mapping. */
  requiredColumns: readonly string[];
  /** The numeric project id of a row, or null when the row has none (reported, never guessed). */
  projectId(row: ExportRow): number | null;
  fields(row: ExportRow, countries: CountryLookup): ExportFields;
}

/** A cell by column name; headers are matched ignoring surrounding spaces ("Total ... Registered " in ACR). */
export function cell(row: ExportRow, column: string): string {
  let v: unknown = row[column];
  if (v === undefined) {
    const key = Object.keys(row).find((k) => k.trim() === column);
    v = key === undefined ? undefined : row[key];
  }
  return typeof v === 'string' ? v.trim() : '';
}

/** "ACR586", "CAR1957", "GS1234", "VCS 4086", "1340", "11191.0" -> the number; null otherwise. */
export function numericProjectId(value: string): number | null {
  const m = /^(?:[A-Za-z]{2,4}[-\s]?)?(\d+)(?:\.0+)?$/.exec(value.trim());
  if (!m?.[1]) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** A number cell ("56,373", "550369.0", ""); 0 when empty or unreadable. */
export function numberCell(row: ExportRow, column: string): number {
  return parseRegistryNumber(cell(row, column)) ?? 0;
}

/** An optional number cell: undefined when the cell is empty or unreadable. */
export function optionalNumberCell(row: ExportRow, column: string): number | undefined {
  const v = cell(row, column);
  if (v === '') return undefined;
  return parseRegistryNumber(v) ?? undefined;
}

/** US-style m/d/yyyy (ACR, CAR), optionally followed by a time ("1/21/2022 6:27:06 PM"). */
export function parseUsDate(value: string): CalendarDate | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s.*)?$/.exec(value.trim());
  if (!m) return null;
  const d = { month: Number(m[1]), day: Number(m[2]), year: Number(m[3]) };
  return isValidDate(d) ? d : null;
}

export function formatDate(d: CalendarDate | null): string | null {
  return d ? formatDayMonthYear(d) : null;
}

export function period(start: CalendarDate | null, end: CalendarDate | null): CreditPeriod[] {
  return start && end && dayNumber(end) >= dayNumber(start) ? [{ start, end }] : [];
}

export function isoPeriod(row: ExportRow, startColumn: string, endColumn: string): CreditPeriod[] {
  return period(parseIsoDate(cell(row, startColumn)), parseIsoDate(cell(row, endColumn)));
}

/** A country cell holding a name or an ISO alpha-2 code ("US"); the short English name, else the cell as written. */
export function countryCell(value: string): string {
  const v = value.trim();
  if (v === '') return '';
  if (isCountryCodeShape(v)) return countryNameForCode(v) ?? v;
  return countryNamed(v) ?? v;
}

/** "under_validation" -> "Under validation", "biochar-process" -> "Biochar process". */
export function humanize(value: string): string {
  const words = squashSpaces(value.trim().replace(/[_-]+/g, ' '));
  return words === '' ? '' : words.charAt(0).toUpperCase() + words.slice(1);
}

export { distinct } from '../enrichment.js';
