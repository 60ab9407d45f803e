import { describe, expect, it } from 'vitest';
import { NO_COUNTRIES } from '../../../src/domain/country-lookup.js';
import { carExport } from '../../../src/domain/registry-exports/climate-action-reserve.js';

// The Reserve's project export, CAR1460 (columns the mapping reads).
const car1460 = {
  'Project ID': 'CAR1460',
  'Project Developer': 'The Climate Trust',
  'Project Owner': 'The Nature Conservancy',
  'Project Name': '54 Ranch',
  'Project Type': 'Avoided Grassland Conversion',
  Status: 'Completed',
  'Project Site Country': 'US',
  'Project Notes': '',
  'Total Number of Offset Credits Registered ': '',
  'Project Registered Date': '',
};

describe('the Climate Action Reserve export mapping', () => {
  it('reads "CAR1460" as 1460; an empty registration date is null, not a made-up date', () => {
    expect(carExport.projectId(car1460)).toBe(1460);
    const f = carExport.fields(car1460, NO_COUNTRIES);
    expect(f).toMatchObject({ name: '54 Ranch', proponent: 'The Climate Trust', status: 'Completed', registration: null });
    expect(f).not.toHaveProperty('issuances');
  });

  it('writes an mm/dd/yyyy registration as dd/mm/yyyy, names the owner when no developer is given, reads credits', () => {
    const f = carExport.fields(
      {
        ...car1460,
        'Project Registered Date': '04/05/2024',
        'Project Developer': '',
        'Total Number of Offset Credits Registered ': '1,250',
      },
      NO_COUNTRIES,
    );
    expect(f.registration).toBe('05/04/2024');
    expect(f.proponent).toBe('The Nature Conservancy');
    expect(f.issuances).toBe(1250);
  });
});
