import { describe, expect, it } from 'vitest';
import { createCountryLookup } from '../../../src/adapters/geo/country-lookup.js';
import { isometricExport, isometricProjectId } from '../../../src/domain/registry-exports/isometric.js';

// Isometric's project export, TS26 (columns the mapping reads).
const ts26 = {
  id: 'prj_1K3VWSDS61S0QKV7',
  name: 'A Biochar Project at Satyapura',
  status: 'validated',
  short_code: 'TS26',
  pathway: 'biomass_carbon_removal_and_storage',
  protocol_slug: 'biochar',
  country_code: 'IND',
  crediting_period_start: '2025-11-27',
  crediting_period_end: '2030-11-26',
  'supplier.short_description': 'Equilibrium converts biomass to biochar.',
  'supplier.long_description': '',
  'supplier.organisation.name': 'Equilibrium',
  'issued_credits_total.credits': '120',
  'retired_credits_total.credits': '0',
  'location.country_name': '',
  'location.latitude': '23.6',
  'location.longitude': '72.4',
};

describe('the Isometric export mapping', () => {
  const countries = createCountryLookup();

  it('reads the short code in base 36, and refuses one that is not a short code', () => {
    expect(isometricProjectId('TS26')).toBe(Number.parseInt('TS26', 36));
    expect(isometricProjectId('prj_1K3')).toBeNull();
    expect(isometricProjectId('')).toBeNull();
  });

  it('humanises status and pathway, falls back to the short description, places the project by its coordinates', () => {
    expect(isometricExport.fields(ts26, countries)).toMatchObject({
      name: 'A Biochar Project at Satyapura',
      description: 'Equilibrium converts biomass to biochar.',
      status: 'Validated',
      type: 'Biomass carbon removal and storage',
      methodology: 'biochar',
      proponent: 'Equilibrium',
      location: 'India',
      issuances: 120,
      retirements: 0,
      reductionActivity: ['Biomass carbon removal and storage', 'Biochar'],
    });
  });

  it('prefers the named country, and keeps the country code when there is nothing else', () => {
    expect(isometricExport.fields({ ...ts26, 'location.country_name': 'Kenya' }, countries).location).toBe('Kenya');
    expect(isometricExport.fields({ ...ts26, 'location.latitude': '' }, countries).location).toBe('IND');
  });
});
