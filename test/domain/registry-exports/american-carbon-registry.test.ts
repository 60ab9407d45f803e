import { describe, expect, it } from 'vitest';
import { NO_COUNTRIES } from '../../../src/domain/country-lookup.js';
import { acrExport } from '../../../src/domain/registry-exports/american-carbon-registry.js';

// ACR's project export, ACR586 and ACR206 (columns the mapping reads).
const acr586 = {
  'Project ID': 'ACR586',
  'Project Developer': 'The Climate Trust',
  'Project Name': '18 Reserves Forest Carbon Project',
  'Project Type': 'Forest Carbon',
  'Project Methodology/Protocol': 'Improved Forest Management (IFM) on Non-Federal U.S. Forestlands',
  'Current Crediting Period Start Date': '1/15/2020',
  'Current Crediting Period End Date': '1/14/2040',
  'Voluntary Status': 'Registered',
  'Compliance Program Status (ARB or Ecology)': 'Not ARB or Ecology Eligible',
  'Project Site Country': 'US',
  // The export's header has a trailing space.
  'Total Number of Credits Registered ': '550369.0',
};

describe('the ACR export mapping', () => {
  it('reads "ACR586" as 586, US dates as the crediting period, the country code, and credits registered as issuances', () => {
    expect(acrExport.projectId(acr586)).toBe(586);
    expect(acrExport.fields(acr586, NO_COUNTRIES)).toMatchObject({
      name: '18 Reserves Forest Carbon Project',
      proponent: 'The Climate Trust',
      status: 'Registered',
      location: 'United States',
      creditPeriods: [{ start: { year: 2020, month: 1, day: 15 }, end: { year: 2040, month: 1, day: 14 } }],
      issuances: 550369,
    });
  });

  it('takes the compliance status when the voluntary one is empty, and gives no issuances when none are given', () => {
    const f = acrExport.fields(
      {
        ...acr586,
        'Voluntary Status': '',
        'Compliance Program Status (ARB or Ecology)': 'ARB Completed',
        'Total Number of Credits Registered ': '',
      },
      NO_COUNTRIES,
    );
    expect(f.status).toBe('ARB Completed');
    expect(f).not.toHaveProperty('issuances');
  });
});
