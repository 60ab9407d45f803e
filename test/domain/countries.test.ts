import { borders } from '@rapideditor/country-coder';
import { describe, expect, it } from 'vitest';
import { COUNTRY_NAMES, countryInText, countryNameForCode, countryNamed } from '../../src/domain/countries.js';

describe('country names', () => {
  it('uses short English names for the codes country-coder returns', () => {
    expect(countryNameForCode('CN')).toBe('China');
    expect(countryNameForCode('us')).toBe('United States');
    expect(countryNameForCode('GB')).toBe('United Kingdom');
    expect(countryNameForCode('IN')).toBe('India');
    expect(countryNameForCode('ZZ')).toBeNull();
    expect(Object.keys(COUNTRY_NAMES).length).toBeGreaterThan(190);
  });

  it('names exactly the countries the geocoder can return, so text and coordinates agree on the set', () => {
    // The library's GeoJSON types are not installed, so the two properties read are typed here.
    const regions: { properties: { level: string; iso1A2: string | undefined } }[] = borders.features;
    const geocoded = regions.flatMap(({ properties: p }) => (p.level === 'country' && p.iso1A2 !== undefined ? [p.iso1A2] : []));
    expect(Object.keys(COUNTRY_NAMES).sort()).toEqual([...new Set(geocoded)].sort());
    expect(countryNameForCode('PR')).toBeNull();
  });

  it('recognises names and aliases ignoring case, accents and apostrophe style', () => {
    expect(countryNamed('china')).toBe('China');
    expect(countryNamed("People's Republic of China")).toBe('China');
    expect(countryNamed('Viet Nam')).toBe('Vietnam');
    expect(countryNamed('Cote d’Ivoire')).toBe("Côte d'Ivoire");
    expect(countryNamed('USA')).toBe('United States');
    expect(countryNamed('Russian Federation')).toBe('Russia');
    expect(countryNamed('Congo')).toBe('Republic of the Congo');
    expect(countryNamed('Guangdong Province')).toBeNull();
  });

  it('finds the country segment of a location string, never a partial word', () => {
    expect(countryInText('Guangdong Province, China')).toBe('China');
    expect(countryInText('Miramichi, New Brunswick, Canada')).toBe('Canada');
    expect(countryInText('Santa Fe, New Mexico')).toBeNull();
    expect(countryInText('Papua New Guinea')).toBe('Papua New Guinea');
    expect(countryInText('West Bengal')).toBeNull();
    expect(countryInText('')).toBeNull();
  });

  it('does not read two-letter codes in free text as countries (CA is usually California)', () => {
    expect(countryInText('Sacramento, CA')).toBeNull();
    expect(countryInText('Denver, US')).toBeNull();
  });
});
