import { describe, expect, it } from 'vitest';
import { mergedDayIntervals, parseCreditPeriods, reportedPeriodYears, spreadAnnualEstimate } from '../../src/domain/credit-period.js';

const years = (...values: string[]): number => reportedPeriodYears(parseCreditPeriods(values));

describe('parseCreditPeriods', () => {
  it('reads the registry form "1st, dd/mm/yyyy - dd/mm/yyyy"', () => {
    expect(parseCreditPeriods(['1st, 02/03/2020 - 01/03/2030'])).toEqual([
      { start: { year: 2020, month: 3, day: 2 }, end: { year: 2030, month: 3, day: 1 } },
    ]);
  });

  it('reads several periods in one value and across values, with dashes, "to" and ISO dates', () => {
    const periods = parseCreditPeriods(['1st, 01/01/2010 - 31/12/2019; 2nd, 01/01/2020 – 31/12/2029', '3rd, 2030-01-01 to 2039-12-31']);
    expect(periods).toHaveLength(3);
    expect(periods[2]).toEqual({ start: { year: 2030, month: 1, day: 1 }, end: { year: 2039, month: 12, day: 31 } });
  });

  it('skips impossible dates, reversed ranges and text without a range instead of throwing', () => {
    expect(parseCreditPeriods(['1st, 31/02/2020 - 01/03/2030'])).toEqual([]);
    expect(parseCreditPeriods(['1st, 01/03/2030 - 02/03/2020'])).toEqual([]);
    expect(parseCreditPeriods(['1st, 13/13/2020 - 01/01/2030'])).toEqual([]);
    expect(parseCreditPeriods(['to be determined', '', '1st, 02/03/2020'])).toEqual([]);
    expect(parseCreditPeriods(['1st, 01/01/0001 - 31/12/9999'])).toEqual([]);
  });
});

describe('reportedPeriodYears', () => {
  it('counts whole years with both ends inclusive (CONTRACT example: 10)', () => {
    expect(years('1st, 02/03/2020 - 01/03/2030')).toBe(10);
    expect(years('1st, 15/07/2022 - 14/07/2042')).toBe(20);
    expect(years('1st, 01/01/2006 - 31/12/2035')).toBe(30);
    expect(years('1st, 01/01/2004 - 31/12/2010')).toBe(7);
  });

  it('rounds to the nearest whole year: a period a day short is still 10, four months is 0, eight is 1', () => {
    expect(years('1st, 02/03/2020 - 28/02/2030')).toBe(10);
    expect(years('1st, 02/03/2020 - 02/03/2030')).toBe(10);
    expect(years('1st, 01/01/2020 - 30/04/2020')).toBe(0);
    expect(years('1st, 01/01/2020 - 31/08/2020')).toBe(1);
    expect(years('1st, 29/02/2020 - 28/02/2030')).toBe(10);
  });

  it('adds up consecutive crediting periods', () => {
    expect(years('1st, 01/01/2010 - 31/12/2019', '2nd, 01/01/2020 - 31/12/2029')).toBe(20);
    expect(years('1st, 01/01/2000 - 31/12/2006', '2nd, 01/01/2014 - 31/12/2020')).toBe(14);
  });

  it('counts a period repeated under two programs, or overlapping periods, once', () => {
    expect(years('1st, 01/01/2010 - 31/12/2019', '1st, 01/01/2010 - 31/12/2019')).toBe(10);
    expect(years('1st, 01/01/2010 - 31/12/2019', '2nd, 01/01/2015 - 31/12/2024')).toBe(15);
    expect(mergedDayIntervals(parseCreditPeriods(['1st, 01/01/2010 - 31/12/2019', '2nd, 01/01/2020 - 31/12/2029']))).toHaveLength(1);
  });

  it('is 0 when there is no usable period', () => {
    expect(years()).toBe(0);
    expect(years('not a period')).toBe(0);
  });
});

describe('spreadAnnualEstimate', () => {
  it('gives full years the annual estimate and partial years their share of days', () => {
    const spread = spreadAnnualEstimate(59906, parseCreditPeriods(['1st, 02/03/2020 - 01/03/2030']));
    expect(Object.keys(spread)).toEqual(['2020', '2021', '2022', '2023', '2024', '2025', '2026', '2027', '2028', '2029', '2030']);
    expect(spread['2021']).toBe(59906);
    // Each period year (02/03 to 01/03, 365 days) is split at 1 January: 305 days fall in 2020, 60 in 2030.
    expect(spread['2020']).toBeCloseTo((59906 * 305) / 365, 2);
    expect(spread['2030']).toBeCloseTo((59906 * 60) / 365, 2);
    const total = Object.values(spread).reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(599060, 1);
  });

  it('keeps fractional and negative estimates, rounded to 2 decimals', () => {
    const spread = spreadAnnualEstimate(-10.5, parseCreditPeriods(['1st, 01/07/2021 - 30/06/2022']));
    expect(spread['2021']).toBeCloseTo((-10.5 * 184) / 365, 2);
    expect(spread['2022']).toBeCloseTo((-10.5 * 181) / 365, 2);
    expect((spread['2021'] ?? 0) + (spread['2022'] ?? 0)).toBeCloseTo(-10.5, 2);
    expect(Number.isInteger(spread['2021'] ?? 0)).toBe(false);
  });

  it('gives a final partial period year its share of days', () => {
    // 1.5 period years: 01/01/2020 - 30/06/2021; the half year 2021 has 181 of 365 days.
    const spread = spreadAnnualEstimate(1000, parseCreditPeriods(['1st, 01/01/2020 - 30/06/2021']));
    expect(spread['2020']).toBe(1000);
    expect(spread['2021']).toBeCloseTo((1000 * 181) / 365, 2);
  });

  it('covers several periods without counting overlaps twice', () => {
    const spread = spreadAnnualEstimate(100, parseCreditPeriods(['01/01/2010 - 31/12/2011', '01/01/2011 - 31/12/2012']));
    expect(spread).toEqual({ '2010': 100, '2011': 100, '2012': 100 });
  });

  it('is empty with no period, or an estimate of 0 or not a number', () => {
    expect(spreadAnnualEstimate(100, [])).toEqual({});
    expect(spreadAnnualEstimate(0, parseCreditPeriods(['01/01/2010 - 31/12/2011']))).toEqual({});
    expect(spreadAnnualEstimate(Number.NaN, parseCreditPeriods(['01/01/2010 - 31/12/2011']))).toEqual({});
  });
});
