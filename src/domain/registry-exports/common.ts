import type { CountryLookup } from '../country-lookup.js';
import { periodBetween, type CreditPeriod } from '../credit-period.js';
import { countryNameForCode, countryNamed, isCountryCodeShape } from '../countries.js';
import { distinct } from '../enrichment.js';
import { formatDayMonthYear, parseIsoDate, parseRegistryDate, parseRegistryNumber, type CalendarDate } from '../registry-values.js';
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

/** What a mapping reads from a row: at least these fields; exportFields gives the others their fallbacks. */
export type ReadFields = Pick<ExportFields, 'name' | 'location' | 'methodology' | 'proponent' | 'status' | 'type'> & Partial<ExportFields>;

/** The fields few exports carry, at their fallbacks (activities: the project type), under those read from a row. */
export function exportFields(read: ReadFields): ExportFields {
  const fallbacks = { description: '', reductions: 0, registration: null, creditPeriods: [], sizeHectares: 0 };
  // A value a row does not hold (numberCell's undefined) leaves its field out.
  const given = Object.fromEntries(Object.entries(read).filter(([, v]) => v !== undefined)) as ReadFields;
  return { ...fallbacks, reductionActivity: distinct([read.type]), ...given };
}

type MappingSpec = Omit<RegistryExportMapping, 'projectId' | 'fields'> & {
  projectId?: RegistryExportMapping['projectId'];
  fields(row: ExportRow, countries: CountryLookup): ReadFields;
};

/** A mapping whose project id is the number in its id column unless it says otherwise, its fields under exportFields' fallbacks. */
export function exportMapping(spec: MappingSpec): RegistryExportMapping {
  return {
    projectId: (row) => numericProjectId(cell(row, spec.idColumn)),
    ...spec,
    fields: (row, countries) => exportFields(spec.fields(row, countries)),
  };
}

/** A cell by column name; headers are matched ignoring surrounding spaces ("Total ... Registered " in ACR). */
export function cell(row: ExportRow, column: string): string {
  const key = row[column] !== undefined ? column : Object.keys(row).find((k) => k.trim() === column);
  const v: unknown = key === undefined ? undefined : row[key];
  return typeof v === 'string' ? v.trim() : '';
}

/** "ACR586", "CAR1957", "GS1234", "VCS 4086", "1340", "11191.0" -> the number; null otherwise. */
export function numericProjectId(value: string): number | null {
  const m = /^(?:[A-Za-z]{2,4}[-\s]?)?(\d+)(?:\.0+)?$/.exec(value.trim());
  if (!m?.[1]) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** A number cell ("56,373", "550369.0"); undefined when empty or unreadable, so that its field keeps its fallback. */
export function numberCell(row: ExportRow, column: string): number | undefined {
  return parseRegistryNumber(cell(row, column)) ?? undefined;
}

/** A date cell read by `parse` (dd/mm/yyyy or ISO by default), as dd/mm/yyyy; null when it is not a date. */
export function dateCell(row: ExportRow, column: string, parse: (value: string) => CalendarDate | null = parseRegistryDate): string | null {
  return formatDayMonthYear(parse(cell(row, column)));
}

/** The crediting period between two date columns read by `parse`; none unless both are dates, in order. */
export function datePeriod(row: ExportRow, startColumn: string, endColumn: string, parse = parseIsoDate): CreditPeriod[] {
  return periodBetween(parse(cell(row, startColumn)), parse(cell(row, endColumn)));
}

/** A country cell holding a name or an ISO alpha-2 code ("US"); the short English name, else the cell as written. */
export function countryCell(value: string): string {
  const v = value.trim();
  // Two letters that are no ISO code may still be a common name ("UK").
  return (isCountryCodeShape(v) ? countryNameForCode(v) : null) ?? countryNamed(v) ?? v;
}

/** "under_validation" -> "Under validation", "biochar-process" -> "Biochar process". */
export function humanize(value: string): string {
  const words = squashSpaces(value.trim().replace(/[_-]+/g, ' '));
  return words === '' ? '' : words.charAt(0).toUpperCase() + words.slice(1);
}
