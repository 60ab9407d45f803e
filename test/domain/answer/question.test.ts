import { describe, expect, it } from 'vitest';
import { analyseQuestion, termsOf, unitTerms } from '../../../src/domain/answer/question.js';

describe('termsOf', () => {
  it('keeps a compound whole and as its parts, so "HFC-23" meets "HFC 23"', () => {
    const terms = termsOf('HFC-23 destruction');
    expect(terms).toEqual(expect.arrayContaining(termsOf('HFC 23')));
    expect(terms.length).toBeGreaterThan(termsOf('HFC 23 destruction').length);
  });

  it('reads an ordinal in figures as its number, and leaves stop words out', () => {
    expect(termsOf('the 5th monitoring period')).toEqual(termsOf('5 monitoring period'));
    expect(termsOf('the of and')).toEqual([]);
  });
});

describe('unitTerms', () => {
  it('adds "tonnes" and the gas for a tonne-of-gas unit, and nothing for other words', () => {
    expect(unitTerms(termsOf('tCO2e'))).toEqual([...termsOf('tonnes'), 'co2e']);
    expect(unitTerms(termsOf('emission reductions'))).toEqual([]);
  });
});

describe('analyseQuestion', () => {
  it('drops an exclusion clause, adds unit words, and lists each word once', () => {
    const q = analyseQuestion('How many tCO2e did the project (not Botany Farm) remove, tCO2e per year?');
    expect(q.text).toMatch(/^How many/);
    expect(q.terms).not.toContain(termsOf('Botany')[0]);
    expect(q.terms).toEqual(expect.arrayContaining([...termsOf('tonnes'), 'co2e']));
    expect(new Set(q.terms).size).toBe(q.terms.length);
  });
});
