import type { ProjectEnrichment } from '../domain/cleaned-record.js';
import { spreadAnnualEstimate } from '../domain/credit-period.js';
import { registryFields } from '../domain/derive-cleaned.js';
import { exportRowFields } from '../domain/derive-from-export.js';
import { findEmissionTable, tableSum } from '../domain/emission-table.js';
import { documentRank, firstSentences, isDescriptionDocument, stripMarkers, summaryPassages } from '../domain/project-summary.js';
import type { DocText } from '../domain/project-summary.js';
import { parseRawRecordLeniently } from '../domain/lenient-raw-record.js';
import { projectKey, type ProjectRef } from '../domain/project-ref.js';
import { attributeValues } from '../domain/raw-record.js';
import { reductionActivities } from '../domain/reduction-activity.js';
import type { ExportFields } from '../domain/registry-exports/index.js';
import { withoutTableRows } from '../domain/tables.js';
import type { Logger } from '../logger.js';
import type { CountryLookup } from '../ports/country-lookup.js';
import { NO_COUNTRIES } from '../domain/country-lookup.js';
import type { DocumentState, DocumentStateStore } from '../ports/document-state-store.js';
import type { DocumentTextStore } from '../ports/document-text-store.js';
import type { RecordStore, StoredProject } from '../ports/record-store.js';
import type { SummarizeInput, Summarizer } from '../ports/summarizer.js';

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

/** The registry fields the enrichment reads: an export row's activities as it names them, a registry record's codes. */
type ProjectFacts = Pick<ExportFields, 'reductions' | 'creditPeriods' | 'type' | 'reductionActivity'> & { subcategoryCodes: string[] };

function projectFacts(stored: StoredProject, countries: CountryLookup): ProjectFacts {
  if (stored.format.startsWith('csv:')) {
    // A row its mapping cannot read has no facts.
    const fields = exportRowFields(stored, countries);
    return { reductions: 0, creditPeriods: [], type: '', reductionActivity: [], ...fields, subcategoryCodes: [] };
  }
  const raw = parseRawRecordLeniently(stored.raw, stored.ref);
  return { ...registryFields(raw, countries), reductionActivity: [], subcategoryCodes: attributeValues(raw, 'PROJECT_SUBCATERGORY_NAMES') };
}

/**
 * What to store when no table was found (docs/derived-fields.md, "Fallback"): an empty map, so that the record spreads
 * its current estimate when read; for an estimate of 0, one 0 per crediting year rather than no data.
 */
function estimateByYear(facts: ProjectFacts): Record<string, number> {
  if (facts.reductions !== 0 || facts.creditPeriods.length === 0) return {};
  const years = Object.keys(spreadAnnualEstimate(1, facts.creditPeriods));
  return Object.fromEntries(years.map((y) => [y, 0]));
}

/**
 * The project's indexed documents with text, in rank order (the project description first). The derived fields are
 * read from the pages as the PDF gives them, without the table rows written out after them.
 */
async function indexedTexts({ ref, texts, documents }: EnrichProjectInput): Promise<DocText<DocumentState>[]> {
  const states = (await documents.list({ projects: [ref], status: 'indexed' })).sort(
    (a, b) => documentRank(a) - documentRank(b) || a.title.localeCompare(b.title),
  );
  const docs: DocText<DocumentState>[] = [];
  for (const state of states) {
    const pages = (await texts.get(ref, state.documentId))?.map(withoutTableRows);
    if (pages && pages.some((p) => p.trim() !== '')) docs.push({ state, pages });
  }
  return docs;
}

type Reductions = Required<Pick<ProjectEnrichment, 'emissionsReductions' | 'emissionsReductionsSource'>>;

/** emissions_reductions: the first description document with a table, else the estimate spread over the years. */
function emissionsReductions(descriptions: DocText<DocumentState>[], facts: ProjectFacts, log: Logger | undefined): Reductions {
  for (const d of descriptions) {
    const table = findEmissionTable(d.pages, facts.reductions);
    if (table === null) continue;
    const sum = tableSum(table);
    const mismatch = table.total !== null && Math.abs(sum - table.total) > Math.max(1, Math.abs(table.total) * 0.01);
    const found = { document: d.state.title, pages: table.pages, years: table.rows.length, total: table.total, sum };
    const message = mismatch
      ? 'emission table rows do not add up to its total row (kept as read)'
      : 'emission reductions read from the project description';
    log?.info({ field: 'emissions_reductions', source: 'document', ...found }, message);
    return { emissionsReductions: table.values, emissionsReductionsSource: 'document' };
  }
  log?.info(
    { field: 'emissions_reductions', source: 'estimate', annualEstimate: facts.reductions, descriptionDocuments: descriptions.length },
    'no emission table found; the annual estimate is spread over the crediting period when the record is read',
  );
  return { emissionsReductions: estimateByYear(facts), emissionsReductionsSource: 'estimate' };
}

/**
 * summary: the summariser's over the documents' passages, else the first sentences of the first passage or page;
 * '' without documents, so that the cleaned record keeps its fallback (the description).
 */
async function documentSummary(docs: DocText<DocumentState>[], input: EnrichProjectInput, log: Logger | undefined): Promise<string> {
  const { summarizer, signal } = input;
  // `docs` is in rank order, so the project description's passages come first.
  const passages = summaryPassages(docs);
  let summary = '';
  if (passages.length > 0) {
    try {
      const question: SummarizeInput = { question: SUMMARY_QUESTION, passages, maxChars: SUMMARY_MAX_CHARS, purpose: 'summary' };
      summary = stripMarkers(await summarizer.summarize(question, signal));
    } catch (err) {
      if (signal?.aborted) throw err;
      log?.warn({ err: (err as Error).message, model: summarizer.model }, 'summariser failed; using the first passage');
    }
  }
  summary ||= firstSentences(passages[0]?.text ?? '') || firstSentences(docs.flatMap((d) => d.pages).find((p) => p.trim() !== '') ?? '');
  if (summary !== '') {
    const cited = passages.map((p) => `${p.documentTitle} p.${p.page}`);
    log?.info({ field: 'summary', model: summarizer.model, passages: cited }, 'summary generated from documents');
  }
  return summary;
}

export async function enrichProject(input: EnrichProjectInput): Promise<ProjectEnrichment> {
  const log = input.logger?.child({ project: projectKey(input.ref) });
  const facts = projectFacts(input.stored, input.countries ?? NO_COUNTRIES);
  const docs = await indexedTexts(input);
  const descriptions = docs.filter((d) => isDescriptionDocument(d.state));
  const enrichment: ProjectEnrichment = emissionsReductions(descriptions, facts, log);
  const activities = reductionActivities({
    subcategoryCodes: facts.subcategoryCodes,
    activityNames: facts.reductionActivity,
    category: facts.type,
    descriptionPages: descriptions[0]?.pages ?? [],
  });
  if (activities.length > 0) enrichment.reductionActivity = activities;
  const summary = await documentSummary(docs, input, log);
  if (summary !== '') enrichment.summary = summary;
  await input.records.updateEnrichment(input.ref, enrichment);
  return enrichment;
}
