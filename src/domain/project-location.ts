import type { CountryLookup } from './country-lookup.js';
import { countryInText, countryNameForCode, countryNamed, isCountryCodeShape } from './countries.js';
import { type RawRecord, attributeOccurrences, attributeValues } from './raw-record.js';

/** Attribute codes under which a registry states the host country itself (not observed in Verra records yet). */
const COUNTRY_NAME_CODES = ['COUNTRY', 'COUNTRY_NAME', 'PROJECT_COUNTRY', 'HOST_COUNTRY'];
const COUNTRY_CODE_CODES = ['COUNTRY_CODE', 'ISO_COUNTRY_CODE'];

/**
 * The project's country name (CONTRACT 5), in the order of trust docs/derived-fields.md gives: a country the registry
 * states (spelled as our country table spells it when recognised); the country at its coordinates, (0, 0) being a
 * placeholder in the Gulf of Guinea; one named in STATE_PROVINCE ("Guangdong Province, China"); only without
 * coordinates, one named in the proponent's location strings (the values after its name in PROPONENT_NAME), which
 * say where its office is. '' when none gives a country.
 */
export function projectLocation(raw: RawRecord, countries: CountryLookup): string {
  const stated = statedCountry(raw);
  if (stated !== null) return stated;

  const point = usableCoordinates(raw);
  if (point) {
    const found = safeCountryAt(countries, point.latitude, point.longitude);
    if (found !== null && found !== '') return found;
  }

  for (const value of attributeValues(raw, 'STATE_PROVINCE')) {
    const named = countryInText(value);
    if (named !== null) return named;
  }

  if (!point) {
    for (const values of attributeOccurrences(raw, 'PROPONENT_NAME')) {
      for (const value of values.slice(1)) {
        const named = countryInText(value);
        if (named !== null) return named;
      }
    }
  }
  return '';
}

function statedCountry(raw: RawRecord): string | null {
  const topLevel = (raw as Record<string, unknown>).country;
  const candidates = [
    ...(typeof topLevel === 'string' ? [topLevel] : []),
    ...COUNTRY_NAME_CODES.flatMap((code) => attributeValues(raw, code)),
  ];
  for (const value of candidates) {
    const text = value.trim();
    if (text === '') continue;
    return countryNamed(text) ?? (isCountryCodeShape(text) ? countryNameForCode(text) : null) ?? text;
  }
  for (const value of COUNTRY_CODE_CODES.flatMap((code) => attributeValues(raw, code))) {
    const name = countryNameForCode(value);
    if (name !== null) return name;
  }
  return null;
}

function usableCoordinates(raw: RawRecord): { latitude: number; longitude: number } | null {
  const loc = raw.location;
  if (!loc) return null;
  const { latitude, longitude } = loc;
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
  if (latitude === 0 && longitude === 0) return null;
  return { latitude, longitude };
}

function safeCountryAt(countries: CountryLookup, latitude: number, longitude: number): string | null {
  try {
    return countries.countryAt(latitude, longitude);
  } catch {
    // A failing lookup must not fail the record; the text fallbacks still apply.
    return null;
  }
}
