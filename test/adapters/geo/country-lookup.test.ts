import { describe, expect, it } from 'vitest';
import { createCountryLookup } from '../../../src/adapters/geo/country-lookup.js';

describe('createCountryLookup (country-coder, offline)', () => {
  const countries = createCountryLookup();

  it.each([
    ['VCS 4086 (Suixi County, Guangdong)', 21.301452, 110.184911, 'China'],
    ['VCS 5533 (West Bengal)', 23.33, 86.36, 'India'],
    ['Miramichi, New Brunswick (VCS 4074)', 47.03, -65.5, 'Canada'],
    ['Vichada (CDM 9199)', 4.5, -71.5, 'Colombia'],
    ['Northamptonshire', 52.3, -0.9, 'United Kingdom'],
    ['Washington DC', 38.9, -77.0, 'United States'],
    ['Hong Kong (sovereign country, not the territory)', 22.3, 114.17, 'China'],
    ['Puerto Rico', 18.2, -66.5, 'United States'],
    ["Côte d'Ivoire", 7.5, -5.5, "Côte d'Ivoire"],
    ['central DR Congo', -2.5, 23.6, 'Democratic Republic of the Congo'],
  ])('%s is in %s', (_where, lat, lon, name) => {
    expect(countries.countryAt(lat, lon)).toBe(name);
  });

  it('gives null in the open ocean', () => {
    expect(countries.countryAt(30, -40)).toBeNull(); // mid-Atlantic
    expect(countries.countryAt(-40, 90)).toBeNull(); // southern Indian Ocean
  });

  it('gives a country for a point just off a coast, because maritime borders are generalised', () => {
    expect(countries.countryAt(21.0, 110.5)).toBe('China');
  });

  it('gives null at the poles and in Antarctica (no country)', () => {
    expect(countries.countryAt(90, 0)).toBeNull();
    expect(countries.countryAt(-80, 0)).toBeNull();
  });

  it('gives null for invalid points instead of throwing', () => {
    expect(countries.countryAt(Number.NaN, 10)).toBeNull();
    expect(countries.countryAt(10, Number.POSITIVE_INFINITY)).toBeNull();
    expect(countries.countryAt(200, 500)).toBeNull();
    expect(countries.countryAt(-91, 0)).toBeNull();
    expect(countries.countryAt(0, 181)).toBeNull();
  });

  it('answers many lookups over the globe from one instance, land or sea', () => {
    let found = 0;
    for (let i = 0; i < 10_000; i++) {
      if (countries.countryAt(-55 + ((i * 7) % 125), -180 + ((i * 13) % 360)) !== null) found++;
    }
    // Roughly the land share of the sampled band; neither every point nor none.
    expect(found).toBeGreaterThan(1000);
    expect(found).toBeLessThan(9000);
  });
});
