import { DEFAULT_MAX_TOP_K, DEFAULT_TOP_K, MAX_QUERY_CHARS } from '../domain/search-limits.js';
import { distinctProjects, projectKey, type ProjectRef, type RequestedProject } from '../domain/project-ref.js';
import { aggregateByPage, collapseNearDuplicates, convexCombination, reciprocalRankFusion, type RankedList } from '../domain/fusion.js';
import {
  findEvidence,
  HEDGED_SUPPORT,
  questionNamer,
  scopeTextTerms,
  warmPassage,
  type Evidence,
  type EvidencePassage,
  type LineContext,
  type Quote,
  type WeighedSentence,
} from '../domain/evidence.js';
import { validateMarkers } from '../domain/markers.js';
import { isContentsText, runningLineShapes, titleBlock } from '../domain/page-furniture.js';
import { questionAsks, textSearchQuery, withoutExclusions } from '../domain/query.js';
import { AppError, DependencyError } from '../errors.js';
import type { Logger } from '../logger.js';
import { deriveCleaned } from '../domain/derive-cleaned.js';
import { recordAnswers, recordFacts, recordFieldsAsked, type RecordFacts } from '../domain/record-answers.js';
import type { CountryLookup } from '../ports/country-lookup.js';
import { NO_COUNTRIES } from '../domain/country-lookup.js';
import type { DocumentStateStore } from '../ports/document-state-store.js';
import type { DocumentTextStore } from '../ports/document-text-store.js';
import type { Embedder } from '../ports/embedder.js';
import type { RecordStore, StoredProject } from '../ports/record-store.js';
import type { Reranker } from '../ports/reranker.js';
import type { CitedPassage, Summarizer } from '../ports/summarizer.js';
import type { ChunkFilter, ChunkRecord, ScoredChunk, VectorIndex } from '../ports/vector-index.js';

/** Which retrievers run: both fused (default), or one alone (evaluation and debugging). */
export type SearchMode = 'hybrid' | 'text' | 'vector';
export const SEARCH_MODES: readonly SearchMode[] = ['hybrid', 'text', 'vector'];

export interface SearchRequest {
  /** Distinct projects in request order (the HTTP layer resolved registries and rejected ambiguous ids). */
  projects: RequestedProject[];
  query: string;
  /** Citations to return. @default SearchServiceOptions.defaultTopK */
  topK?: number;
  /** @default 'hybrid' */
  mode?: SearchMode;
  signal?: AbortSignal;
  /** From SearchService.prepare; used when it is for this query (after trimming), else a new embedding is made. */
  prepared?: PreparedQuery;
  /** One answer per project as well as the overall one (CONTRACT 2, Evidence and abstention). @default false */
  perProject?: boolean;
  /** Only documents of these types (case-insensitive, matched against documentType). */
  documentTypes?: string[];
}

/** A question whose embedding has been started (SearchService.prepare). */
export interface PreparedQuery {
  /** The question as it will be searched (trimmed). */
  readonly query: string;
  readonly embedding: Promise<Float32Array[]>;
}

export interface Citation {
  id: number;
  projectId: number;
  registry: string;
  documentTitle: string;
  documentType: string;
  uri: string;
  page: number;
  text: string;
  /** The sentence(s) of `text` that bear on the question, verbatim (a substring of `text`). */
  quote: string;
  score: number;
  /** The page was read by OCR (CONTRACT 2, version 0.3); absent otherwise. */
  ocr?: true;
}

export interface ProjectIndexState {
  projectId: number;
  registry: string;
  indexedDocuments: number;
  /** With perProject: this project's own answer, whether it answers, and the ids of its citations. */
  answer?: string;
  answered?: boolean;
  citationIds?: number[];
}

/** CONTRACT section 2, batch search response. */
export interface SearchResponse {
  answer: string;
  /** False when the cited passages do not answer the question; `answer` then says so. */
  answered: boolean;
  citations: Citation[];
  answerModel: string;
  projects: ProjectIndexState[];
}

export interface SearchServiceOptions {
  index: VectorIndex;
  embedder: Embedder;
  /** Indexed-document counts per project (CONTRACT: `indexedDocuments`). */
  documents: DocumentStateStore;
  /**
   * Page texts of indexed documents: each citation's quote is looked for in its page around the passage, which is
   * widened to take it in (widenToEvidence), and the document's running lines are never quoted. Without it, quotes
   * come from the passages as indexed.
   */
  texts?: DocumentTextStore;
  /**
   * Finds the country of a record that gives only coordinates, for the records' answers to "Where is the project?"
   * (domain/record-answers.ts); without it a record's state or province and stated country are used.
   */
  countries?: CountryLookup;
  /** When given, projects it does not hold are reported with 0 documents and not searched. */
  records?: RecordStore;
  summarizer: Summarizer;
  /** Writes the answer when `summarizer` fails (an LLM timing out, an ungrounded reply). */
  fallbackSummarizer: Summarizer;
  reranker: Reranker;
  logger: Logger;
  /** @default 8 */
  defaultTopK?: number;
  /** @default 50 */
  maxTopK?: number;
  /** Longest accepted query in characters. @default 2000 */
  maxQueryChars?: number;
  /** Candidates fetched from each retriever before fusion: max(minCandidates, topK x candidateFactor). @default 40, 4 */
  minCandidates?: number;
  candidateFactor?: number;
  /**
   * How the full-text and dense lists are fused (domain/fusion.ts). @default 'convex'
   * - `convex`: textWeight x minmax(BM25) + vectorWeight x minmax(cosine). @default weights 0.7 / 0.3
   * - `rrf`: weighted reciprocal rank fusion with constant rrfK. @default weights 1 / 0.25, k 10
   * Measured on ../shared/corpus/qa-dev.jsonl (bench/README.md "eval"), both embedders: dense retrieval alone is far
   * weaker than BM25 on these documents (recall@5 0.17 USE, 0.47 MiniLM vs 0.80-0.87), so equal weights pull hybrid
   * below full text. RRF only sees ranks, so a weak dense list moves a clear BM25 winner as much as a near-tie; the
   * convex combination keeps BM25's margins and lets the dense score decide near-ties (recall@1 0.27 -> 0.37 with
   * USE, MiniLM recall@5 0.87 -> 0.90 in the settings experiment; hybrid 0.87 for both in the full evaluation, above
   * full text's 0.83). One coarse weight (0.7) for both embedders, on purpose: 30 questions cannot justify finer
   * tuning.
   */
  fusion?: 'rrf' | 'convex';
  textWeight?: number;
  vectorWeight?: number;
  rrfK?: number;
  /**
   * Page-level ranking (domain/fusion.ts aggregateByPage): one candidate per page, scored by its best chunk plus
   * this share of its other chunks' fused scores; null keeps chunk-level ranking. @default 0.2
   */
  pageBonus?: number | null;
  /** Answer length budget in characters. @default 600 */
  answerChars?: number;
  /** Evidence support below which a search is not answered (domain/evidence.ts). @default ANSWERED_SUPPORT */
  minSupport?: number;
  /** Told how long each stage of a search took, in seconds (the API's metrics). */
  onStage?: (stage: 'embed' | 'retrieve' | 'answer', seconds: number) => void;
  /**
   * Shown the passages the quotes are chosen from (each citation's page window) and every candidate sentence as
   * weighed, for the citations' evidence (evaluation: bench/eval/quotes.ts).
   */
  onEvidence?: (query: string, passages: readonly EvidencePassage[], sentences: readonly WeighedSentence[]) => void;
}

