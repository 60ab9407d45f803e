import type { ProjectEnrichment } from '../domain/cleaned-record.js';
import { parseCreditPeriods, spreadAnnualEstimate, type CreditPeriod } from '../domain/credit-period.js';
import { findEmissionTable, tableSum, type EmissionTable } from '../domain/emission-table.js';
import {
  documentRank,
  firstSentences,
  isDescriptionDocument,
  stripMarkers,
  summaryPassages,
  type DocText,
} from '../domain/project-summary.js';
import { parseRawRecordLeniently } from '../domain/lenient-raw-record.js';
import { projectKey, type ProjectRef } from '../domain/project-ref.js';
import { attributeValues, firstAttribute } from '../domain/raw-record.js';
import { reductionActivities } from '../domain/reduction-activity.js';
import { exportMappingForFormat } from '../domain/registry-exports/index.js';
import { parseRegistryNumber } from '../domain/registry-values.js';
import { withoutTableRows } from '../domain/tables.js';
import type { Logger } from '../logger.js';
import type { CountryLookup } from '../ports/country-lookup.js';
import { NO_COUNTRIES } from '../domain/country-lookup.js';
import type { DocumentState, DocumentStateStore } from '../ports/document-state-store.js';
import type { DocumentTextStore } from '../ports/document-text-store.js';
import type { RecordStore, StoredProject } from '../ports/record-store.js';
import type { Summarizer } from '../ports/summarizer.js';

/**
 * Document-derived fields of one project (docs/derived-fields.md): reads the text of its indexed documents from the
 * DocumentTextStore, derives summary, emissions_reductions (+ where they came from) and reduction_activity, and
 * writes them with RecordStore.updateEnrichment. Issuance totals are not touched (ingest/transactions.ts owns them).
 */

export interface EnrichProjectInput {
  ref: ProjectRef;
  stored: StoredProject;
  texts: DocumentTextStore;
  documents: DocumentStateStore;
  summarizer: Summarizer;
  records: RecordStore;
  logger?: Logger;
  /** Needed only for export rows without a country column (Isometric); a no-op lookup otherwise. */
  countries?: CountryLookup;
  signal?: AbortSignal;
}

const SUMMARY_QUESTION =
  'Summarise the project: what it is, where it takes place, which activities it carries out, who runs it, ' +
  'and the emission reductions or removals it expects.';
const SUMMARY_MAX_CHARS = 1200;

interface ProjectFacts {
  annualEstimate: number;
  periods: CreditPeriod[];
  subcategoryCodes: string[];
  activityNames: string[];
  category: string;
}

function projectFacts(stored: StoredProject, countries: CountryLookup): ProjectFacts {
  const mapping = exportMappingForFormat(stored.format);
  if (stored.format.startsWith('csv:')) {
    if (!mapping) return { annualEstimate: 0, periods: [], subcategoryCodes: [], activityNames: [], category: '' };
    const row: Record<string, string> = {};
    for (const [k, v] of Object.entries(stored.raw)) if (typeof v === 'string') row[k] = v;
    try {
      const f = mapping.fields(row, countries);
      return {
        annualEstimate: f.reductions,
        periods: f.creditPeriods,
        subcategoryCodes: [],
        activityNames: f.reductionActivity,
        category: f.type,
      };
    } catch {
      return { annualEstimate: 0, periods: [], subcategoryCodes: [], activityNames: [], category: '' };
    }
  }
  const raw = parseRawRecordLeniently(stored.raw, stored.ref);
  return {
    annualEstimate: parseRegistryNumber(firstAttribute(raw, 'EST_ANNUAL_EMISSION_REDCT')) ?? 0,
    periods: parseCreditPeriods(attributeValues(raw, 'CREDIT_PERIOD_INFO')),
    subcategoryCodes: attributeValues(raw, 'PROJECT_SUBCATERGORY_NAMES'),
    activityNames: [],
    category: (firstAttribute(raw, 'PRIMARY_PROJECT_CATEGORY_NAME') ?? '').trim(),
  };
}

/**
 * What to store when no table was found. The cleaned record's own fallback already spreads the registry's current
 * estimate over the crediting years (src/domain/credit-period.ts) each time it is read, so an empty map is stored:
 * it clears a table read from an earlier version of the documents and lets a re-imported record's new estimate
 * show at once. The fallback gives nothing for an estimate of 0, so then one 0 per crediting year is stored: the
 * registry's estimate, stated per year, rather than no data.
 */
