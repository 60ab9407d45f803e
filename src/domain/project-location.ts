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
  const point = usablePoint(raw);
  return (
    statedCountry(raw) ||
    (point && safeCountryAt(countries, point.latitude, point.longitude)) ||
    countryInValues(attributeValues(raw, 'STATE_PROVINCE')) ||
    (point ? null : countryInValues(attributeOccurrences(raw, 'PROPONENT_NAME').flatMap((values) => values.slice(1)))) ||
    ''
  );
}

/** The country named in the first of `values` that names one (countryInText), or null. */
function countryInValues(values: readonly string[]): string | null {
  return values.map((value) => countryInText(value)).find((name) => name !== null) ?? null;
}

function statedCountry(raw: RawRecord): string | null {
  const topLevel = (raw as Record<string, unknown>).country;
  const names = [...(typeof topLevel === 'string' ? [topLevel] : []), ...COUNTRY_NAME_CODES.flatMap((code) => attributeValues(raw, code))];
  const text = names.map((value) => value.trim()).find((value) => value !== '');
  if (text !== undefined) return countryNamed(text) ?? (isCountryCodeShape(text) ? countryNameForCode(text) : null) ?? text;
  const codes = COUNTRY_CODE_CODES.flatMap((code) => attributeValues(raw, code));
  return codes.map((code) => countryNameForCode(code)).find((name) => name !== null) ?? null;
}

/** The record's coordinates, unless they are not a point on Earth or the (0, 0) placeholder. */
function usablePoint(raw: RawRecord): { latitude: number; longitude: number } | null {
  const loc = raw.location;
  if (!loc || !Number.isFinite(loc.latitude) || !Number.isFinite(loc.longitude)) return null;
  const onEarth = Math.abs(loc.latitude) <= 90 && Math.abs(loc.longitude) <= 180;
  return onEarth && (loc.latitude !== 0 || loc.longitude !== 0) ? loc : null;
}

function safeCountryAt(countries: CountryLookup, latitude: number, longitude: number): string | null {
  try {
    return countries.countryAt(latitude, longitude);
  } catch {
    // A failing lookup must not fail the record; the text fallbacks still apply.
    return null;
  }
}
