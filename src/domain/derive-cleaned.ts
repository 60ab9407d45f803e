import type { CountryLookup } from './country-lookup.js';
import { distinct } from './enrichment.js';
import type { StoredProject } from './stored-project.js';
import type { CleanedRecord } from './cleaned-record.js';
import { parseCreditPeriods } from './credit-period.js';
import { cleanedRecord, deriveFromExport } from './derive-from-export.js';
import { cleanDocumentGroups } from './document-groups.js';
import { parseRawRecordLeniently } from './lenient-raw-record.js';
import { projectLocation } from './project-location.js';
import { type RawRecord, attributeOccurrences, attributeValues, firstAttribute } from './raw-record.js';
import { formatDayMonthYear, parseHectares, parseRegistryDate, parseRegistryNumber } from './registry-values.js';
import type { ExportFields } from './registry-exports/index.js';
import { expandSubcategories } from './subcategories.js';

/** The label SPEC 2.1 mentions for a project with several proponents; their names go to specific_proponents. */
export const MULTIPLE_PROPONENTS = 'Multiple Proponents';

export interface DeriveContext {
  /** The registry as the request spelled it; the cleaned record echoes it (SPEC 2.1). */
  requestedRegistry: string;
  countries: CountryLookup;
}

/**
 * The cleaned record of a stored project (CONTRACT 5). Pure and total: odd registry data gives the documented
 * fallbacks (0, null, '', empty lists; docs/derived-fields.md), never an exception, so the metadata API cannot fail
 * on it.
 */
export function deriveCleaned(stored: StoredProject, ctx: DeriveContext): CleanedRecord {
  if (stored.format.startsWith('csv:')) return deriveFromExport(stored, ctx);
  const raw = parseRawRecordLeniently(stored.raw, stored.ref);
  const proponents = proponentNames(raw);
  return cleanedRecord(stored, ctx.requestedRegistry, registryFields(raw, ctx.countries), {
    documentGroups: cleanDocumentGroups(raw.documentGroups, defaultProgram(raw, stored.ref.registry)),
    ...(proponents.length > 1 ? { specificProponents: proponents } : {}),
  });
}

/** The fields of a registry JSON record, in the shape of an export row's (the enrichment reads them too). */
export function registryFields(raw: RawRecord, countries: CountryLookup): ExportFields {
  const proponents = proponentNames(raw);
  const type = (firstAttribute(raw, 'PRIMARY_PROJECT_CATEGORY_NAME') ?? '').trim();
  return {
    name: raw.resourceName,
    description: raw.description,
    location: projectLocation(raw, countries),
    methodology: distinct(attributeValues(raw, 'PROTOCOL_NAME')).join(', '),
    proponent: proponents.length > 1 ? MULTIPLE_PROPONENTS : (proponents[0] ?? ''),
    reductions: parseRegistryNumber(firstAttribute(raw, 'EST_ANNUAL_EMISSION_REDCT')) ?? 0,
    registration: formatDayMonthYear(parseRegistryDate(firstAttribute(raw, 'PROJECT_REGISTRATION_DATE'))),
    status: (firstAttribute(raw, 'PROJECT_STATUS') ?? '').trim(),
    type,
    creditPeriods: parseCreditPeriods(attributeValues(raw, 'CREDIT_PERIOD_INFO')),
    sizeHectares: parseHectares(firstAttribute(raw, 'PROJECT_ACREAGE')) ?? 0,
    // Subcategory names, then the primary category.
    reductionActivity: distinct([...expandSubcategories(attributeValues(raw, 'PROJECT_SUBCATERGORY_NAMES')), type]),
  };
}

/**
 * One name per PROPONENT_NAME attribute: its first value (the others are the proponent's location and contact
 * strings, as in record 4086). The same name under two programs counts once.
 */
export function proponentNames(raw: RawRecord): string[] {
  return distinct(attributeOccurrences(raw, 'PROPONENT_NAME').map((values) => values[0] ?? ''));
}

/** The program code for group names the registry did not send: the record's first program, else VCS for Verra. */
function defaultProgram(raw: RawRecord, registry: string): string {
  const program = raw.participationSummaries.map((p) => p.programCode.trim()).find((c) => c !== '');
  return program ?? (registry === 'Verra' ? 'VCS' : registry);
}
