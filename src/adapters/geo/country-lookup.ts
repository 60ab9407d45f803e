import { feature } from '@rapideditor/country-coder';
import { countryNameForCode } from '../../domain/countries.js';
import type { CountryLookup } from '../../ports/country-lookup.js';

/**
 * Offline reverse geocoding with @rapideditor/country-coder (bundled borders, no network).
 *
 * Behaviour worth knowing (checked in test/adapters/geo/country-lookup.test.ts):
 * - the answer is the sovereign country: Hong Kong gives China, Puerto Rico the United States, Greenland Denmark;
 * - names are short English names from src/domain/countries.ts ("China", "United States"), not the library's
 *   official forms ("People's Republic of China");
 * - land borders are detailed but maritime borders are generalised: open ocean gives null, while points near
 *   coasts or small islands can fall inside a country's box (mid-Pacific near Kiribati gives Kiribati);
 * - Antarctica and invalid points (NaN, |lat| > 90, |lon| > 180) give null.
 * The library builds its spatial index when first imported, so that cost (bench/README.md "Measurements cited by
 * code") is paid once per process;
 * creation runs one query so the first request does not pay any remaining warm-up.
 */
export function createCountryLookup(): CountryLookup {
  feature([0, 0]);
  return {
    countryAt(latitude: number, longitude: number): string | null {
      if (typeof latitude !== 'number' || typeof longitude !== 'number') return null;
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
      if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
      const found = feature([longitude, latitude], { level: 'country' });
      if (!found || found.properties.level !== 'country') return null;
      const code = found.properties.iso1A2;
      return (code !== undefined ? countryNameForCode(code) : null) ?? found.properties.nameEn;
    },
  };
}
