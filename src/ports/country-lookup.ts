/** The port is the domain's own type: the geo adapter implements it (src/adapters/geo/country-lookup.ts). */
export type { CountryLookup } from '../domain/country-lookup.js';
