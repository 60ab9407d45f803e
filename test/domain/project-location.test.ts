import { describe, expect, it } from 'vitest';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { projectLocation } from '../../src/domain/project-location.js';
import { rawRecordSchema } from '../../src/domain/raw-record.js';
import type { CountryLookup } from '../../src/ports/country-lookup.js';

const countries = createCountryLookup();
const attr = (code: string, ...values: string[]) => ({ code, values: values.map((value) => ({ type: 'string', value })) });
const record = (over: Record<string, unknown>) => rawRecordSchema.parse({ registry: 'Verra', resourceIdentifier: '1', ...over });

describe('projectLocation', () => {
  it('takes a country the registry states first, spelled as the country table spells it, or from its code', () => {
    const point = { location: { latitude: 23.33, longitude: 86.36 } };
    expect(projectLocation(record({ ...point, attributes: [attr('COUNTRY', 'Viet Nam')] }), countries)).toBe('Vietnam');
    expect(projectLocation(record({ attributes: [attr('COUNTRY_CODE', 'KE')] }), countries)).toBe('Kenya');
  });

  it('then the coordinates, treating (0, 0) as none', () => {
    expect(projectLocation(record({ location: { latitude: 23.33, longitude: 86.36 } }), countries)).toBe('India');
    const placeholder = record({
      location: { latitude: 0, longitude: 0 },
      attributes: [attr('STATE_PROVINCE', 'Guangdong Province, China')],
    });
    expect(projectLocation(placeholder, countries)).toBe('China');
  });

  it("uses the proponent's address only without coordinates, and survives a failing lookup", () => {
    const proponent = { attributes: [attr('PROPONENT_NAME', 'Acme Ltd', 'Nairobi, Kenya')] };
    expect(projectLocation(record(proponent), countries)).toBe('Kenya');
    // Open sea: the coordinates find no country, and the office address does not override them.
    expect(projectLocation(record({ ...proponent, location: { latitude: -30, longitude: -20 } }), countries)).toBe('');
    const failing: CountryLookup = {
      countryAt: () => {
        throw new Error('lookup down');
      },
    };
    expect(projectLocation(record({ ...proponent, location: { latitude: 23.33, longitude: 86.36 } }), failing)).toBe('');
  });
});
