import type { CountryLookup } from '../country-lookup.js';
import { distinct } from '../enrichment.js';
import { cell, countryCell, datePeriod, exportMapping, humanize, numberCell, type ExportRow } from './common.js';

/**
 * Isometric has no numeric project ids ("prj_1K3VWSDS61S0QKV7") but a short code ("TS26"); the service's numeric id
 * is the short code read as a base-36 number (TS26 -> 1389390), so it is stable, unique per code and reversible
 * (`id.toString(36).toUpperCase()`, left-padded with 0 to the code's length).
 */
export function isometricProjectId(shortCode: string): number | null {
  const code = shortCode.trim();
  if (!/^[0-9A-Za-z]{1,10}$/.test(code)) return null;
  const n = Number.parseInt(code, 36);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** The country the row names, else the one at its coordinates, else its country code as written. */
function location(row: ExportRow, countries: CountryLookup): string {
  const [lat, lon] = [Number(cell(row, 'location.latitude')), Number(cell(row, 'location.longitude'))];
  const point = cell(row, 'location.latitude') !== '' && Number.isFinite(lat) && Number.isFinite(lon);
  return countryCell(cell(row, 'location.country_name')) || (point && countries.countryAt(lat, lon)) || cell(row, 'country_code');
}

export const isometricExport = exportMapping({
  source: 'isometric',
  registry: 'Isometric',
  idColumn: 'short_code',
  requiredColumns: ['id', 'name', 'status', 'short_code'],
  projectId: (row) => isometricProjectId(cell(row, 'short_code')),
  fields(row, countries) {
    const pathway = humanize(cell(row, 'pathway'));
    const protocol = cell(row, 'protocol_slug');
    return {
      name: cell(row, 'name'),
      description: cell(row, 'supplier.long_description') || cell(row, 'supplier.short_description'),
      location: location(row, countries),
      methodology: protocol,
      proponent: cell(row, 'supplier.organisation.name'),
      status: humanize(cell(row, 'status')),
      type: pathway,
      creditPeriods: datePeriod(row, 'crediting_period_start', 'crediting_period_end'),
      issuances: numberCell(row, 'issued_credits_total.credits'),
      retirements: numberCell(row, 'retired_credits_total.credits'),
      reductionActivity: distinct([pathway, humanize(protocol)]),
    };
  },
});
