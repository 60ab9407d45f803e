import { describe, expect, it } from 'vitest';
import { cell, countryCell, humanize, numberCell, numericProjectId, datePeriod } from '../../../src/domain/registry-exports/common.js';
import { parseUsDate } from '../../../src/domain/registry-values.js';

describe('export cells', () => {
  it('finds a column whose header has stray spaces, trims the value, and reads a missing one as empty', () => {
    const row = { 'Total Number of Credits Registered ': ' 71825.0 ', Name: 'x' };
    expect(cell(row, 'Total Number of Credits Registered')).toBe('71825.0');
    expect(cell(row, 'Missing')).toBe('');
    expect(numberCell(row, 'Total Number of Credits Registered')).toBe(71825);
    expect(numberCell(row, 'Name')).toBeUndefined();
    expect(numberCell(row, 'Missing')).toBeUndefined();
  });

  it.each([
    ['ACR586', 586],
    ['CAR 1460', 1460],
    ['12856.0', 12856],
    ['VCS-1', 1],
    ['0', null],
    ['ACR', null],
    ['12a', null],
    ['99999999999999999999', null],
  ])('reads the project id %j as %j', (value, id) => {
    expect(numericProjectId(value)).toBe(id);
  });

  it('reads US dates, with or without a time, and refuses impossible ones', () => {
    expect(parseUsDate('1/21/2022 6:27:06 PM')).toEqual({ year: 2022, month: 1, day: 21 });
    expect(parseUsDate('04/05/2024')).toEqual({ year: 2024, month: 4, day: 5 });
    expect(parseUsDate('2/30/2024')).toBeNull();
    expect(parseUsDate('2024-04-05')).toBeNull();
  });

  it('makes a crediting period only from two dates in order', () => {
    const a = { year: 2020, month: 1, day: 15 };
    const b = { year: 2040, month: 1, day: 14 };
    const row = { start: '2020-01-15', end: '2040-01-14', us: '1/14/2040', none: '' };
    expect(datePeriod(row, 'start', 'end')).toEqual([{ start: a, end: b }]);
    expect(datePeriod(row, 'start', 'us', parseUsDate)).toEqual([]);
    expect(datePeriod(row, 'end', 'start')).toEqual([]);
    expect(datePeriod(row, 'start', 'none')).toEqual([]);
  });

  it('names a country from its code or its spelling, and keeps what it does not know', () => {
    expect(countryCell('US')).toBe('United States');
    expect(countryCell('UK')).toBe('United Kingdom');
    expect(countryCell('')).toBe('');
    expect(countryCell('Atlantis')).toBe('Atlantis');
  });

  it('humanises snake_case and kebab-case values', () => {
    expect(humanize('under_validation')).toBe('Under validation');
    expect(humanize('biochar-process')).toBe('Biochar process');
    expect(humanize('  ')).toBe('');
  });
});
