import type { CleanedDocumentGroup, CleanedRecord } from './cleaned-record.js';
import type { StoredProject } from './stored-project.js';
import type { CountryLookup } from './country-lookup.js';
import { reportedPeriodYears, spreadAnnualEstimate } from './credit-period.js';
import { cleanDocumentGroups } from './document-groups.js';
import { exportMappingForFormat, type ExportFields, type ExportRow } from './registry-exports/index.js';
import { sanitizeEnrichment } from './enrichment.js';
import { cell, exportFields } from './registry-exports/common.js';

/**
 * Cleaned record of a project imported from a registry's CSV export (format `csv:<source>`, raw = the export's row).
 * Each registry's columns are mapped in src/domain/registry-exports/ (table: docs/registry-exports.md). Total: an
 * unknown source or odd cells never throw.
 */
export function deriveFromExport(stored: StoredProject, ctx: { requestedRegistry: string; countries: CountryLookup }): CleanedRecord {
  const fields = exportRowFields(stored, ctx.countries) ?? genericFields(toRow(stored.raw));
  // Exports list no documents; the four groups are still present (SPEC 2.3), empty.
  return cleanedRecord(stored, ctx.requestedRegistry, fields, {
    documentGroups: cleanDocumentGroups([], PROGRAMS[stored.ref.registry] ?? stored.ref.registry),
  });
}

/**
 * The cleaned record of a registry's fields, for registry records and export rows alike: what the registry does not
 * carry gets the fallbacks (0, null, '', empty lists), and enrichment (documents, issuance imports) wins over both.
 */
export function cleanedRecord(
  stored: StoredProject,
  requestedRegistry: string,
  fields: ExportFields,
  extra: { documentGroups: CleanedDocumentGroup[]; specificProponents?: string[] },
): CleanedRecord {
  const enrichment = sanitizeEnrichment(stored.enrichment);
  const reportedPeriod = reportedPeriodYears(fields.creditPeriods);
  return {
    name: fields.name,
    description: fields.description,
    hidden: stored.hidden === true,
    location: fields.location,
    methodology: fields.methodology,
    proponent: fields.proponent,
    reductions: fields.reductions,
    registration: fields.registration,
    registry: requestedRegistry,
    resourceIdentifier: stored.ref.projectId,
    status: fields.status,
    type: fields.type,
    'Reported Period': reportedPeriod,
    'Size (Hectares)': fields.sizeHectares,
    // Rounded to 2 decimals so that a fractional estimate does not print float noise (18069.1 x 30).
    'Total Reported Sequestration': Math.round(fields.reductions * reportedPeriod * 100) / 100,
    summary: enrichment.summary ?? fields.description,
    metadata: {
      emissions_reductions: enrichment.emissionsReductions ?? spreadAnnualEstimate(fields.reductions, fields.creditPeriods),
      issuances: enrichment.issuances ?? fields.issuances ?? 0,
      retirements: enrichment.retirements ?? fields.retirements ?? 0,
      reduction_activity: enrichment.reductionActivity ?? fields.reductionActivity,
      ...(extra.specificProponents ? { specific_proponents: extra.specificProponents } : {}),
    },
    documentGroups: extra.documentGroups,
  };
}

/** Group names follow the registry's program code ("VCS Pipeline Documents", "GS Pipeline Documents"). */
const PROGRAMS: Readonly<Record<string, string>> = {
  Verra: 'VCS',
  'Gold Standard': 'GS',
  'American Carbon Registry': 'ACR',
  'Climate Action Reserve': 'CAR',
};

/** The row's cells as strings (a number or boolean as written); cells of other types are left out. */
function toRow(raw: Record<string, unknown>): ExportRow {
  const cells = Object.entries(raw !== null && typeof raw === 'object' ? raw : {});
  return Object.fromEntries(cells.filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v)).map(([k, v]) => [k, String(v)]));
}

/** An export row's fields by its registry's mapping; null for a source without one or a row its mapping cannot read. */
export function exportRowFields(stored: StoredProject, countries: CountryLookup): ExportFields | null {
  const mapping = exportMappingForFormat(stored.format);
  try {
    return mapping ? mapping.fields(toRow(stored.raw), countries) : null;
  } catch {
    // A mapping bug or a row of another shape must not turn a metadata request into a 500.
    return null;
  }
}

/** For a source without a mapping: the usual column names, else empty values. */
function genericFields(row: ExportRow): ExportFields {
  const first = (...columns: string[]) => columns.map((c) => cell(row, c)).find((v) => v !== '') ?? '';
  return exportFields({
    name: first('Name', 'Project Name', 'name'),
    description: first('Description', 'description'),
    location: first('Country', 'Country/Area', 'Project Site Country', 'country'),
    methodology: first('Methodology', 'Protocol', 'methodology'),
    proponent: first('Proponent', 'Project Developer', 'Project Developer Name', 'developer'),
    status: first('Status', 'status'),
    type: first('Project Type', 'type', 'pathway'),
  });
}
