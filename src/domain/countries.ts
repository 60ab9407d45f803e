import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import { oneLine } from './text.js';

/**
 * English country names by ISO 3166-1 alpha-2 code, and matching of country names written in free text. Names and
 * most aliases come from i18n-iso-countries' English list (static data: no I/O); the countries are those
 * @rapideditor/country-coder can return, so that reverse geocoding and text matching give the same spelling.
 */

/**
 * Codes of territories the library lists but the geocoder never returns (it answers with the sovereign country:
 * Puerto Rico gives the United States), left out so that a filter by country sees one spelling.
 */
const TERRITORIES = new Set(
  (
    'AS AI AQ AW AX BL BM BQ BV CC CK CW CX FK FO GF GG GI GL GP GS GU HK HM IM IO JE KY ' +
    'MF MO MP MQ MS NC NF NU PF PM PN PR RE SH SJ SX TC TF TK UM VG VI WF YT'
  ).split(' '),
);

/** The short names registries and readers use where the library's first name is the ISO long form. */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  BN: 'Brunei',
  CI: "Côte d'Ivoire",
  CN: 'China',
  CV: 'Cabo Verde',
  CZ: 'Czechia',
  FM: 'Micronesia',
  GM: 'Gambia',
  IR: 'Iran',
  LA: 'Laos',
  MD: 'Moldova',
  MK: 'North Macedonia',
  PS: 'Palestine',
  RU: 'Russia',
  ST: 'São Tomé and Príncipe',
  SY: 'Syria',
  TR: 'Turkey',
  TW: 'Taiwan',
  TZ: 'Tanzania',
  US: 'United States',
  VA: 'Vatican City',
};

/**
 * Other spellings met in registry data that the library does not list (official long forms, former names).
 * ISO codes are deliberately absent, and dropped from the library's aliases: in free text "CA" or "GA" is more often
 * a US state than a country.
 */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  CN: ['PRC', 'P.R. China'],
  GB: ['United Kingdom of Great Britain and Northern Ireland', 'England', 'Scotland', 'Wales', 'Northern Ireland'],
  DK: ['Kingdom of Denmark'],
  NL: ['Kingdom of the Netherlands'],
  IE: ['Republic of Ireland'],
  CY: ['Republic of Cyprus'],
  BS: ['The Bahamas'],
  FM: ['Federated States of Micronesia'],
  TL: ['East Timor'],
  KN: ['St. Kitts and Nevis'],
  LC: ['St. Lucia'],
  VC: ['St. Vincent and the Grenadines'],
  VA: ['Holy See'],
  CD: ['DR Congo', 'DRC', 'Congo, The Democratic Republic of the', 'Congo, Democratic Republic of the', 'Congo (Kinshasa)'],
  CG: ['Congo', 'Congo (Brazzaville)'],
  VN: ['Viet Nam'],
  LA: ['Lao PDR'],
  KP: ["Democratic People's Republic of Korea"],
  BO: ['Bolivia, Plurinational State of', 'Plurinational State of Bolivia'],
  VE: ['Venezuela, Bolivarian Republic of'],
  TZ: ['Tanzania, United Republic of'],
  IR: ['Iran, Islamic Republic of'],
  MD: ['Republic of Moldova'],
  MM: ['Burma'],
  SZ: ['Swaziland'],
  MK: ['Macedonia'],
};

const namesByCode = Object.entries(en.countries)
  .filter(([code]) => !TERRITORIES.has(code))
  .map(([code, names]): [string, string[]] => [code, typeof names === 'string' ? [names] : names]);

export const COUNTRY_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  namesByCode.map(([code, names]) => [code, SHORT_NAMES[code] ?? names[0] ?? code]),
);

/** Lower case, accents and punctuation variants folded, so that "Côte d’Ivoire" matches "cote d'ivoire". */
function fold(text: string): string {
  const unaccented = text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  return oneLine(unaccented.replace(/[\u2018\u2019\u02bc`]/g, "'")).toLowerCase();
}

const byFoldedName = new Map<string, string>(Object.entries(ALIASES).flatMap(([code, aliases]) => aliases.map((a) => [fold(a), code])));
for (const [code, names] of namesByCode) {
  for (const name of [COUNTRY_NAMES[code] ?? code, ...names]) {
    const isoCode = isCountryCodeShape(name) && name.toUpperCase() in en.countries;
    // A name keeps its first claim: ALIASES settle the library's "Congo", listed for both Congos.
    if (!isoCode && !byFoldedName.has(fold(name))) byFoldedName.set(fold(name), code);
  }
}

/** Whether a text has the shape of an ISO 3166-1 alpha-2 code: two Latin letters ("US", "br"). */
export function isCountryCodeShape(text: string): boolean {
  return /^[A-Za-z]{2}$/.test(text);
}

/** The short English name for an ISO 3166-1 alpha-2 code, or null when the code is unknown. */
export function countryNameForCode(code: string): string | null {
  return COUNTRY_NAMES[code.trim().toUpperCase()] ?? null;
}

/** The short English name when `text` is exactly a country name or alias (case and accents ignored). */
export function countryNamed(text: string): string | null {
  const code = byFoldedName.get(fold(text).replace(/\.$/, ''));
  return code === undefined ? null : (COUNTRY_NAMES[code] ?? null);
}

/**
 * The country named in a location string such as "Guangdong Province, China" or "Miramichi, New Brunswick,
 * Canada": comma-separated segments are tried from the last (where addresses put the country) to the first, and
 * only whole segments match, so "New Mexico" never reads as Mexico. Null when no segment is a country.
 */
export function countryInText(text: string): string | null {
  const segments = text.split(/[,;\n]/).reverse();
  return segments.map((segment) => countryNamed(segment)).find((name) => name !== null) ?? null;
}
