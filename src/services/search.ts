import { DEFAULT_MAX_TOP_K, DEFAULT_TOP_K, MAX_QUERY_CHARS } from '../domain/search-limits.js';
import { distinctProjects, projectKey, type ProjectRef, type RequestedProject } from '../domain/project-ref.js';
import { aggregateByPage, collapseNearDuplicates, convexCombination, reciprocalRankFusion, type RankedList } from '../domain/fusion.js';
import type { AnswerPassage } from '../domain/answer/candidates.js';
import type { Quote } from '../domain/answer/quotes.js';
import { ANSWER_TUNING, type AnswerTuning } from '../domain/answer/tuning.js';
import { deriveCleaned } from '../domain/derive-cleaned.js';
import { NO_COUNTRIES } from '../domain/country-lookup.js';
import { validateMarkers } from '../domain/markers.js';
import { isContentsText } from '../domain/page-furniture.js';
import { textSearchQuery, withoutExclusions } from '../domain/query.js';
import { AppError, DependencyError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DocumentStateStore } from '../ports/document-state-store.js';
import type { DocumentTextStore } from '../ports/document-text-store.js';
import type { Embedder } from '../ports/embedder.js';
import type { Reader, ReadResult } from '../ports/reader.js';
import type { RecordStore, StoredProject } from '../ports/record-store.js';
import type { Reranker } from '../ports/reranker.js';
import type { CitedPassage, Summarizer } from '../ports/summarizer.js';
import type { ChunkFilter, ScoredChunk, VectorIndex } from '../ports/vector-index.js';
import { createPageTextCache, lineContext, pageWindow, type PageWindow } from './page-windows.js';

export { WINDOW_CHARS } from './page-windows.js';

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
  /**
   * Write the answer with the extractive summariser even when an LLM is configured: for callers that use only the
   * citations (the MCP `search` tool), which need not wait for, or pay for, an LLM answer. @default false
   */
  extractiveAnswer?: boolean;
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
   * Page texts of indexed documents: each citation's quote is looked for in its page around the passage (its page
   * window), and the document's running lines are never quoted. Without it, quotes come from the passages as indexed.
   */
  texts?: DocumentTextStore;
  /** When given, projects it does not hold are reported with 0 documents and not searched; their names are scope. */
  records?: RecordStore;
  /** Picks the answering sentences (ports/reader.ts). */
  reader: Reader;
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
   * Dense retrieval alone is far weaker than BM25 on registry documents (bench/README.md, "search"), so the convex
   * combination keeps BM25's margins and lets the dense score decide near-ties.
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
  /** The answer path's constants (domain/answer/tuning.ts), any of them overridden. */
  tuning?: Partial<AnswerTuning>;
  /** Told how long each stage of a search took, in seconds (the API's metrics). */
  onStage?: (stage: 'embed' | 'retrieve' | 'answer', seconds: number) => void;
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
 * Moves navigation chunks (tables of contents: page-furniture.ts isContentsText) behind every other candidate: they
 * match a question's heading words without answering it, yet remain available when nothing else matches.
 */
function demoteNavigation(items: ScoredChunk[]): ScoredChunk[] {
  const content: ScoredChunk[] = [];
  const nav: ScoredChunk[] = [];
  for (const c of items) (isContentsText(c.text) ? nav : content).push(c);
  return nav.length === 0 ? items : [...content, ...nav];
}

/**
 * One ranking from several (one per project with perProject): each keeps its own order, and the next citation is the
 * best-scoring head among them; ties go to the earlier group (request order).
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

/** A chunk's document, across projects. */
function documentKey(c: ScoredChunk): string {
  return `${projectKey(c)}\u0000${c.documentId}`;
}

