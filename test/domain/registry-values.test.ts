import { describe, expect, it } from 'vitest';
import { formatDayMonthYear, parseHectares, parseRegistryDate, parseRegistryNumber } from '../../src/domain/registry-values.js';

describe('parseRegistryNumber', () => {
  it.each([
    ['59906', 59906],
    [' 59906 ', 59906],
    ['59,906', 59906],
    ['1,234,567', 1234567],
    ['1,950.5 Hectares', 1950.5],
    ['18069.25', 18069.25],
    ['-12.5', -12.5],
    ['+7', 7],
    ['12,5', 12.5],
    ['0', 0],
    ['26752 tCO2e', 26752],
  ])('reads %j as %d', (text, expected) => {
    expect(parseRegistryNumber(text)).toBe(expected);
  });

  it.each([[''], ['n/a'], ['about 5'], ['-'], ['.'], [' tCO2e']])('gives null for %j', (text) => {
    expect(parseRegistryNumber(text)).toBeNull();
  });

  it('gives null for a missing value', () => {
    expect(parseRegistryNumber(undefined)).toBeNull();
    expect(parseRegistryNumber(null)).toBeNull();
  });
});

describe('parseHectares', () => {
  it.each([
    ['6545 Hectares', 6545],
    ['1,950.5 Hectares', 1950.5],
    ['1950 hectare', 1950],
    ['12 ha', 12],
    ['300', 300],
    ['100 acres', 40.47],
    ['2 km2', 200],
  ])('reads %j as %d ha', (text, expected) => {
    expect(parseHectares(text)).toBe(expected);
  });

  it.each([['unknown'], ['-5 Hectares'], ['5 parsecs'], ['']])('gives null for %j', (text) => {
    expect(parseHectares(text)).toBeNull();
  });
});

describe('parseRegistryDate and formatDayMonthYear', () => {
  it('reads dd/mm/yyyy and normalises single digits', () => {
    expect(parseRegistryDate('08/03/2005')).toEqual({ year: 2005, month: 3, day: 8 });
    expect(formatDayMonthYear(parseRegistryDate('8/3/2005') ?? { year: 0, month: 0, day: 0 })).toBe('08/03/2005');
  });

  it('reads ISO dates and timestamps as the calendar date written', () => {
    expect(parseRegistryDate('2023-01-12T06:54:02.97Z')).toEqual({ year: 2023, month: 1, day: 12 });
    expect(parseRegistryDate('2005-03-08')).toEqual({ year: 2005, month: 3, day: 8 });
  });

  it.each([['31/02/2020'], ['29/02/2021'], ['00/01/2020'], ['01/13/2020'], ['yesterday'], [''], ['01/01/0020']])(
    'gives null for %j',
    (text) => {
      expect(parseRegistryDate(text)).toBeNull();
    },
  );

  it('accepts 29 February in a leap year', () => {
    expect(parseRegistryDate('29/02/2024')).toEqual({ year: 2024, month: 2, day: 29 });
  });
});