function estimateByYear(facts: ProjectFacts): Record<string, number> {
  if (facts.annualEstimate !== 0 || facts.periods.length === 0) return {};
  const years = Object.keys(spreadAnnualEstimate(1, facts.periods));
  return Object.fromEntries(years.map((y) => [y, 0]));
}

export async function enrichProject(input: EnrichProjectInput): Promise<ProjectEnrichment> {
  const { ref, stored, texts, documents, summarizer, records } = input;
  const log = input.logger?.child({ project: projectKey(ref) });
  const facts = projectFacts(stored, input.countries ?? NO_COUNTRIES);

  const states = (await documents.list({ projects: [ref], status: 'indexed' })).sort(
    (a, b) => documentRank(a) - documentRank(b) || a.title.localeCompare(b.title),
  );
  const docs: DocText<DocumentState>[] = [];
  for (const state of states) {
    // The derived fields are read from the pages as the PDF gives them, without the table rows written out after them.
    const pages = (await texts.get(ref, state.documentId))?.map(withoutTableRows);
    if (pages && pages.some((p) => p.trim() !== '')) docs.push({ state, pages });
  }
  const descriptions = docs.filter((d) => isDescriptionDocument(d.state));
  const enrichment: ProjectEnrichment = {};

  // emissions_reductions: the first description document with a table, else the estimate spread over the years.
  let table: EmissionTable | null = null;
  let tableDoc: DocText<DocumentState> | null = null;
  for (const d of descriptions) {
    table = findEmissionTable(d.pages, { annualEstimate: facts.annualEstimate });
    if (table) {
      tableDoc = d;
      break;
    }
  }
  if (table && tableDoc) {
    enrichment.emissionsReductions = table.values;
    enrichment.emissionsReductionsSource = 'document';
    const sum = tableSum(table);
    const mismatch = table.total !== null && Math.abs(sum - table.total) > Math.max(1, Math.abs(table.total) * 0.01);
    log?.info(
      {
        field: 'emissions_reductions',
        source: 'document',
        document: tableDoc.state.title,
        pages: table.pages,
        years: table.rows.length,
        total: table.total,
        sum,
      },
      mismatch
        ? 'emission table rows do not add up to its total row (kept as read)'
        : 'emission reductions read from the project description',
    );
  } else {
    enrichment.emissionsReductions = estimateByYear(facts);
    enrichment.emissionsReductionsSource = 'estimate';
    log?.info(
      {
        field: 'emissions_reductions',
        source: 'estimate',
        annualEstimate: facts.annualEstimate,
        descriptionDocuments: descriptions.length,
      },
      'no emission table found; the annual estimate is spread over the crediting period when the record is read',
    );
  }

  const activities = reductionActivities({
    subcategoryCodes: facts.subcategoryCodes,
    activityNames: facts.activityNames,
    category: facts.category,
    descriptionPages: descriptions[0]?.pages ?? [],
  });
  if (activities.length > 0) enrichment.reductionActivity = activities;

  // summary: only from documents; without indexed text the cleaned record keeps its fallback (the description).
  if (docs.length > 0) {
    // `docs` is in rank order, so the project description's passages come first.
    const passages = summaryPassages(docs);
    let summary = '';
    if (passages.length > 0) {
      try {
        summary = stripMarkers(
          await summarizer.summarize(
            { question: SUMMARY_QUESTION, passages, maxChars: SUMMARY_MAX_CHARS, purpose: 'summary' },
            input.signal,
          ),
        );
      } catch (err) {
        if (input.signal?.aborted) throw err;
        log?.warn({ err: (err as Error).message, model: summarizer.model }, 'summariser failed; using the first passage');
      }
      if (summary === '') summary = firstSentences(passages[0]?.text ?? '');
    }
    if (summary === '') {
      const firstText = docs.flatMap((d) => d.pages).find((p) => p.trim() !== '') ?? '';
      summary = firstSentences(firstText);
    }
    if (summary !== '') {
      enrichment.summary = summary;
      log?.info(
        { field: 'summary', model: summarizer.model, passages: passages.map((p) => `${p.documentTitle} p.${p.page}`) },
        'summary generated from documents',
      );
    }
  }

  await records.updateEnrichment(ref, enrichment);
  return enrichment;
}