export interface SearchService {
  search(request: SearchRequest): Promise<SearchResponse>;
  /**
   * Starts embedding a question that a search will follow shortly, and returns it for SearchRequest.prepared: the
   * HTTP route calls it as soon as the body is parsed, so the slowest step runs while the request is validated.
   * Undefined for a question search() would refuse, and for text-only searches.
   */
  prepare?(query: string, mode?: SearchMode): PreparedQuery | undefined;
}

/**
 * Moves navigation chunks (tables of contents, with or without dot leaders: domain/page-furniture.ts
 * isContentsText) behind every other candidate, keeping both groups' order (applied after fusion, so whatever the
 * fusion method): they match a question's heading words without answering it, yet remain available when nothing
 * else matches.
 */
function demoteNavigation(items: ScoredChunk[]): ScoredChunk[] {
  const content: ScoredChunk[] = [];
  const nav: ScoredChunk[] = [];
  for (const c of items) (isContentsText(c.text) ? nav : content).push(c);
  return nav.length === 0 ? items : [...content, ...nav];
}

/**
 * Recently read page texts, by project and document: a search reads the pages of up to topK documents, and the next
 * searches read the same few documents again. Entries live PAGE_CACHE_MS (a re-indexed document is read again after
 * that; meanwhile its changed pages fail widenToEvidence's check and passages are cited as indexed).
 */
const PAGE_CACHE_DOCUMENTS = 256;
const PAGE_CACHE_MS = 300_000;

interface PageTexts {
  pages: string[];
  /** The document's running header and footer shapes (domain/page-furniture.ts), never quoted. */
  running: ReadonlySet<string>;
  /** The lines that open the document (domain/page-furniture.ts titleBlock): its words name it (EvidenceOptions.titles). */
  title: string;
}

/** The distinct titles of some documents (EvidenceOptions.titles), those with none left out. */
function titlesOf(documents: Iterable<PageTexts | undefined>): string[] {
  const titles = new Set<string>();
  for (const d of documents) if (d && d.title !== '') titles.add(d.title);
  return [...titles];
}

function createPageTextCache() {
  const entries = new Map<string, { at: number; pages: Promise<PageTexts | null> }>();
  return {
    get(key: string, load: () => Promise<PageTexts | null>): Promise<PageTexts | null> {
      const now = Date.now();
      const hit = entries.get(key);
      if (hit && now - hit.at < PAGE_CACHE_MS) {
        // Most recently used last.
        entries.delete(key);
        entries.set(key, hit);
        return hit.pages;
      }
      const pages = load();
      entries.set(key, { at: now, pages });
      // A failed read is not kept.
      pages.catch(() => entries.delete(key));
      while (entries.size > PAGE_CACHE_DOCUMENTS) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
      return pages;
    },
  };
}

/**
 * Characters of page text on each side of a passage in which its quote is looked for (widenToEvidence). Measured at
 * 400 / 700 / 1,000 / 1,500 over the development set and both held-out sets (bench/README.md, "answers", tenth
 * session): 700 reaches the fact a passage stops just short of (+2 on the report half and on qa-fresh2, -1 on
 * qa-fresh, the tuning half unchanged), wider windows start answering unanswerable questions.
 */
export const WINDOW_CHARS = 700;
/**
 * Pages whose passages a search reads ahead while its query embeds (warmWhileEmbedding): its citations (topK 8 by
 * default) are mostly among the full-text search's best pages, since full text weighs 0.7 in the fusion.
 */
const WARM_PAGES = 12;

