/** Offline reverse geocoding: the English country name at a point, or null (open sea, invalid point). */
export interface CountryLookup {
  countryAt(latitude: number, longitude: number): string | null;
}
