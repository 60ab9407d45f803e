import { describe, expect, it } from 'vitest';
import {
  countDigits,
  countLetters,
  distinctBy,
  endsClause,
  figuresIn,
  hasDigit,
  hasLetter,
  oneLine,
  squashSpaces,
  wordRuns,
} from '../../src/domain/text.js';

describe('squashSpaces and oneLine', () => {
  it('make each run of whitespace, line breaks and tabs included, one space; oneLine alone trims the ends', () => {
    const text = '  Crediting\tperiod:\n\n 20   years \r\n';
    expect(squashSpaces(text)).toBe(' Crediting period: 20 years ');
    expect(oneLine(text)).toBe('Crediting period: 20 years');
    expect(oneLine('\n \t')).toBe('');
    expect(squashSpaces('one two')).toBe('one two');
  });
});

describe('letters and digits', () => {
  it('sees letters of any script, and counts them', () => {
    expect(hasLetter('12.5 %')).toBe(false);
    expect(hasLetter('12.5 ha')).toBe(true);
    expect(hasLetter('— 森林 —')).toBe(true);
    expect(countLetters('CO2e: 27,769 t')).toBe(4);
    expect(countLetters('Ñandú, 森林')).toBe(7);
    expect(countLetters('')).toBe(0);
  });

  it('counts digits and numerals of any script', () => {
    expect(countDigits('CO2e: 27,769 t')).toBe(6);
    expect(countDigits('٢٠٢٢ and ½')).toBe(5);
    expect(countDigits('Total')).toBe(0);
  });

  it('sees a decimal digit', () => {
    expect(hasDigit('VM0047')).toBe(true);
    expect(hasDigit('twenty years')).toBe(false);
  });
});

describe('endsClause', () => {
  it("is true for a sentence's or a clause's closing punctuation at the very end only", () => {
    for (const end of ['.', '!', '?', ';', ':', ',']) expect(endsClause(`The period is 20 years${end}`), end).toBe(true);
    expect(endsClause('The period is 20 years')).toBe(false);
    expect(endsClause('The period is 20 years. ')).toBe(false);
    expect(endsClause('Table 3 (continued)')).toBe(false);
  });
});

describe('wordRuns', () => {
  it('gives the runs of letters and digits as written, punctuation and spaces dropped', () => {
    expect(wordRuns('VM0047, v1.0: 3 m x 3 m (Purulia)')).toEqual(['VM0047', 'v1', '0', '3', 'm', 'x', '3', 'm', 'Purulia']);
    expect(wordRuns('São Félix do Xingu')).toEqual(['São', 'Félix', 'do', 'Xingu']);
    expect(wordRuns(' -- ')).toEqual([]);
  });
});

describe('figuresIn', () => {
  it('gives the figures as written, in order, without the separators that end a sentence or a list', () => {
    expect(figuresIn('Reductions were 27,769 tCO2e in 2021, and 12.5 percent more in 2022.')).toEqual([
      '27,769',
      '2',
      '2021',
      '12.5',
      '2022',
    ]);
    expect(figuresIn('from 15/07/2022 to 14/07/2042.')).toEqual(['15', '07', '2022', '14', '07', '2042']);
    expect(figuresIn('1,111 trees, 3.')).toEqual(['1,111', '3']);
    expect(figuresIn('no figures')).toEqual([]);
  });
});

describe('distinctBy', () => {
  it('keeps the first item of each key, in order', () => {
    expect(distinctBy(['Verra', 'GS', 'verra', 'ACR', 'gs'], (s) => s.toLowerCase())).toEqual(['Verra', 'GS', 'ACR']);
    expect(distinctBy([], String)).toEqual([]);
  });
});
