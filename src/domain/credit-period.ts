import { type CalendarDate, dayNumber, fromDayNumber, isValidDate, parseRegistryDate, roundTo } from './registry-values.js';

/** One crediting period, both ends inclusive as the registry writes them ("02/03/2020 - 01/03/2030"). */
export interface CreditPeriod {
  start: CalendarDate;
  end: CalendarDate;
}

const DATE = String.raw`(\d{1,2}[/.]\d{1,2}[/.]\d{4}|\d{4}-\d{2}-\d{2})`;
/** A date range anywhere in a value; the ordinal ("1st,", "2nd,") and any other text around it is ignored. */
const RANGE = new RegExp(String.raw`${DATE}\s*(?:-|–|—|to)\s*${DATE}`, 'gi');

/**
 * Every crediting period named in CREDIT_PERIOD_INFO values. A value may hold one period
 * ("1st, 02/03/2020 - 01/03/2030") or several ("1st, ..; 2nd, .."); there may also be one value per period.
 * Ranges with an impossible date or an end before the start are skipped (never thrown).
 */
export function parseCreditPeriods(values: readonly string[]): CreditPeriod[] {
  const ranges = values.filter((value) => typeof value === 'string').flatMap((value) => [...value.matchAll(RANGE)]);
  return ranges.flatMap((m) => periodBetween(parseRegistryDate(m[1]), parseRegistryDate(m[2])));
}

/** The period from `start` to `end`: none unless both are dates and it does not end before it starts. */
export function periodBetween(start: CalendarDate | null, end: CalendarDate | null): CreditPeriod[] {
  return start && end && dayNumber(end) >= dayNumber(start) ? [{ start, end }] : [];
}

/**
 * The periods as disjoint day intervals [startDay, endDayExclusive), sorted. Overlapping or repeated periods
 * (the same period listed under two programs) are merged so that no day counts twice; adjacent periods
 * (1st ends 01/03/2030, 2nd starts 02/03/2030) join into one.
 */
export function mergedDayIntervals(periods: readonly CreditPeriod[]): Array<[number, number]> {
  const intervals = periods
    .filter((p) => isValidDate(p.start) && isValidDate(p.end))
    .map((p): [number, number] => [dayNumber(p.start), dayNumber(p.end) + 1])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [s, e] of intervals) {
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

function addYears(d: CalendarDate, years: number): number {
  // 29 February plus a year lands on 1 March, as Date.UTC does; the period's length is unaffected in practice.
  return Math.round(Date.UTC(d.year + years, d.month - 1, d.day) / 86_400_000);
}

/**
 * Length in whole years of one day interval: complete anniversaries, plus one when the remainder is at least
 * half of the next year. So 02/03/2020 - 01/03/2030 is 10, and a period written one day short of ten years
 * (02/03/2020 - 28/02/2030) is still 10, while 01/01/2020 - 30/04/2020 is 0.
 */
function intervalYears(startDay: number, endExclusive: number): number {
  const start = fromDayNumber(startDay);
  let years = 0;
  while (addYears(start, years + 1) <= endExclusive) years++;
  const anniversary = addYears(start, years);
  const next = addYears(start, years + 1);
  return endExclusive - anniversary >= (next - anniversary) / 2 ? years + 1 : years;
}

/**
 * `Reported Period` (CONTRACT 5): the crediting periods' total length in whole years, each merged stretch
 * rounded on its own; 0 when there is no usable period.
 */
export function reportedPeriodYears(periods: readonly CreditPeriod[]): number {
  return mergedDayIntervals(periods).reduce((total, [s, e]) => total + intervalYears(s, e), 0);
}

/**
 * The annual estimate spread over the calendar years the crediting periods cover (the fallback for
 * `metadata.emissions_reductions`, docs/derived-fields.md): each period year, anniversary to anniversary, gives the
 * estimate, split between the calendar years it straddles by its days in each. Rounded to 2 decimals; empty without
 * a period or with an estimate of 0.
 */
export function spreadAnnualEstimate(annual: number, periods: readonly CreditPeriod[]): Record<string, number> {
  if (!Number.isFinite(annual) || annual === 0) return {};
  const shares = new Map<number, number>();
  for (const [s, e] of mergedDayIntervals(periods)) {
    const start = fromDayNumber(s);
    for (let k = 0; addYears(start, k) < e; k++) {
      const from = addYears(start, k);
      const yearLength = addYears(start, k + 1) - from;
      const to = Math.min(e, from + yearLength);
      // A period year (366 days at most) falls in at most two calendar years: split at the next 1 January.
      const year = fromDayNumber(from).year;
      const split = Math.min(to, dayNumber({ year: year + 1, month: 1, day: 1 }));
      shares.set(year, (shares.get(year) ?? 0) + (annual * (split - from)) / yearLength);
      if (to > split) shares.set(year + 1, (shares.get(year + 1) ?? 0) + (annual * (to - split)) / yearLength);
    }
  }
  return Object.fromEntries([...shares].sort(([a], [b]) => a - b).map(([year, share]) => [String(year), roundTo(share, 2)]));
}
