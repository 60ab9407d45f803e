/** Offline reverse geocoding: the English country name at a point, or null (open sea, invalid point). */
export interface CountryLookup {
  countryAt(latitude: number, longitude: number): string | null;
}

/** A lookup that finds no country: a record's coordinates then name none (where only the stated country is wanted). */
export const NO_COUNTRIES: CountryLookup = { countryAt: () => null };