/** The start of the sentence that `from` falls in, or `from` itself when none starts within 300 characters before. */
function sentenceStartBefore(page: string, from: number): number {
  if (from === 0) return 0;
  const head = page.slice(Math.max(0, from - 300), from);
  const m = /[.!?]["'\u201D\u2019)\]]*\s+(?=\S)(?![\s\S]*[.!?]["'\u201D\u2019)\]]*\s+\S)/u.exec(head);
  return m ? from - head.length + m.index + m[0].length : from;
}

/** The end of the sentence that `to` falls in (its final punctuation included), or `to` itself. */
function sentenceEndAfter(page: string, to: number): number {
  if (to >= page.length) return page.length;
  const tail = page.slice(to, to + 300);
  const m = /[.!?](?=["'\u201D\u2019)\]]*(?:\s|$))/u.exec(tail);
  return m ? to + m.index + 1 : to;
}

/**
 * Where a passage's quote is looked for: its page from the start of the sentence WINDOW_CHARS before it to the end
 * of the sentence WINDOW_CHARS after it (widenToEvidence). Null when the stored page is no longer the one the chunk
 * was cut from (a re-ingest may be under way).
 */
function pageWindow(
  doc: PageTexts,
  chunk: ChunkRecord,
): { page: string; start: number; end: number; chunkStart: number; chunkEnd: number } | null {
  const page = doc.pages[chunk.page - 1];
  const chunkEnd = chunk.offset + chunk.text.length;
  if (page === undefined || page.slice(chunk.offset, chunkEnd) !== chunk.text) return null;
  const start = sentenceStartBefore(page, Math.max(0, chunk.offset - WINDOW_CHARS));
  const end = sentenceEndAfter(page, Math.min(page.length, chunkEnd + WINDOW_CHARS));
  return { page, start, end, chunkStart: chunk.offset, chunkEnd };
}

/** A citation's document pages as the answer step read them, and its text's line context on its page. */
interface CitationRead {
  doc: PageTexts;
  line: LineContext;
}

/** The rest of the page lines that `page.slice(start, end)` starts and ends in (evidence.ts EvidencePassage.line). */
function lineContext(page: string, start: number, end: number): LineContext {
  const lineEnd = page.indexOf('\n', end);
  return { head: page.slice(page.lastIndexOf('\n', start - 1) + 1, start), tail: page.slice(end, lineEnd < 0 ? page.length : lineEnd) };
}

/** How far past its window a quote cut by the window's end is completed (completedQuoteEnd). */
const COMPLETE_CHARS = 200;

/**
 * A quote that runs to the end of its page window stops in the middle of its line when the page goes on ("... To
 * determine the emissions in the baseline, the follo"): the window ends there only when no sentence ends within 300
 * characters (sentenceEndAfter), so the text is a table's, a form's or a list's, whose unit is the line. The quote is
 * completed to the end of its line, or of its word when no line ends within COMPLETE_CHARS.
 */
function completedQuoteEnd(page: string, end: number, windowEnd: number): number {
  if (end < windowEnd || end >= page.length || page[end] === '\n') return end;
  // (A window mostly ends with its last sentence: then the quote is whole.)
  if (/[.!?;:]["'\u201D\u2019)\]]*\s*$/u.test(page.slice(Math.max(0, end - 4), end))) return end;
  const line = page.indexOf('\n', end);
  if (line >= 0 && line - end <= COMPLETE_CHARS) return page.slice(0, line).trimEnd().length;
  return end + (/^\S*/u.exec(page.slice(end, end + COMPLETE_CHARS))?.[0].length ?? 0);
}

/**
 * One ranking from several (one per project with perProject): each keeps its own order (demotions included), and
 * the next citation is the best-scoring head among them; ties go to the earlier group (request order).
 */
function mergeRankings(groups: ScoredChunk[][]): ScoredChunk[] {
  if (groups.length === 1) return groups[0] ?? [];
  const heads = groups.map(() => 0);
  const out: ScoredChunk[] = [];
  for (;;) {
    let best = -1;
    for (let g = 0; g < groups.length; g++) {
      const c = groups[g]?.[heads[g] ?? 0];
      if (c && (best < 0 || c.score > (groups[best]?.[heads[best] ?? 0]?.score ?? -Infinity))) best = g;
    }
    if (best < 0) return out;
    const c = groups[best]?.[heads[best] ?? 0];
    if (c) out.push(c);
    heads[best] = (heads[best] ?? 0) + 1;
  }
}

/**
 * Per-project rankings as one list of at most `limit`: every project's best passage first (best of them first), then
 * the others' as mergeRankings orders them.
 */
function headsFirst(groups: ScoredChunk[][], limit: number): ScoredChunk[] {
  const heads = groups.flatMap((g) => g.slice(0, 1)).sort((a, b) => b.score - a.score);
  const rest = mergeRankings(groups.map((g) => g.slice(1)));
  return [...heads, ...rest].slice(0, limit);
}

/** Passages searched for in each project when a question asks several for a field their records state (headsFirst). */
const EACH_PROJECT_CITATIONS = 2;
/** Characters of answer a project named, when a question asks several for a field their records state. */
const EACH_PROJECT_CHARS = 170;

/**
 * What names each cited project (domain/evidence.ts EvidenceOptions.scope), keyed by projectKey of the citation (the
 * registry as requested): its label, name, location, methodology and type from its record. Derived only for projects that
 * have citations.
 */
function projectScope(
  known: Map<string, StoredProject> | null,
  ranked: readonly ScoredChunk[],
  requestedSpelling: ReadonlyMap<string, string>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of ranked) {
    const key = projectKey(c);
    const spelling = requestedSpelling.get(key) ?? c.registry;
    const outKey = projectKey({ registry: spelling, projectId: c.projectId });
    if (out.has(outKey)) continue;
    out.set(outKey, [projectLabel({ registry: spelling, projectId: c.projectId }), ...recordNames(known?.get(key), spelling, true)]);
  }
  return out;
}

/**
 * What a project's record calls it: its cleaned name, location and methodology, and its type when `withType`. None
 * for a project without a record, or whose record cannot be derived.
 */
function recordNames(stored: StoredProject | undefined, registry: string, withType = false): string[] {
  if (!stored) return [];
  // A record is derived once per version (~0.15 ms each, and a search asks of every requested project: up to
  // MAX_BATCH_PROJECTS).
  const key = `${projectKey(stored.ref)}\u0000${registry}\u0000${stored.updatedAt}\u0000${withType}`;
  return perRecordVersion(RECORD_NAMES, key, () => {
    try {
      const cleaned = deriveCleaned(stored, { requestedRegistry: registry, countries: NO_COUNTRIES });
      const all = [cleaned.name, cleaned.location, cleaned.methodology, withType ? cleaned.type : null];
      return all.filter((n): n is string => typeof n === 'string' && n !== '');
    } catch {
      return [];
    }
  });
}
const RECORD_NAMES = new Map<string, string[]>();

/** A project's record facts (record-answers.ts), derived once per record version. */
function factsOf(stored: StoredProject, countries: CountryLookup | undefined): RecordFacts {
  return perRecordVersion(RECORD_FACTS, `${projectKey(stored.ref)}\u0000${stored.updatedAt}`, () => recordFacts(stored, countries));
}
const RECORD_FACTS = new Map<string, RecordFacts>();

/** Entries a cache of what records give (perRecordVersion) holds before it is cleared. */
const RECORD_CACHE_MAX = 20_000;

/** What `derive` gives for a record version's `key`, kept in `cache`; bounded by clearing the cache when full. */
function perRecordVersion<T>(cache: Map<string, T>, key: string, derive: () => T): T {
  const seen = cache.get(key);
  if (seen !== undefined) return seen;
  const value = derive();
  if (cache.size >= RECORD_CACHE_MAX) cache.clear();
  cache.set(key, value);
  return value;
}

/** Words of the records' expected answers added to a full-text query at most (a batch of 100 projects names many). */
const EXPANSION_WORDS = 48;

/**
 * A full-text query with the words of the records' expected answers (recordExpectations) after it, each once; a
 * figure is left out (its digits would match any table), and so are words past EXPANSION_WORDS.
 */
function withExpansion(query: string, expansion: readonly string[]): string {
  if (expansion.length === 0) return query;
  const own = new Set(query.split(' '));
  const added = new Set<string>();
  for (const text of expansion) {
    if (/^\d+$/u.test(text)) continue;
    for (const w of textSearchQuery(text).split(' ')) if (w !== '' && !own.has(w)) added.add(w);
  }
  return [query, ...[...added].slice(0, EXPANSION_WORDS)].join(' ').trim();
}

/**
 * What each searched project's record says the answer holds, keyed by projectKey, when the question asks for a field
 * the record states (record-answers.ts: "Who is the project proponent?"); empty for almost every question.
 */
function recordExpectations(
  question: string,
  refs: readonly ProjectRef[],
  /** The searched projects the question names (projectsNamed). */
  named: ReadonlySet<string>,
  known: Map<string, StoredProject> | null,
  countries: CountryLookup | undefined,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const fields = recordFieldsAsked(question);
  if (fields.length === 0 || !known) return out;
  // A question that names some of the searched projects asks what their records state, not the others'.
  for (const ref of named.size > 0 ? refs.filter((r) => named.has(projectKey(r))) : refs) {
    const stored = known.get(projectKey(ref));
    const texts = stored ? recordAnswers(fields, factsOf(stored, countries)) : [];
    if (texts.length > 0) out.set(projectKey(ref), texts);
  }
  return out;
}

/**
 * Share of its fused score that a passage keeps when the question names other searched documents or projects but not
 * its own (preferNamedDocuments). Measured on ../shared/corpus/qa-dev.jsonl over all seven projects (bench/README.md,
 * "answers", 2026-11-25 second session): fewer answers led by a project the question does not name, recall and
 * evidence unchanged; a lower share starts to refuse answerable questions.
 */
const UNNAMED_SHARE = 0.5;

/** A chunk's document, across projects. */
function documentKey(c: ChunkRecord): string {
  return `${projectKey(c)}\u0000${c.documentId}`;
}

/** Which of some chunks' documents a question names (documentKey), or null when it names none of them, or all. */
type DocumentNamer = (chunks: readonly ChunkRecord[]) => Set<string> | null;

/**
 * The documents a question names: all of a project's when it names the project (its name, place, methodology or an
 * id of three or more digits; projectsNamed: "Botany Farm" names Botany Farm, not Fonthill Farms), or one by its
 * title ("VM0006", "the VCS5533 validation"), through domain/evidence.ts questionNamer. A registry's name names none
 * (it names all its projects), nor does a short id (it is any number). Each document is judged once per search:
 * retrieval and the answer ask of the same documents.
 */
function documentNamer(
  question: string,
  /** The searched projects the question names (projectsNamed). */
  namedProjects: ReadonlySet<string>,
): DocumentNamer {
  const names = questionNamer(question);
  const judged = new Map<string, boolean>();
  const isNamed = (c: ChunkRecord): boolean => {
    const key = documentKey(c);
    let named = judged.get(key);
    if (named === undefined) {
      named = namedProjects.has(projectKey(c)) || names([scopeTextTerms(c.documentTitle)]).size > 0;
      judged.set(key, named);
    }
    return named;
  };
  return (chunks) => {
    const documents = new Set(chunks.map(documentKey));
    if (documents.size < 2) return null;
    const named = new Set(chunks.filter(isNamed).map(documentKey));
    return named.size === 0 || named.size === documents.size ? null : named;
  };
}

/** What names a project (documentNamer, withoutAsidesAboutOthers): its id of three or more digits, and its record's names. */
function projectNameTexts(ref: ProjectRef, known: Map<string, StoredProject> | null): ReadonlySet<string>[] {
  // Without a record (or one that cannot be derived), a project is named by its id (and its documents' titles).
  const id = String(ref.projectId).length >= 3 ? [String(ref.projectId)] : [];
  return [...id, ...recordNames(known?.get(projectKey(ref)), ref.registry)].map(scopeTextTerms);
}

/**
 * The searched projects (projectKey) a text names (questionNamer over their ids and records' names), but for those
 * whose naming words another project's include and exceed: "Botany Farm" names Botany Farm by two words, and
 * Fonthill Farms by one of them only ("Farm"). Projects named by the same words (a methodology they share) are all
 * named.
 */
function projectsNamed(text: string, projects: readonly ProjectRef[], known: Map<string, StoredProject> | null): Set<string> {
  const names = questionNamer(text);
  const words = projects.map((p) => names(projectNameTexts(p, known)));
  const outnamed = (own: Set<string>): boolean => words.some((other) => other.size > own.size && [...own].every((w) => other.has(w)));
  return new Set(projects.filter((_, i) => (words[i]?.size ?? 0) > 0 && !outnamed(words[i] as Set<string>)).map(projectKey));
}

/** An aside that adds a project to the question: "(and in 9199)", "(as well as Botany Farm)". */
const ADDS_TO_QUESTION = /^\s*(?:and|or|also|plus|both|including|as well as|together with)\b/iu;
/**
 * An aside that is a bare name or code, "(VM0001)", "(VCS 5533)", "(C06-006)": the name of what the words before it
 * describe ("the supermarket leak detection methodology (VM0001)"), not a remark about another project.
 */
const BARE_NAME = /^\s*(?=[^()]*\p{N})(?:[\p{Lu}\p{N}][\p{L}\p{N}.\-/]*\s*){1,3}$/u;

/**
 * The question without its bracketed asides about other projects: "Which version of the methodology does the
 * Fonthill Farms project plan apply (the Botany Farm plan uses 1.1)?" is about Fonthill Farms, and the aside gives
 * what another project does for contrast, as an exclusion clause names what is not wanted (query.ts
 * withoutExclusions). An aside is about others when it names at least one of the searched projects, the rest of the
 * question names at least one, and none of the projects it names; a gloss of the asked project ("VCS 5533
 * (afforestation of indigenously owned lands in West Bengal)") or of a document ("VM0005 (conversion of ...)") stays,
 * and so do a name in brackets after its description ("the leak detection methodology (VM0001)": BARE_NAME) and an
 * aside that adds a project to the question ("(and Botany Farm)").
 * Its words would pull the other project's passages into the full-text list, the named-document preference and the
 * answer's choice of sentences.
 */
export function withoutAsidesAboutOthers(
  question: string,
  projects: readonly ProjectRef[],
  known: Map<string, StoredProject> | null,
): string {
  const asides = [...question.matchAll(/\(([^()]*)\)/gu)];
  if (asides.length === 0 || projects.length < 2) return question;
  // (A leading stop word, so that an aside's first word is judged as a name as anywhere else in a question.)
  const named = (text: string): Set<string> => projectsNamed(`in ${text}`, projects, known);
  const main = named(question.replace(/\([^()]*\)/gu, ' '));
  if (main.size === 0) return question;
  let out = question;
  for (const m of asides) {
    if (ADDS_TO_QUESTION.test(m[1] ?? '') || BARE_NAME.test(m[1] ?? '')) continue;
    const aside = named(m[1] ?? '');
    if (aside.size > 0 && [...aside].every((p) => !main.has(p))) out = out.replace(m[0], ' ');
  }
  return out === question
    ? question
    : out
        .replace(/\s+([?.!,;:])/gu, '$1')
        .replace(/\s+/gu, ' ')
        .trim();
}

/** A question that names some of the searched documents is about those: the others' passages keep UNNAMED_SHARE of their score. */
function preferNamedDocuments(chunks: ScoredChunk[], namer: DocumentNamer): ScoredChunk[] {
  const named = namer(chunks);
  if (!named) return chunks;
  return chunks.map((c) => (named.has(documentKey(c)) ? c : { ...c, score: c.score * UNNAMED_SHARE })).sort((a, b) => b.score - a.score);
}

/** With perProject: each project without indexed documents gets an answer that says so, and no citation. */
function answerUnindexed(states: ProjectIndexState[]): void {
  for (const s of states) {
    if (s.indexedDocuments > 0) continue;
    s.answer = `No documents are indexed for ${projectLabel(s)}.`;
    s.answered = false;
    s.citationIds = [];
  }
}

/** How the answer names a project: its registry as requested and its id ("Verra 5533"). */
function projectLabel(p: { registry: string; projectId: number }): string {
  return `${p.registry} ${p.projectId}`;
}

/**
 * Citations each project gets at least with perProject (more when topK spread over the projects gives more): a
 * project's own answer, and its "not found", are judged on them. At 2 (the default topK of 8 over 7 projects), a
 * project's answer held the evidence of 40 of the 90 development questions asked of all 7 corpus projects; at 4, 52
 * (bench/README.md "answers", eighth session).
 */
const PER_PROJECT_CITATIONS = 4;

/** Projects an answer names one by one; a longer list is named by its first few and a count (describeProjects). */
const NAMED_PROJECTS = 5;

/**
 * The projects an answer speaks of: "Verra 5533", "CDM 1, CDM 547 and Verra 5533"; over NAMED_PROJECTS (a batch may
 * hold 100), the first three and how many more ("Verra 1, Verra 2, Verra 3 and 9 other projects"), so that a "not
 * found" answer stays a plain sentence. The response's `projects` list names them all.
 */
function describeProjects(projects: RequestedProject[]): string {
  const names = projects.map((p) => `${p.requestedRegistry} ${p.ref.projectId}`);
  if (names.length <= 1) return names.join('');
  if (names.length > NAMED_PROJECTS) return `${names.slice(0, 3).join(', ')} and ${names.length - 3} other projects`;
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * What an answer given on little evidence says first (support below HEDGED_SUPPORT, where an answer is more often not
 * the answer than it is): its passages hold some of the question's words, maybe not what is asked.
 */
export const ANSWER_HEDGE = 'The passages found may answer this only in part.';

export function createSearchService(opts: SearchServiceOptions): SearchService {
  const defaultTopK = opts.defaultTopK ?? DEFAULT_TOP_K;
  const maxTopK = opts.maxTopK ?? DEFAULT_MAX_TOP_K;
  const maxQueryChars = opts.maxQueryChars ?? MAX_QUERY_CHARS;
  const minCandidates = opts.minCandidates ?? 40;
  const candidateFactor = opts.candidateFactor ?? 4;
  const fusion = opts.fusion ?? 'convex';
  const weights =
    fusion === 'convex'
      ? { text: opts.textWeight ?? 0.7, vector: opts.vectorWeight ?? 0.3 }
      : { text: opts.textWeight ?? 1, vector: opts.vectorWeight ?? 0.25 };
  const rrfK = opts.rrfK ?? 10;
  const pageBonus = opts.pageBonus === undefined ? 0.2 : opts.pageBonus;
  const answerChars = opts.answerChars ?? 600;
  if (pageBonus !== null && !(pageBonus >= 0 && pageBonus <= 1)) {
    throw new RangeError(`search pageBonus must be in [0, 1] or null, got ${pageBonus}`);
  }
  if (!(defaultTopK >= 1 && defaultTopK <= maxTopK)) {
    throw new RangeError(`search defaultTopK must be in 1..maxTopK (${maxTopK}), got ${defaultTopK}`);
  }
  const log = opts.logger;
  const pageTexts = createPageTextCache();

  /**
   * The query embedding. Exclusion clauses ("(not Botany Farm)") are dropped: an embedding of them points at what is
   * not wanted.
   */
  const embedQuery = (query: string): Promise<Float32Array[]> => opts.embedder.embed([withoutExclusions(query)], 'query');

  /**
   * While the query embeds, the answer step's likely passages are read ahead (evidence.ts warmPassage): the windows
   * of the full-text search's best WARM_PAGES pages, cut as widenToEvidence cuts them. The main thread is otherwise
   * idle then (the model runs in its worker thread). One passage a macrotask, so the embedding's reply is let in
   * between them, and the warm-up stops once the query vector is there: it delays a search by one step at most (one
   * passage's reading, or one document's pages loaded, which the answer step mostly needs anyway since the full-text
   * side weighs most in the fusion). A page that cannot be read is left to the search itself (which logs it).
   */
  async function warmWhileEmbedding(items: readonly ScoredChunk[], queryVector: Promise<Float32Array>): Promise<void> {
    const texts = opts.texts;
    if (!texts) return;
    let embedded = false;
    const done = (): void => {
      embedded = true;
    };
    queryVector.then(done, done);
    const pages = new Set<string>();
    for (const chunk of items) {
      if (pages.size >= WARM_PAGES) return;
      const page = `${documentKey(chunk)}\u0000${chunk.page}`;
      if (pages.has(page)) continue;
      pages.add(page);
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (embedded) return;
      const doc = await documentPages(texts, chunk).catch(() => null);
      if (embedded) return;
      const window = doc ? pageWindow(doc, chunk) : null;
      if (doc && window) {
        warmPassage({
          text: window.page.slice(window.start, window.end),
          running: doc.running,
          line: lineContext(window.page, window.start, window.end),
        });
      }
    }
  }

  async function retrieve(
    query: string,
    refs: ProjectRef[],
    mode: SearchMode,
    topK: number,
    /** The pending query vector; null in text mode. */
    queryVector: Promise<Float32Array> | null,
    filter?: ChunkFilter,
    /** Which documents the question names (documentNamer): their passages are preferred. */
    namer?: DocumentNamer,
    /**
     * Names the searched projects' records give for what the question asks (recordExpectations): searched for as
     * well, in full text only, so that the passage naming the proponent is among those weighed, not only those that
     * say "the project proponent".
     */
    expansion: readonly string[] = [],
  ): Promise<ScoredChunk[]> {
    const candidates = Math.min(500, Math.max(minCandidates, topK * candidateFactor));
    const lists: Promise<RankedList>[] = [];
    if (mode !== 'vector') {
      const q = withExpansion(textSearchQuery(query), expansion);
      const textItems = opts.index.searchText(q, refs, candidates, filter);
      if (queryVector) void textItems.then((items) => warmWhileEmbedding(items, queryVector)).catch(() => undefined);
      lists.push(textItems.then((items) => ({ name: 'text', weight: weights.text, items })));
    }
    if (queryVector) {
      // The index is handed the pending embedding, so it can read the candidates meanwhile.
      const vectorList = opts.index
        .searchVector(queryVector, refs, candidates, filter)
        .then((items): RankedList => ({ name: 'vector', weight: weights.vector, items }));
      // In hybrid mode a remote embedder that is down costs the dense half, not the answer: full text still ranks.
      // Asked for dense retrieval alone, there is nothing to fall back on, so the failure is the caller's (503).
      lists.push(
        mode === 'hybrid'
          ? vectorList.catch((err: unknown) => {
              if (!(err instanceof DependencyError)) throw err;
              log.warn({ err: err.message, dependency: err.dependency }, 'query embedding failed; full-text results only');
              return { name: 'vector', weight: weights.vector, items: [] };
            })
          : vectorList,
      );
    }
    const fused =
      fusion === 'convex' ? convexCombination(await Promise.all(lists)) : reciprocalRankFusion(await Promise.all(lists), { k: rrfK });
    // The index filters before scoring; checking again here means a chunk of an unrequested project can never be
    // cited, whatever an adapter does under concurrent writes.
    const allowed = new Set(refs.map(projectKey));
    const filtered = fused.filter((c) => allowed.has(projectKey(c)));
    if (filtered.length !== fused.length) {
      log.error({ dropped: fused.length - filtered.length }, 'vector index returned chunks of unrequested projects');
    }
    const preferred = namer ? preferNamedDocuments(filtered, namer) : filtered;
    const ranked = demoteNavigation(pageBonus === null ? preferred : aggregateByPage(preferred, { bonus: pageBonus }));
    // Only as many distinct passages as the reranker looks at (topK when it keeps the order): the pairwise
    // comparison is the costly part.
    return collapseNearDuplicates(ranked, { limit: Math.max(topK, opts.reranker.window) });
  }

  /**
   * The answer when the evidence does not answer the question (CONTRACT 2: said plainly; citations still returned),
   * with why when it is that no cited page gives a figure in the unit asked.
   */
  function notFound(scope: RequestedProject[], unitMissing?: string): string {
    const why = unitMissing ? ` (no cited page gives a figure in ${unitMissing})` : '';
    return (
      `The indexed documents of ${describeProjects(scope)} do not appear to answer this question${why}; ` +
      'the closest passages found are cited for checking.'
    );
  }

  /**
   * The answer over some citations: written by the summariser from their quotes when the evidence answers the
   * question, else the plain "not found" (a summariser, an LLM above all, would write around the gap).
   */
  async function answer(
    query: string,
    citations: Citation[],
    evidence: Evidence,
    scope: RequestedProject[],
    signal?: AbortSignal,
    /** The question asks each project for a field its record states (SummarizeInput.eachProject). */
    eachProject = false,
  ): Promise<{ text: string; model: string }> {
    if (!evidence.answered) return { text: notFound(scope, evidence.unitMissing), model: opts.fallbackSummarizer.model };
    const projectsCited = new Set(citations.map(projectKey)).size;
    const multiProject = projectsCited > 1;
    const asEach = eachProject && multiProject;
    const quoteOf = new Map(evidence.quotes.map((q) => [q.passageId, q]));
    const passages: CitedPassage[] = citations.map((c) => {
      const q = quoteOf.get(c.id);
      return {
        id: c.id,
        text: c.text,
        quote: c.quote,
        ...(q ? { quoteWeight: { coverage: q.coverage, score: q.score } } : {}),
        ...(q?.label ? { quoteLabel: q.label } : {}),
        ...(q?.core && c.quote?.includes(q.core) ? { quoteCore: q.core } : {}),
        score: c.score,
        documentTitle: c.documentTitle,
        page: c.page,
        ...(multiProject ? { project: projectLabel(c) } : {}),
      };
    });
    // Asked of each project, the answer may run to EACH_PROJECT_CHARS a project it names (at most twice the budget).
    const maxChars = asEach ? Math.max(answerChars, Math.min(2 * answerChars, EACH_PROJECT_CHARS * projectsCited)) : answerChars;
    const input = { question: query, passages, maxChars, ...(asEach ? { eachProject: true } : {}) };
    let text: string;
    let model = opts.summarizer.model;
    try {
      text = await opts.summarizer.summarize(input, signal);
    } catch (err) {
      log.warn(
        { err: err instanceof Error ? err.message : String(err), model: opts.summarizer.model },
        'summariser failed; answering extractively',
      );
      text = await opts.fallbackSummarizer.summarize(input, signal);
      model = opts.fallbackSummarizer.model;
    }
    const validated = validateMarkers(
      text,
      citations.map((c) => c.id),
    );
    if (validated.removed.length > 0) {
      log.warn({ removed: validated.removed, model }, 'answer cited passages that do not exist; markers removed');
    }
    return { text: evidence.support < HEDGED_SUPPORT ? `${ANSWER_HEDGE} ${validated.text}` : validated.text, model };
  }

  /** A chunk's document pages as the answer step reads them (kept in the page text cache); null when not stored. */
  function documentPages(texts: DocumentTextStore, chunk: ScoredChunk): Promise<PageTexts | null> {
    return pageTexts.get(documentKey(chunk), async () => {
      const read = await texts.get(chunk, chunk.documentId);
      if (!read) return null;
      const running = runningLineShapes(read);
      return { pages: read, running, title: titleBlock(read, running) };
    });
  }

  /**
   * Sentence-window evidence: a passage is a cut of its page, and the sentence that answers often stands just before
   * or after the cut (or runs past it: "... planted are Pinus massoniana, Cunninghamia" stops three species short).
   * Each citation's quote is looked for in its page around the passage (WINDOW_CHARS each side), and the passage is
   * widened to take in the sentence found, so `text` still holds its `quote` and reads from the page as extracted.
   * Citations whose page text is unavailable or no longer matches the indexed chunk are left as they are.
   */
  async function widenToEvidence(
    query: string,
    citations: Citation[],
    chunks: ScoredChunk[],
    scope: string[],
    /** What each chunk's project record says the answer holds (recordExpectations), by projectKey. */
    expected: ReadonlyMap<string, readonly string[]>,
  ): Promise<{ read: Map<number, CitationRead>; evidence: Evidence | null }> {
    const read = new Map<number, CitationRead>();
    const texts = opts.texts;
    if (!texts || citations.length === 0) return { read, evidence: null };
    const pagesByDocument = new Map<string, Promise<PageTexts | null>>();
    const windows = await Promise.all(
      citations.map(async (c, i) => {
        const chunk = chunks[i];
        if (!chunk) return null;
        const key = documentKey(chunk);
        let pages = pagesByDocument.get(key);
        if (!pages) {
          pages = documentPages(texts, chunk).catch((err: unknown) => {
            log.warn({ err: err instanceof Error ? err.message : String(err) }, 'page text unavailable; passage cited as indexed');
            return null;
          });
          pagesByDocument.set(key, pages);
        }
        const doc = await pages;
        const window = doc ? pageWindow(doc, chunk) : null;
        return window && doc ? { ...window, doc } : null;
      }),
    );
    const passages: EvidencePassage[] = [];
    windows.forEach((w, i) => {
      const c = citations[i];
      if (w && c) {
        const chunk = chunks[i];
        const expects = chunk ? expected.get(projectKey(chunk)) : undefined;
        passages.push({
          id: c.id,
          text: w.page.slice(w.start, w.end),
          score: c.score,
          running: w.doc.running,
          line: lineContext(w.page, w.start, w.end),
          ...(expects ? { expected: expects } : {}),
          page: w.page,
        });
        read.set(c.id, { doc: w.doc, line: lineContext(w.page, w.chunkStart, w.chunkEnd) });
      }
    });
    if (passages.length === 0) return { read, evidence: null };
    const onEvidence = opts.onEvidence;
    const evidence = findEvidence(query, passages, {
      scope,
      titles: titlesOf([...read.values()].map((r) => r.doc)),
      ...(opts.minSupport !== undefined ? { minSupport: opts.minSupport } : {}),
      ...(onEvidence ? { onSentences: (sentences: WeighedSentence[]) => onEvidence(query, passages, sentences) } : {}),
    });
    // The windows' evidence is the citations' evidence, its offsets moved onto the widened passages, unless a
    // citation had no window or a quote holds no question word (it may lie outside its passage, which is then not
    // widened): the caller then weighs the widened passages afresh.
    let reusable = passages.length === citations.length;
    const quotes: Quote[] = [];
    for (const q of evidence.quotes) {
      const i = q.passageId - 1;
      const w = windows[i];
      const c = citations[i];
      if (!w || !c) continue;
      if (q.coverage === 0) {
        reusable = false;
        continue;
      }
      const quoteStart = w.start + q.start;
      const quoteEnd = completedQuoteEnd(w.page, w.start + q.end, w.end);
      const textStart = Math.min(w.chunkStart, quoteStart);
      const textEnd = Math.max(w.chunkEnd, quoteEnd);
      c.text = w.page.slice(textStart, textEnd);
      read.set(c.id, { doc: w.doc, line: lineContext(w.page, textStart, textEnd) });
      quotes.push({ ...q, start: quoteStart - textStart, end: quoteEnd - textStart, text: w.page.slice(quoteStart, quoteEnd) });
    }
    return { read, evidence: reusable ? { ...evidence, quotes } : null };
  }

  /**
   * The request's document types (case-insensitive) as the spellings the projects' indexed documents carry, which
   * the index matches exactly; undefined when the request has none.
   */
  async function documentFilter(types: string[] | undefined, scope: RequestedProject[]): Promise<ChunkFilter | undefined> {
    if (!types) return undefined;
    const wanted = new Set(types.map((t) => t.trim().toLowerCase()));
    const docs = await opts.documents.list({
      projects: scope.map((p) => p.ref),
      status: 'indexed',
    });
    return { documentTypes: [...new Set(docs.map((d) => d.documentType).filter((t) => wanted.has(t.trim().toLowerCase())))] };
  }

  /** Why search() refuses a (trimmed) question, or null; prepare() skips the same questions. */
  function queryProblem(query: string): { message: string; detail: string } | null {
    if (query === '') return { message: 'query must not be empty', detail: 'empty' };
    if (!/[\p{L}\p{N}]/u.test(query)) return { message: 'query must contain a word', detail: 'no letter or digit' };
    if (query.length > maxQueryChars) {
      return {
        message: `query is longer than ${maxQueryChars} characters (got ${query.length})`,
        detail: `at most ${maxQueryChars} characters`,
      };
    }
    return null;
  }

  return {
    prepare(question: string, mode: SearchMode = 'hybrid'): PreparedQuery | undefined {
      if (mode === 'text' || typeof question !== 'string') return undefined;
      const query = question.trim();
      if (queryProblem(query) !== null) return undefined;
      let embedding: Promise<Float32Array[]>;
      try {
        embedding = embedQuery(query);
      } catch {
        // An embedder that throws instead of rejecting: the search tries again and reports it as usual.
        return undefined;
      }
      // A failure surfaces in the search that uses it (or nowhere, if validation then refused the request).
      embedding.catch(() => undefined);
      return { query, embedding };
    },

    async search(request: SearchRequest): Promise<SearchResponse> {
      const searchStarted = performance.now();
      const query = request.query.trim();
      const problem = queryProblem(query);
      if (problem !== null) {
        throw new AppError('invalid_request', problem.message, { details: [{ path: 'query', message: problem.detail }] });
      }
      const topK = request.topK ?? defaultTopK;
      if (!Number.isInteger(topK) || topK < 1 || topK > maxTopK) {
        throw new AppError('invalid_request', `topK must be an integer from 1 to ${maxTopK} (got ${topK})`, {
          details: [{ path: 'topK', message: `integer 1..${maxTopK}` }],
        });
      }
      const mode = request.mode ?? 'hybrid';

      // Distinct projects in request order; the first spelling of a registry is the one echoed.
      const projects = distinctProjects(request.projects);
      const refs: ProjectRef[] = projects.map((p) => p.ref);
      // The query embedding is the slowest step and needs nothing else: start it (or take the one prepare() started)
      // before the store lookups.
      const queryVector =
        mode === 'text'
          ? null
          : (request.prepared?.query === query ? request.prepared.embedding : embedQuery(query)).then(([v]) => {
              if (!v) throw new Error(`embedder ${opts.embedder.id} returned no vector for the query`);
              // How long the search waited for its query vector (less than the embedding when prepare() started it).
              opts.onStage?.('embed', (performance.now() - searchStarted) / 1000);
              return v;
            });
      // Observed here so an early return (nothing indexed), a store failure or an index that throws before awaiting
      // it leaves no unhandled rejection; the search itself gets a failure through searchVector.
      queryVector?.catch(() => undefined);
      const [counts, known] = await Promise.all([
        opts.documents.countIndexed(refs),
        opts.records ? opts.records.getMany(refs) : Promise.resolve(null),
      ]);
      const indexedDocuments = (p: RequestedProject): number =>
        known && !known.has(projectKey(p.ref)) ? 0 : (counts.get(projectKey(p.ref)) ?? 0);
      const states: ProjectIndexState[] = projects.map((p) => ({
        projectId: p.ref.projectId,
        registry: p.requestedRegistry,
        indexedDocuments: indexedDocuments(p),
      }));
      const searchable = projects.filter((p) => indexedDocuments(p) > 0);
      const unindexed = projects.filter((p) => indexedDocuments(p) === 0);
      const requestedSpelling = new Map(projects.map((p) => [projectKey(p.ref), p.requestedRegistry]));

      if (searchable.length === 0) {
        const answerText =
          projects.length === 1
            ? `No documents are indexed for ${describeProjects(projects)}, so there is nothing to answer from.`
            : `None of the requested projects (${describeProjects(projects)}) has indexed documents, so there is nothing to answer from.`;
        if (request.perProject) answerUnindexed(states);
        return { answer: answerText, answered: false, citations: [], answerModel: opts.fallbackSummarizer.model, projects: states };
      }

      const started = performance.now();
      const filter = await documentFilter(request.documentTypes, searchable);
      // What is searched for and weighed: the question without asides about other projects. (The embedding, started
      // before the records were read, and a summariser, which reads the aside as such, get the question as asked.)
      const searchedRefs = searchable.map((p) => p.ref);
      const asked = withoutAsidesAboutOthers(query, searchedRefs, known);
      const namedProjects = projectsNamed(asked, searchedRefs, known);
      const namer = documentNamer(asked, namedProjects);
      const expected = recordExpectations(asked, searchedRefs, namedProjects, known, opts.countries);
      // A field that several searched projects' records state, asked of none in particular ("Who is the project
      // proponent?"), is asked of each of them: without perProject each project is still searched on its own, its best
      // passage cited first, so that the one whose documents repeat its own name most does not fill every citation.
      const eachProject = !request.perProject && expected.size > 1 && namedProjects.size === 0;
      // Per project, each gets its own share of the citations, so that none is crowded out of its answer.
      const groups: RequestedProject[][] = request.perProject || eachProject ? searchable.map((p) => [p]) : [searchable];
      const groupTopK = request.perProject
        ? Math.max(PER_PROJECT_CITATIONS, Math.ceil(topK / searchable.length))
        : eachProject
          ? Math.min(topK, EACH_PROJECT_CITATIONS)
          : topK;
      const rankedGroups = await Promise.all(
        groups.map(async (group) => {
          const groupRefs = group.map((p) => p.ref);
          const expansion = groupRefs.flatMap((r) => expected.get(projectKey(r)) ?? []);
          const candidates = await retrieve(asked, groupRefs, mode, groupTopK, queryVector, filter, namer, expansion);
          return (await opts.reranker.rerank(asked, candidates, groupTopK)).slice(0, groupTopK);
        }),
      );
      const retrievedMs = performance.now() - started;
      opts.onStage?.('retrieve', retrievedMs / 1000);
      const ranked = eachProject ? headsFirst(rankedGroups, topK) : mergeRankings(rankedGroups);
      const citations: Citation[] = ranked.map((c, i) => ({
        id: i + 1,
        projectId: c.projectId,
        registry: requestedSpelling.get(projectKey(c)) ?? c.registry,
        documentTitle: c.documentTitle,
        documentType: c.documentType,
        uri: c.uri,
        page: c.page,
        text: c.text,
        quote: '',
        score: Math.round(c.score * 10_000) / 10_000,
        ...(c.ocr ? { ocr: true as const } : {}),
      }));
      const scopeOf = projectScope(known, ranked, requestedSpelling);
      const scopeTexts = (cs: Citation[]): string[] => [
        ...new Set(cs.flatMap((c) => [c.documentTitle, c.documentType, ...(scopeOf.get(projectKey(c)) ?? [])])),
      ];
      // Each citation's document pages and line context, as the answer step read them (none when its page text is
      // unavailable).
      let readOf = new Map<number, CitationRead>();
      const evidenceOf = (cs: Citation[], question = asked): Evidence =>
        findEvidence(
          question,
          cs.map((c): EvidencePassage => {
            const read = readOf.get(c.id);
            const running = read?.doc.running;
            const line = read?.line;
            const page = read?.doc.pages[c.page - 1];
            // Citation ids are 1-based ranks in `ranked`, which carries the canonical registry.
            const chunk = ranked[c.id - 1];
            const expects = chunk ? expected.get(projectKey(chunk)) : undefined;
            return {
              id: c.id,
              text: c.text,
              score: c.score,
              project: projectLabel(c),
              ...(running ? { running } : {}),
              ...(line ? { line } : {}),
              ...(expects ? { expected: expects } : {}),
              ...(page !== undefined ? { page } : {}),
            };
          }),
          {
            scope: scopeTexts(cs),
            titles: titlesOf(cs.map((c) => readOf.get(c.id)?.doc)),
            ...(opts.minSupport !== undefined ? { minSupport: opts.minSupport } : {}),
          },
        );
      // A question of two asks ("..., and which ...?") whose passages do not answer it whole is answered when they
      // answer one of its asks, on that ask's evidence, said to answer it in part (its support stays the whole
      // question's, below HEDGED_SUPPORT): a passage that gives the sinks counted holds too few of the words of "...,
      // and which regulation does the report cite?" to answer both. Not when the unit asked is missing; and in a
      // project's own answer (perProject) only for a project the question names: a later ask leaves its subject to the
      // first ("which regulation does the report cite" would be answered by any project's report).
      const asks = questionAsks(asked);
      const answeringEvidence = (cs: Citation[], whole: Evidence, askedOf = true): Evidence => {
        if (whole.answered || whole.unitMissing !== undefined || asks.length < 2 || !askedOf) return whole;
        for (const ask of asks) {
          const part = evidenceOf(cs, ask);
          if (part.answered) return { ...part, support: Math.min(part.support, whole.support) };
        }
        return whole;
      };
      const widened = await widenToEvidence(asked, citations, ranked, scopeTexts(citations), expected);
      readOf = widened.read;
      const evidence = answeringEvidence(citations, widened.evidence ?? evidenceOf(citations));
      for (const q of evidence.quotes) {
        const c = citations[q.passageId - 1];
        if (c) c.quote = q.text;
      }
      // A passage without a quotable sentence (a table of figures) is quoted whole: every citation has a quote.
      for (const c of citations) if (c.quote === '') c.quote = c.text;

      let answerText: string;
      let answerModel: string;
      let answered = false;
      if (citations.length === 0) {
        answerText = request.documentTypes
          ? 'The indexed documents of the requested types contain no passage that matches the question.'
          : 'The indexed documents of the requested projects contain no passage that matches the question.';
        answerModel = opts.fallbackSummarizer.model;
      } else if (request.perProject) {
        const perProject = await Promise.all(
          searchable.map(async (p) => {
            // Citations carry the registry as requested; the ranked chunks beside them carry the canonical one.
            const own = citations.filter((_, i) => ranked[i] !== undefined && projectKey(ranked[i] as ScoredChunk) === projectKey(p.ref));
            const ownEvidence = answeringEvidence(own, evidenceOf(own), namedProjects.has(projectKey(p.ref)));
            const written =
              own.length === 0
                ? { text: notFound([p]), model: opts.fallbackSummarizer.model }
                : await answer(query, own, ownEvidence, [p], request.signal);
            return { p, own, answered: own.length > 0 && ownEvidence.answered, written };
          }),
        );
        const stateOf = new Map(projects.map((p, i) => [projectKey(p.ref), states[i]]));
        for (const r of perProject) {
          const state = stateOf.get(projectKey(r.p.ref));
          if (state) {
            state.answer = r.written.text;
            state.answered = r.answered;
            state.citationIds = r.own.map((c) => c.id);
          }
        }
        answered = perProject.some((r) => r.answered);
        answerText = perProject
          .map((r) => `${projectLabel({ registry: r.p.requestedRegistry, projectId: r.p.ref.projectId })}: ${r.written.text}`)
          .join('\n\n');
        const models = new Set(perProject.filter((r) => r.answered).map((r) => r.written.model));
        answerModel = models.size === 1 ? ([...models][0] ?? opts.summarizer.model) : opts.fallbackSummarizer.model;
      } else {
        // A question that names some of the cited projects or documents is answered from theirs (all stay cited).
        const named = namer(ranked);
        const about = named ? citations.filter((_, i) => ranked[i] !== undefined && named.has(documentKey(ranked[i] as ScoredChunk))) : [];
        // A field every searched project's record states ("Who is the project proponent?") is asked of each of them.
        // What the answer speaks of (its "not found" above all): the projects the question names, when it names some.
        const namedScope = searchable.filter((p) => namedProjects.has(projectKey(p.ref)));
        const written = await answer(
          query,
          about.length > 0 ? about : citations,
          evidence,
          namedScope.length > 0 ? namedScope : searchable,
          request.signal,
          eachProject,
        );
        answerText = written.text;
        answerModel = written.model;
        answered = evidence.answered;
      }
      if (unindexed.length > 0) {
        answerText += `${answerText ? '\n\n' : ''}No documents are indexed for ${describeProjects(unindexed)}.`;
        if (request.perProject) answerUnindexed(states);
      }
      // Quotes, the answer and its check.
      opts.onStage?.('answer', (performance.now() - started - retrievedMs) / 1000);
      log.debug(
        {
          mode,
          projects: projects.length,
          citations: citations.length,
          answered,
          support: evidence.support,
          retrievedMs,
          totalMs: performance.now() - started,
        },
        'batch search',
      );
      return { answer: answerText, answered, citations, answerModel, projects: states };
    },
  };
}
