/**
 * Parsing of the string values registries put in raw attributes (SPEC 2.5: numbers and units travel inside
 * strings). Every function here is total: odd input gives null, never an exception, so that a cleaned record
 * can always be derived.
 */

/** A calendar date without time or zone; month 1-12. */
export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

/**
 * Years outside this range are treated as typing errors: a date in year 20 or 9999 would otherwise spread
 * emission reductions over thousands of years.
 */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2200;

/**
 * A number written by a registry: "59906", " 59,906 ", "1,950.5 Hectares", "-12.5", "12,5" (a lone comma not
 * followed by exactly three digits is a decimal comma). Leading text is not skipped: "about 5" is null.
 */
export function parseRegistryNumber(value: string | undefined | null): number | null {
  if (typeof value !== 'string') return null;
  const text = value.trim().replace(/[\u00a0\u202f]/g, ' ');
  // Groups of three digits after a comma or space are thousands ("59,906"); other digits are read as written.
  const decimalPoint = /^([+-]?)(\d{1,3}(?:[, ]\d{3})+|\d*)(\.\d+)?(?![\d,])/.exec(text);
  const [, sign = '', digits = '', fraction = ''] = decimalPoint ?? [];
  if (digits !== '' || fraction !== '') return finite(`${sign}${digits.replace(/[, ]/g, '')}${fraction}`);
  const decimalComma = /^([+-]?)(\d+),(\d+)(?![\d,.])/.exec(text);
  if (decimalComma) return finite(`${decimalComma[1] ?? ''}${decimalComma[2] ?? ''}.${decimalComma[3] ?? ''}`);
  return null;
}

/** The number a numeral reads as, or null when it is too large to hold. */
function finite(numeral: string): number | null {
  const n = Number(numeral);
  return Number.isFinite(n) ? n : null;
}

const HECTARES_PER_ACRE = 0.40468564224;
/** Units of area as registries write them (lower case); none means hectares. */
const HECTARE_UNITS = new Set(['', 'hectare', 'hectares', 'ha', 'has', 'ha.', 'has.']);
const ACRE_UNITS = new Set(['acre', 'acres', 'ac', 'ac.']);
const SQUARE_KILOMETRES = ['kilometre', 'kilometres', 'kilometer', 'kilometers'].map((w) => `square ${w}`);
const KM2_UNITS = new Set(['km2', 'km²', 'sqkm', 'sq km', 'sq.km', 'sq. km', ...SQUARE_KILOMETRES]);

/**
 * An area in hectares from "6545 Hectares", "1,950.5 ha" or a bare number (hectares assumed). Verra writes
 * hectares; acres and km2 are converted because other registries' exports use them. Null when unparsable,
 * negative or in an unknown unit.
 */
export function parseHectares(value: string | undefined | null): number | null {
  const n = parseRegistryNumber(value);
  if (n === null || n < 0 || typeof value !== 'string') return null;
  const unit = value
    .trim()
    .replace(/^[+-]?[\d.,\s\u00a0\u202f]+/, '')
    .trim()
    .toLowerCase();
  if (HECTARE_UNITS.has(unit)) return n;
  if (ACRE_UNITS.has(unit)) return roundTo(n * HECTARES_PER_ACRE, 2);
  if (KM2_UNITS.has(unit)) return n * 100;
  return null;
}

export function isValidDate(d: CalendarDate): boolean {
  if (!Number.isInteger(d.year) || !Number.isInteger(d.month) || !Number.isInteger(d.day)) return false;
  if (d.year < MIN_YEAR || d.year > MAX_YEAR || d.month < 1 || d.month > 12 || d.day < 1) return false;
  // Date.UTC rolls a day past the month's end over into the next month.
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDate() === d.day;
}

/** A parser of the dates `pattern` matches, read from its groups year, month and day; null for impossible dates. */
function dateParser(pattern: RegExp): (value: string) => CalendarDate | null {
  return (value) => {
    const groups = pattern.exec(value.trim())?.groups;
    const d = { year: Number(groups?.year), month: Number(groups?.month), day: Number(groups?.day) };
    return groups && isValidDate(d) ? d : null;
  };
}

/** dd/mm/yyyy (also d/m/yyyy, with - or . as separator), the registry's form. Null for impossible dates. */
export const parseDayMonthYear = dateParser(/^(?<day>\d{1,2})[/.-](?<month>\d{1,2})[/.-](?<year>\d{4})$/);

/** yyyy-mm-dd, optionally followed by an ISO time ("2023-01-12T06:54:02.97Z"): the calendar date as written. */
export const parseIsoDate = dateParser(/^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/);

/** US-style m/d/yyyy (ACR, CAR exports), optionally followed by a time ("1/21/2022 6:27:06 PM"). */
export const parseUsDate = dateParser(/^(?<month>\d{1,2})\/(?<day>\d{1,2})\/(?<year>\d{4})(?:\s.*)?$/);

/** A registry date in either form; null when it is neither or impossible (31/02/2020). */
export function parseRegistryDate(value: string | undefined | null): CalendarDate | null {
  if (typeof value !== 'string') return null;
  return parseDayMonthYear(value) ?? parseIsoDate(value);
}

/** dd/mm/yyyy, the cleaned record's form; null for no date. */
export function formatDayMonthYear(d: CalendarDate | null): string | null {
  return d && `${String(d.day).padStart(2, '0')}/${String(d.month).padStart(2, '0')}/${String(d.year).padStart(4, '0')}`;
}

/** Days since 1970-01-01 (UTC calendar arithmetic, so no time zone or DST can shift a day). */
export function dayNumber(d: CalendarDate): number {
  return Math.round(Date.UTC(d.year, d.month - 1, d.day) / 86_400_000);
}

export function fromDayNumber(n: number): CalendarDate {
  const date = new Date(n * 86_400_000);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

export function roundTo(n: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(n * f) / f;
}
