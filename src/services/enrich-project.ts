import type { ProjectEnrichment } from '../domain/cleaned-record.js';
import { parseCreditPeriods, spreadAnnualEstimate, type CreditPeriod } from '../domain/credit-period.js';
import { findEmissionTable, tableSum, type EmissionTable } from '../domain/emission-table.js';
import { isContentsText, stripPageFurniture } from '../domain/page-furniture.js';
import { splitSentences } from '../domain/sentences.js';
import { parseRawRecordLeniently } from '../domain/lenient-raw-record.js';
import { projectKey, type ProjectRef } from '../domain/project-ref.js';
import { attributeValues, firstAttribute } from '../domain/raw-record.js';
import { reductionActivities } from '../domain/reduction-activity.js';
import { exportMappingForFormat } from '../domain/registry-exports/index.js';
import { parseRegistryNumber } from '../domain/registry-values.js';
import type { Logger } from '../logger.js';
import type { CountryLookup } from '../ports/country-lookup.js';
import type { DocumentState, DocumentStateStore } from '../ports/document-state-store.js';
import type { DocumentTextStore } from '../ports/document-text-store.js';
import type { RecordStore, StoredProject } from '../ports/record-store.js';
import type { CitedPassage, Summarizer } from '../ports/summarizer.js';

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

/** Document types that describe the project itself, best first (SPEC 2.6 observed values and other registries'). */
const DESCRIPTION_TYPES: ReadonlyArray<readonly [RegExp, number]> = [
  [/^project description$/i, 0],
  [/^project design document$|\bPDD\b/i, 0],
  [/^draft project description$/i, 1],
  [/^project plan$|project plan/i, 1],
  [/project description|design document/i, 2],
];
const OTHER_TYPES: ReadonlyArray<readonly [RegExp, number]> = [
  [/validation report/i, 10],
  [/monitoring report/i, 11],
  [/verification report/i, 12],
  [/registration review/i, 13],
];
/** Titles that give a project description away when its type is generic ("Other"). */
const DESCRIPTION_TITLE = /proj(?:ect)?[_ -]?desc|project[_ -]?design|\bPDD\b|project[_ -]?plan/i;

export function documentRank(d: Pick<DocumentState, 'documentType' | 'title'>): number {
  for (const [re, rank] of DESCRIPTION_TYPES) if (re.test(d.documentType)) return rank;
  if (DESCRIPTION_TITLE.test(d.title)) return 3;
  for (const [re, rank] of OTHER_TYPES) if (re.test(d.documentType)) return rank;
  return 20;
}

export function isDescriptionDocument(d: Pick<DocumentState, 'documentType' | 'title'>): boolean {
  return documentRank(d) <= 3;
}

const SUMMARY_QUESTION =
  'Summarise the project: what it is, where it takes place, which activities it carries out, who runs it, ' +
  'and the emission reductions or removals it expects.';
const SUMMARY_MAX_CHARS = 1200;
const MAX_PASSAGES = 6;
const PASSAGE_CHARS = 900;
const FALLBACK_CHARS = 800;

const HEADING =
  /^(?:section\s+)?(?:[A-Z]?\d*(?:\.\d+)*\.?\s+)?(?:summary description of the project|(?:general )?description of the (?:proposed )?(?:a\/r )?(?:cdm )?project(?: activity)?|executive summary|project (?:overview|summary)|summary of the project)\b/i;

function isHeadingLine(line: string): boolean {
  const l = line.replace(/\s+/g, ' ').trim();
  if (l.length > 140 || /\.{4,}|…{2,}/.test(l) || /\s\d+(\s*-\s*\d+)?$/.test(l)) return false;
  return HEADING.test(l);
}

/** Running prose: enough letters, no table-of-contents leaders, not a grid of numbers. */
function isProse(text: string): boolean {
  if (text.length < 160) return false;
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const digits = text.match(/\d/g)?.length ?? 0;
  if (/\.{5,}|…{2,}/.test(text)) return false;
  return letters / text.length > 0.6 && digits / text.length < 0.12;
}

/** Sentence-aligned pieces of at most `max` characters (a longer sentence is its own piece). */
function pieces(text: string, max = PASSAGE_CHARS): string[] {
  const out: string[] = [];
  let current = '';
  for (const s of splitSentences(text)) {
    if (current !== '' && current.length + 1 + s.length > max) {
      out.push(current);
      current = s;
    } else {
      current = current === '' ? s : `${current} ${s}`;
    }
  }
  if (current !== '') out.push(current);
  return out;
}

interface DocText {
  state: DocumentState;
  pages: string[];
}

