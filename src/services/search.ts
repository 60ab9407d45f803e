/**
 * The batch search (CONTRACT 2) as a pipeline of named stages, each in its own module under search/:
 * the request checked (here) -> passages retrieved and ranked (retrieve.ts) -> their page windows read and their
 * quotes chosen by the reader (read.ts) -> the answer written (answer.ts).
 */
import { distinctProjects, projectKey, type RequestedProject } from '../domain/project-ref.js';
import { withoutExclusions } from '../domain/query.js';
import { A_WORD, MAX_QUERY_CHARS } from '../domain/search-limits.js';
import { AppError } from '../errors.js';
import { nothingIndexed, writeAnswer } from './search/answer.js';
import { passageReader, placeQuotes, readWindows } from './search/read.js';
import { rankPassages, toCitations } from './search/retrieve.js';
import { resolveSettings, type SearchContext, type SearchSettings } from './search/settings.js';
import type { PreparedQuery, SearchMode, SearchRequest, SearchResponse, SearchService, SearchServiceOptions } from './search/types.js';

export { WINDOW_CHARS } from './page-windows.js';
export { ANSWER_HEDGE } from './search/answer.js';
export { SEARCH_MODES } from './search/types.js';
export type * from './search/types.js';

/** The query embedding; exclusion clauses ("(not Botany Farm)") are dropped, since an embedding of them points at what is not wanted. */
function embedQuery(s: SearchSettings, query: string): Promise<Float32Array[]> {
  return s.opts.embedder.embed([withoutExclusions(query)], 'query');
}

/** Why search() refuses a (trimmed) question, or null; prepare() skips the same questions. */
function queryProblem(query: string): { message: string; detail: string } | null {
  if (query === '') return { message: 'query must not be empty', detail: 'empty' };
  if (!A_WORD.test(query)) return { message: 'query must contain a word', detail: 'no letter or digit' };
  if (query.length > MAX_QUERY_CHARS) {
    return {
      message: `query is longer than ${MAX_QUERY_CHARS} characters (got ${query.length})`,
      detail: `at most ${MAX_QUERY_CHARS} characters`,
    };
  }
  return null;
}

/** The request's question (trimmed) and topK, checked; a bad one is the caller's error (CONTRACT 3). */
function checkRequest(s: SearchSettings, request: SearchRequest): { query: string; topK: number } {
  const query = request.query.trim();
  const problem = queryProblem(query);
  if (problem !== null) {
    throw new AppError('invalid_request', problem.message, { details: [{ path: 'query', message: problem.detail }] });
  }
  const topK = request.topK ?? s.defaultTopK;
  if (!Number.isInteger(topK) || topK < 1 || topK > s.maxTopK) {
    throw new AppError('invalid_request', `topK must be an integer from 1 to ${s.maxTopK} (got ${topK})`, {
      details: [{ path: 'topK', message: `integer 1..${s.maxTopK}` }],
    });
  }
  return { query, topK };
}

/**
 * The query vector, started at once (the slowest step, and it needs nothing else) from the prepared embedding when it
 * is for this query; null in text mode.
 */
function startEmbedding(s: SearchSettings, request: SearchRequest, query: string, mode: SearchMode, started: number) {
  if (mode === 'text') return null;
  const embedding = request.prepared?.query === query ? request.prepared.embedding : embedQuery(s, query);
  const queryVector = embedding.then(([v]) => {
    if (!v) throw new Error(`embedder ${s.opts.embedder.id} returned no vector for the query`);
    s.opts.onStage?.('embed', (performance.now() - started) / 1000);
    return v;
  });
  // Observed here so an early return leaves no unhandled rejection; the search gets a failure through searchVector.
  queryVector.catch(() => undefined);
  return queryVector;
}

/** The search's context: the requested projects with their indexed-document counts (0 for one the store lacks). */
async function searchContext(s: SearchSettings, request: SearchRequest, query: string, topK: number): Promise<SearchContext> {
  const { opts } = s;
  const projects = distinctProjects(request.projects);
  const refs = projects.map((p) => p.ref);
  const [counts, known] = await Promise.all([opts.documents.countIndexed(refs), opts.records?.getMany(refs) ?? null]);
  const indexedDocuments = (p: RequestedProject): number =>
    known && !known.has(projectKey(p.ref)) ? 0 : (counts.get(projectKey(p.ref)) ?? 0);
  return {
    query,
    topK,
    mode: request.mode ?? 'hybrid',
    signal: request.signal,
    perProject: request.perProject ?? false,
    documentTypes: request.documentTypes,
    summarizer: request.extractiveAnswer ? opts.fallbackSummarizer : opts.summarizer,
    projects,
    states: projects.map((p) => ({ projectId: p.ref.projectId, registry: p.requestedRegistry, indexedDocuments: indexedDocuments(p) })),
    searchable: projects.filter((p) => indexedDocuments(p) > 0),
    unindexed: projects.filter((p) => indexedDocuments(p) === 0),
    known,
  };
}

/** One batch search, stage by stage; the query embedding starts first and runs while the projects are looked up. */
async function search(s: SearchSettings, request: SearchRequest): Promise<SearchResponse> {
  const searchStarted = performance.now();
  const { query, topK } = checkRequest(s, request);
  const mode = request.mode ?? 'hybrid';
  const queryVector = startEmbedding(s, request, query, mode, searchStarted);
  const ctx = await searchContext(s, request, query, topK);
  if (ctx.searchable.length === 0) return nothingIndexed(s, ctx);

  const started = performance.now();
  const ranked = await rankPassages(s, ctx, queryVector);
  const retrievedMs = performance.now() - started;
  s.opts.onStage?.('retrieve', retrievedMs / 1000);
  const citations = toCitations(ranked, ctx.projects);
  const read = await readWindows(s, citations, ranked);
  const readOf = passageReader(s, ctx);
  const reading = await readOf(read);
  placeQuotes(read, reading.quotes);
  const { text, model, answered } = await writeAnswer(s, ctx, read, reading, readOf);
  s.opts.onStage?.('answer', (performance.now() - started - retrievedMs) / 1000);
  const totalMs = performance.now() - started;
  s.log.debug(
    { mode, projects: ctx.projects.length, citations: citations.length, answered, support: reading.support, totalMs },
    'batch search',
  );
  return { answer: text, answered, citations, answerModel: model, projects: ctx.states };
}

export function createSearchService(opts: SearchServiceOptions): SearchService {
  const s = resolveSettings(opts);
  return {
    prepare(question: string, mode: SearchMode = 'hybrid'): PreparedQuery | undefined {
      if (mode === 'text' || typeof question !== 'string') return undefined;
      const query = question.trim();
      if (queryProblem(query) !== null) return undefined;
      let embedding: Promise<Float32Array[]>;
      try {
        embedding = embedQuery(s, query);
      } catch {
        // An embedder that throws instead of rejecting: the search tries again and reports it as usual.
        return undefined;
      }
      // A failure surfaces in the search that uses it (or nowhere, if validation then refused the request).
      embedding.catch(() => undefined);
      return { query, embedding };
    },
    search: (request) => search(s, request),
  };
}
