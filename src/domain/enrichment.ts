import type { ProjectEnrichment } from './cleaned-record.js';
import { distinctBy } from './text.js';

/** Small shared helpers of the record derivations (derive-cleaned.ts, derive-from-export.ts, registry exports). */

/** Trimmed, non-empty values, first spelling kept, compared case-insensitively; order preserved. */
export function distinct(values: readonly string[]): string[] {
  const trimmed = values.map((v) => v.trim()).filter((t) => t !== '');
  return distinctBy(trimmed, (t) => t.toLowerCase());
}

/**
 * Enrichment is stored JSON written by other processes; a field of the wrong shape is treated as absent so the
 * fallback applies instead of a malformed value reaching the response.
 */
export function sanitizeEnrichment(e: ProjectEnrichment | null | undefined): ProjectEnrichment {
  const out: ProjectEnrichment = {};
  if (!e || typeof e !== 'object') return out;
  if (typeof e.summary === 'string' && e.summary.trim() !== '') out.summary = e.summary;
  if (e.emissionsReductions && typeof e.emissionsReductions === 'object' && !Array.isArray(e.emissionsReductions)) {
    const er: Record<string, number> = {};
    for (const [year, value] of Object.entries(e.emissionsReductions)) {
      if (/^\d{4}$/.test(year) && typeof value === 'number' && Number.isFinite(value)) er[year] = value;
    }
    if (Object.keys(er).length > 0) out.emissionsReductions = er;
  }
  if (typeof e.issuances === 'number' && Number.isFinite(e.issuances)) out.issuances = e.issuances;
  if (typeof e.retirements === 'number' && Number.isFinite(e.retirements)) out.retirements = e.retirements;
  if (Array.isArray(e.reductionActivity)) {
    const activities = distinct(e.reductionActivity.filter((a): a is string => typeof a === 'string'));
    if (activities.length > 0) out.reductionActivity = activities;
  }
  return out;
}
