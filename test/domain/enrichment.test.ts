import { describe, expect, it } from 'vitest';
import type { ProjectEnrichment } from '../../src/domain/cleaned-record.js';
import { distinct, sanitizeEnrichment } from '../../src/domain/enrichment.js';

describe('distinct', () => {
  it('trims, drops empty values and repeats that differ in case only, keeping the first spelling and the order', () => {
    expect(distinct([' ARR ', 'arr', '', 'IFM', 'Arr', '  '])).toEqual(['ARR', 'IFM']);
  });
});

describe('sanitizeEnrichment', () => {
  it('keeps well-formed values', () => {
    const e: ProjectEnrichment = {
      summary: 'S.',
      emissionsReductions: { '2021': 5 },
      issuances: 3,
      retirements: 0,
      reductionActivity: ['ARR'],
    };
    expect(sanitizeEnrichment(e)).toEqual(e);
  });

  it('drops what a stored enrichment may hold wrongly: non-year keys, non-finite numbers, blank summaries, non-strings', () => {
    const stored = {
      summary: '  ',
      emissionsReductions: { '2021': 5, total: 9, '2022': Number.NaN },
      issuances: Number.POSITIVE_INFINITY,
      retirements: '4',
      reductionActivity: ['ARR', 7, 'arr'],
    } as unknown as ProjectEnrichment;
    expect(sanitizeEnrichment(stored)).toEqual({ emissionsReductions: { '2021': 5 }, reductionActivity: ['ARR'] });
    expect(sanitizeEnrichment({ emissionsReductions: [] as unknown as Record<string, number> })).toEqual({});
    expect(sanitizeEnrichment(null)).toEqual({});
  });
});
