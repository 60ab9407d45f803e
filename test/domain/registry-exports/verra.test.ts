import { describe, expect, it } from 'vitest';
import { NO_COUNTRIES } from '../../../src/domain/country-lookup.js';
import { verraExport } from '../../../src/domain/registry-exports/verra.js';

// Two rows of Verra's project export (ids 5957 and 5962), as its CSV gives them.
const kenya = {
  ID: '5957',
  Name: 'KENYA HIGHLANDS GROUPED CARBON PROJECT',
  Proponent: 'Multiple Proponents',
  'Project Type': 'Agriculture Forestry and Other Land Use',
  'AFOLU Activities': 'ALM',
  Methodology: 'VM0042',
  Status: 'Under development',
  'Country/Area': 'Kenya',
  'Estimated Annual Emission Reductions': '191,805',
  'Project Registration Date': '',
  'Crediting Period Start Date': '2024-04-01',
  'Crediting Period End Date': '2044-03-31',
};

describe('the Verra export mapping', () => {
  it('reads the id, the estimate with its thousands separator, the crediting period and the AFOLU codes', () => {
    expect(verraExport.projectId(kenya)).toBe(5957);
    expect(verraExport.fields(kenya, NO_COUNTRIES)).toEqual({
      name: 'KENYA HIGHLANDS GROUPED CARBON PROJECT',
      description: '',
      location: 'Kenya',
      methodology: 'VM0042',
      proponent: 'Multiple Proponents',
      reductions: 191805,
      registration: null,
      status: 'Under development',
      type: 'Agriculture Forestry and Other Land Use',
      creditPeriods: [{ start: { year: 2024, month: 4, day: 1 }, end: { year: 2044, month: 3, day: 31 } }],
      sizeHectares: 0,
      reductionActivity: ['Agricultural Land Management', 'Agriculture Forestry and Other Land Use'],
    });
  });

  it('writes a registration date as dd/mm/yyyy and leaves a row without a period without one', () => {
    const f = verraExport.fields(
      { ...kenya, 'Project Registration Date': '2021-06-30', 'Crediting Period Start Date': '', 'AFOLU Activities': '' },
      NO_COUNTRIES,
    );
    expect(f.registration).toBe('30/06/2021');
    expect(f.creditPeriods).toEqual([]);
    expect(f.reductionActivity).toEqual(['Agriculture Forestry and Other Land Use']);
  });

  it('gives no id for a row whose ID is not a number', () => {
    expect(verraExport.projectId({ ...kenya, ID: 'n/a' })).toBeNull();
  });
});