/**
 * Passages for the summary: from the first document, the text under its summary heading (VCS PD 1.1 "Summary
 * Description of the Project", CDM A.2 "Description of the project activity", "Executive summary") and the page
 * after, else its first pages of prose; then the same from the next documents until there are enough.
 */
export function summaryPassages(docs: readonly DocText[], max = MAX_PASSAGES): CitedPassage[] {
  const out: CitedPassage[] = [];
  for (const doc of docs) {
    if (out.length >= max) break;
    // Pages indexed before the ingest removed page furniture still carry it; removing it again changes nothing.
    const pages = stripPageFurniture(doc.pages);
    let start = -1;
    let startLine = 0;
    for (let i = 0; i < pages.length && start < 0; i++) {
      if (isContentsText(pages[i] ?? '')) continue;
      const lines = (pages[i] ?? '').split('\n');
      const at = lines.findIndex(isHeadingLine);
      if (at >= 0) {
        start = i;
        startLine = at + 1;
      }
    }
    const candidates: { page: number; text: string }[] = [];
    if (start >= 0) {
      const first = (pages[start] ?? '').split('\n').slice(startLine).join('\n');
      candidates.push({ page: start + 1, text: first });
      if (pages[start + 1] !== undefined) candidates.push({ page: start + 2, text: pages[start + 1] ?? '' });
    }
    for (let i = 0; i < Math.min(pages.length, 10); i++) {
      if (!isContentsText(pages[i] ?? '')) candidates.push({ page: i + 1, text: pages[i] ?? '' });
    }
    const taken = new Set<string>();
    const perDoc = docs.length > 1 && out.length > 0 ? 2 : max;
    let fromThis = 0;
    for (const c of candidates) {
      for (const text of pieces(c.text)) {
        if (out.length >= max || fromThis >= perDoc) break;
        if (!isProse(text) || taken.has(text)) continue;
        taken.add(text);
        out.push({ id: out.length + 1, text, documentTitle: doc.state.title, page: c.page });
        fromThis++;
      }
    }
  }
  return out;
}

/** Summaries are stored without [n] markers: the cleaned record has no citations to point them at. */
export function stripMarkers(text: string): string {
  return text
    .replace(/\s*\[\s*\d+(?:\s*[,\u2013-]\s*\d+)*\s*\]/g, '')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/ +([.,;:!?])/g, '$1')
    .trim();
}

function firstSentences(text: string, maxChars = FALLBACK_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxChars) return flat;
  const cut = flat.slice(0, maxChars);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('.'));
  return end > maxChars / 3 ? cut.slice(0, end + 1) : `${cut.replace(/\s+\S*$/, '')}…`;
}

interface ProjectFacts {
  annualEstimate: number;
  periods: CreditPeriod[];
  subcategoryCodes: string[];
  activityNames: string[];
  category: string;
}

const NO_COUNTRIES: CountryLookup = { countryAt: () => null };

function projectFacts(stored: StoredProject, countries: CountryLookup): ProjectFacts {
  const mapping = exportMappingForFormat(stored.format);
  if (stored.format.startsWith('csv:')) {
    if (!mapping) return { annualEstimate: 0, periods: [], subcategoryCodes: [], activityNames: [], category: '' };
    const row: Record<string, string> = {};
    for (const [k, v] of Object.entries(stored.raw)) if (typeof v === 'string') row[k] = v;
    try {
      const f = mapping.fields(row, countries);
      return { annualEstimate: f.reductions, periods: f.creditPeriods, subcategoryCodes: [], activityNames: f.reductionActivity, category: f.type };
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
  const docs: DocText[] = [];
  for (const state of states) {
    const pages = await texts.get(ref, state.documentId);
    if (pages && pages.some((p) => p.trim() !== '')) docs.push({ state, pages });
  }
  const descriptions = docs.filter((d) => isDescriptionDocument(d.state));
  const enrichment: ProjectEnrichment = {};

  // emissions_reductions: the first description document with a table, else the estimate spread over the years.
  let table: EmissionTable | null = null;
  let tableDoc: DocText | null = null;
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
      { field: 'emissions_reductions', source: 'document', document: tableDoc.state.title, pages: table.pages, years: table.rows.length, total: table.total, sum },
      mismatch ? 'emission table rows do not add up to its total row (kept as read)' : 'emission reductions read from the project description',
    );
  } else {
    enrichment.emissionsReductions = estimateByYear(facts);
    enrichment.emissionsReductionsSource = 'estimate';
    log?.info(
      { field: 'emissions_reductions', source: 'estimate', annualEstimate: facts.annualEstimate, descriptionDocuments: descriptions.length },
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
          await summarizer.summarize({ question: SUMMARY_QUESTION, passages, maxChars: SUMMARY_MAX_CHARS, purpose: 'summary' }, input.signal),
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