/** How the answer names a project: its registry as requested and its id ("Verra 5533"). */
function projectLabel(p: { registry: string; projectId: number }): string {
  return `${p.registry} ${p.projectId}`;
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

/**
 * Citations each project gets at least with perProject (more when topK spread over the projects gives more): a
 * project's own answer, and its "not found", are judged on them.
 */
const PER_PROJECT_CITATIONS = 4;

/** Projects an answer names one by one; a longer list is named by its first few and a count (describeProjects). */
const NAMED_PROJECTS = 5;

/** The projects an answer speaks of: "Verra 5533", "CDM 1, CDM 547 and Verra 5533", or the first three and a count. */
function describeProjects(projects: RequestedProject[]): string {
  const names = projects.map((p) => `${p.requestedRegistry} ${p.ref.projectId}`);
  if (names.length <= 1) return names.join('');
  if (names.length > NAMED_PROJECTS) return `${names.slice(0, 3).join(', ')} and ${names.length - 3} other projects`;
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * What an answer given on little evidence says first (support below AnswerTuning.hedgedSupport): its passages hold
 * some of the question's words, maybe not what is asked.
 */
export const ANSWER_HEDGE = 'The passages found may answer this only in part.';

/** A citation as the answer step reads it: its chunk, and its page window when the page text is at hand. */
interface ReadPassage {
  citation: Citation;
  chunk: ScoredChunk;
  window: PageWindow | null;
  running?: ReadonlySet<string>;
}

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
  const tuning: AnswerTuning = { ...ANSWER_TUNING, ...opts.tuning };
  if (pageBonus !== null && !(pageBonus >= 0 && pageBonus <= 1)) {
    throw new RangeError(`search pageBonus must be in [0, 1] or null, got ${pageBonus}`);
  }
  if (!(defaultTopK >= 1 && defaultTopK <= maxTopK)) {
    throw new RangeError(`search defaultTopK must be in 1..maxTopK (${maxTopK}), got ${defaultTopK}`);
  }
  const log = opts.logger;
  const pageTexts = opts.texts ? createPageTextCache(opts.texts) : null;
  /** What each project's record calls it (its name, location, methodology, type), by record version. */
  const recordNames = new Map<string, string[]>();

  /** The query embedding; exclusion clauses ("(not Botany Farm)") are dropped, since an embedding of them points at what is not wanted. */
  const embedQuery = (query: string): Promise<Float32Array[]> => opts.embedder.embed([withoutExclusions(query)], 'query');

  async function retrieve(
    query: string,
    refs: ProjectRef[],
    mode: SearchMode,
    topK: number,
    /** The pending query vector; null in text mode. */
    queryVector: Promise<Float32Array> | null,
    filter?: ChunkFilter,
  ): Promise<ScoredChunk[]> {
    const candidates = Math.min(500, Math.max(minCandidates, topK * candidateFactor));
    const lists: Promise<RankedList>[] = [];
    if (mode !== 'vector') {
      const items = opts.index.searchText(textSearchQuery(query), refs, candidates, filter);
      lists.push(items.then((i) => ({ name: 'text', weight: weights.text, items: i })));
    }
    if (queryVector) {
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
    const ranked = demoteNavigation(pageBonus === null ? filtered : aggregateByPage(filtered, { bonus: pageBonus }));
    // Only as many distinct passages as the reranker looks at: the pairwise comparison is the costly part.
    return collapseNearDuplicates(ranked, { limit: Math.max(topK, opts.reranker.window) });
  }

  /** What a project's record calls it, derived once per record version. */
  function namesOf(stored: StoredProject | undefined, registry: string): string[] {
    if (!stored) return [];
    const key = `${projectKey(stored.ref)}\u0000${registry}\u0000${stored.updatedAt}`;
    let names = recordNames.get(key);
    if (!names) {
      try {
        const c = deriveCleaned(stored, { requestedRegistry: registry, countries: NO_COUNTRIES });
        names = [c.name, c.location, c.methodology, c.type].filter((n): n is string => typeof n === 'string' && n !== '');
      } catch {
        names = [];
      }
      if (recordNames.size >= 10_000) recordNames.clear();
      recordNames.set(key, names);
    }
    return names;
  }

  /** The answer when the evidence does not answer the question (CONTRACT 2: said plainly; citations still returned). */
  function notFound(scope: RequestedProject[]): string {
    return (
      `The indexed documents of ${describeProjects(scope)} do not appear to answer this question; ` +
      'the closest passages found are cited for checking.'
    );
  }

  /** Each citation's page window, read from its document's pages (none when the page text is unavailable). */
  async function readWindows(citations: Citation[], chunks: ScoredChunk[]): Promise<ReadPassage[]> {
    return Promise.all(
      citations.map(async (citation, i) => {
        const chunk = chunks[i] as ScoredChunk;
        if (!pageTexts) return { citation, chunk, window: null };
        const doc = await pageTexts.get(chunk, documentKey(chunk)).catch((err: unknown) => {
          log.warn({ err: err instanceof Error ? err.message : String(err) }, 'page text unavailable; passage cited as indexed');
          return null;
        });
        const window = doc ? pageWindow(doc, chunk) : null;
        return { citation, chunk, window, ...(doc ? { running: doc.running } : {}) };
      }),
    );
  }

  /** The reader's passages: each citation's page window (or its text as indexed), named by its project. */
  function answerPassages(read: readonly ReadPassage[]): AnswerPassage[] {
    return read.map(({ citation: c, window: w, running }) => ({
      id: c.id,
      text: w ? w.page.slice(w.start, w.end) : c.text,
      score: c.score,
      project: projectLabel(c),
      ...(running ? { running } : {}),
      ...(w ? { line: lineContext(w.page, w.start, w.end) } : {}),
    }));
  }

  /**
   * The quotes onto their citations: a citation's text is widened from its chunk to take in its quote (so `text`
   * still holds `quote` and reads from the page as extracted); a passage without a quote is quoted whole.
   */
  function placeQuotes(read: readonly ReadPassage[], quotes: readonly Quote[]): void {
    const byId = new Map(quotes.map((q) => [q.passageId, q]));
    for (const { citation: c, window: w } of read) {
      const q = byId.get(c.id);
      if (q && w) {
        const start = Math.min(w.chunkStart, w.start + q.start);
        const end = Math.max(w.chunkEnd, w.start + q.end);
        c.text = w.page.slice(start, end);
        c.quote = q.text;
      } else if (q) {
        c.quote = q.text;
      }
      if (c.quote === '') c.quote = c.text;
    }
  }

  /** The answer over some citations, written by the summariser from their quotes when the reader found an answer. */
  async function answer(
    query: string,
    citations: readonly Citation[],
    reading: ReadResult,
    scope: RequestedProject[],
    signal?: AbortSignal,
    summarizer: Summarizer = opts.summarizer,
  ): Promise<{ text: string; model: string }> {
    if (!reading.answered) return { text: notFound(scope), model: opts.fallbackSummarizer.model };
    const multiProject = new Set(citations.map(projectKey)).size > 1;
    const quoteOf = new Map(reading.quotes.map((q) => [q.passageId, q]));
    const passages: CitedPassage[] = citations.map((c) => {
      const q = quoteOf.get(c.id);
      return {
        id: c.id,
        text: c.text,
        quote: c.quote,
        ...(q ? { quoteWeight: { coverage: q.coverage, score: q.score } } : {}),
        ...(q?.core ? { quoteCore: q.core } : {}),
        score: c.score,
        documentTitle: c.documentTitle,
        page: c.page,
        ...(multiProject ? { project: projectLabel(c) } : {}),
      };
    });
    const input = { question: query, passages, maxChars: tuning.answerChars };
    let text: string;
    let model = summarizer.model;
    try {
      text = await summarizer.summarize(input, signal);
    } catch (err) {
      log.warn({ err: err instanceof Error ? err.message : String(err), model }, 'summariser failed; answering extractively');
      text = await opts.fallbackSummarizer.summarize(input, signal);
      model = opts.fallbackSummarizer.model;
    }
    const validated = validateMarkers(
      text,
      citations.map((c) => c.id),
    );
    if (validated.removed.length > 0)
      log.warn({ removed: validated.removed, model }, 'answer cited passages that do not exist; markers removed');
    return { text: reading.support < tuning.hedgedSupport ? `${ANSWER_HEDGE} ${validated.text}` : validated.text, model };
  }

  /** The request's document types (case-insensitive) as the spellings the projects' indexed documents carry. */
  async function documentFilter(types: string[] | undefined, scope: RequestedProject[]): Promise<ChunkFilter | undefined> {
    if (!types) return undefined;
    const wanted = new Set(types.map((t) => t.trim().toLowerCase()));
    const docs = await opts.documents.list({ projects: scope.map((p) => p.ref), status: 'indexed' });
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
      const summarizer = request.extractiveAnswer ? opts.fallbackSummarizer : opts.summarizer;
      const projects = distinctProjects(request.projects);
      const refs: ProjectRef[] = projects.map((p) => p.ref);
      // The query embedding is the slowest step and needs nothing else: start it before the store lookups.
      const queryVector =
        mode === 'text'
          ? null
          : (request.prepared?.query === query ? request.prepared.embedding : embedQuery(query)).then(([v]) => {
              if (!v) throw new Error(`embedder ${opts.embedder.id} returned no vector for the query`);
              opts.onStage?.('embed', (performance.now() - searchStarted) / 1000);
              return v;
            });
      // Observed here so an early return leaves no unhandled rejection; the search gets a failure through searchVector.
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
      // Per project, each gets its own share of the citations, so that none is crowded out of its answer.
      const groups: RequestedProject[][] = request.perProject ? searchable.map((p) => [p]) : [searchable];
      const groupTopK = request.perProject ? Math.max(PER_PROJECT_CITATIONS, Math.ceil(topK / searchable.length)) : topK;
      const rankedGroups = await Promise.all(
        groups.map(async (group) => {
          const candidates = await retrieve(
            query,
            group.map((p) => p.ref),
            mode,
            groupTopK,
            queryVector,
            filter,
          );
          return (await opts.reranker.rerank(query, candidates, groupTopK)).slice(0, groupTopK);
        }),
      );
      const retrievedMs = performance.now() - started;
      opts.onStage?.('retrieve', retrievedMs / 1000);
      const ranked = mergeRankings(rankedGroups);
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
      const read = await readWindows(citations, ranked);
      const scopeOf = (rs: readonly ReadPassage[]): string[] => [
        ...new Set(
          rs.flatMap(({ citation: c, chunk }) => [
            c.documentTitle,
            c.documentType,
            projectLabel(c),
            ...namesOf(known?.get(projectKey(chunk)), c.registry),
          ]),
        ),
      ];
      const readOf = (rs: readonly ReadPassage[]): Promise<ReadResult> =>
        opts.reader.read({ question: query, passages: answerPassages(rs), scope: scopeOf(rs) }, request.signal);
      const reading = await readOf(read);
      placeQuotes(read, reading.quotes);

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
            const own = read.filter((r) => projectKey(r.chunk) === projectKey(p.ref));
            const ownReading = own.length > 0 ? await readOf(own) : { quotes: [], support: 0, answered: false };
            const ownCitations = own.map((r) => r.citation);
            const written =
              own.length === 0
                ? { text: notFound([p]), model: opts.fallbackSummarizer.model }
                : await answer(query, ownCitations, ownReading, [p], request.signal, summarizer);
            return { p, own: ownCitations, answered: ownReading.answered, written };
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
        answerModel = models.size === 1 ? ([...models][0] ?? summarizer.model) : opts.fallbackSummarizer.model;
      } else {
        const written = await answer(query, citations, reading, searchable, request.signal, summarizer);
        answerText = written.text;
        answerModel = written.model;
        answered = reading.answered;
      }
      if (unindexed.length > 0) {
        answerText += `${answerText ? '\n\n' : ''}No documents are indexed for ${describeProjects(unindexed)}.`;
        if (request.perProject) answerUnindexed(states);
      }
      opts.onStage?.('answer', (performance.now() - started - retrievedMs) / 1000);
      log.debug(
        {
          mode,
          projects: projects.length,
          citations: citations.length,
          answered,
          support: reading.support,
          totalMs: performance.now() - started,
        },
        'batch search',
      );
      return { answer: answerText, answered, citations, answerModel, projects: states };
    },
  };
}
