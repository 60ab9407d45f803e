import { describe, expect, it } from 'vitest';
import { NO_COUNTRIES } from '../../../src/domain/country-lookup.js';
import { goldStandardExport } from '../../../src/domain/registry-exports/gold-standard.js';

// Gold Standard's project export, GSID 23574 (description shortened).
const row = {
  GSID: '23574',
  'Project Name': 'GS12856-VPA-3 Unlocking Communities Water Filters for Households',
  'Project Developer Name': 'Unlocking Communities',
  Status: 'Listed',
  'Project Type': 'Energy Efficiency - Domestic',
  Country: 'Haiti',
  Description: 'The voluntary project activity (VPA) is a voluntary initiative by Unlocking Communities (UC).',
  'Estimated Annual Credits': '60000',
  Methodology: '',
  Size: 'Large Scale',
};

describe('the Gold Standard export mapping', () => {
  it('maps developer, description and annual estimate; gives no period and no area (Size is a scale class)', () => {
    expect(goldStandardExport.projectId(row)).toBe(23574);
    expect(goldStandardExport.fields(row, NO_COUNTRIES)).toMatchObject({
      name: 'GS12856-VPA-3 Unlocking Communities Water Filters for Households',
      proponent: 'Unlocking Communities',
      description: row.Description,
      location: 'Haiti',
      reductions: 60000,
      registration: null,
      creditPeriods: [],
      sizeHectares: 0,
      reductionActivity: ['Energy Efficiency - Domestic'],
    });
  });

  it('reads a GSID written as a float, as spreadsheets save it', () => {
    expect(goldStandardExport.projectId({ ...row, GSID: '12856.0' })).toBe(12856);
  });
});
