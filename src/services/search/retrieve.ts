import { aggregateByPage, collapseNearDuplicates, convexCombination, type RankedList } from '../../domain/fusion.js';
import { isContentsText } from '../../domain/page-furniture.js';
import { projectKey, type ProjectRef, type RequestedProject } from '../../domain/project-ref.js';
import { textSearchQuery } from '../../domain/query.js';
import { DependencyError } from '../../errors.js';
import type { ChunkFilter, ScoredChunk } from '../../ports/vector-index.js';
import { readAhead } from './read.js';
import type { SearchContext, SearchSettings } from './settings.js';
import type { Citation, SearchMode } from './types.js';

/**
 * Citations each project gets at least with perProject (more when topK spread over the projects gives more): a
 * project's own answer, and its "not found", are judged on them.
 */
const PER_PROJECT_CITATIONS = 4;

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
  const queues = groups.map((g) => [...g]);
  const out: ScoredChunk[] = [];
  for (;;) {
    const best = queues.reduce<ScoredChunk[] | undefined>((b, q) => (q[0] && (!b?.[0] || q[0].score > b[0].score) ? q : b), undefined);
    const next = best?.shift();
    if (!next) return out;
    out.push(next);
  }
}

/** The full-text and dense lists of some projects, fused, ranked by page and cut to the reranker's window. */
async function retrieve(
  s: SearchSettings,
  query: string,
  refs: ProjectRef[],
  mode: SearchMode,
  topK: number,
  /** The pending query vector; null in text mode. */
  queryVector: Promise<Float32Array> | null,
  filter?: ChunkFilter,
): Promise<ScoredChunk[]> {
  const { opts, weights, log } = s;
  // Candidates fetched from each retriever before fusion.
  const candidates = Math.min(500, Math.max(40, topK * 4));
  const lists: Promise<RankedList>[] = [];
  if (mode !== 'vector') {
    const items = opts.index.searchText(textSearchQuery(query), refs, candidates, filter);
    lists.push(items.then((i) => ({ name: 'text', weight: weights.text, items: i })));
    if (queryVector) void items.then((i) => readAhead(s, query, i.slice(0, topK), queryVector)).catch(() => undefined);
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
  const fused = convexCombination(await Promise.all(lists));
  // The index filters before scoring; checking again here means a chunk of an unrequested project can never be
  // cited, whatever an adapter does under concurrent writes.
  const allowed = new Set(refs.map(projectKey));
  const filtered = fused.filter((c) => allowed.has(projectKey(c)));
  if (filtered.length !== fused.length) {
    log.error({ dropped: fused.length - filtered.length }, 'vector index returned chunks of unrequested projects');
  }
  const ranked = demoteNavigation(aggregateByPage(filtered, s.pageBonus));
  // Only as many distinct passages as the reranker looks at: the pairwise comparison is the costly part.
  return collapseNearDuplicates(ranked, Math.max(topK, opts.reranker.window));
}

/** The request's document types (case-insensitive) as the spellings the projects' indexed documents carry. */
async function documentFilter(s: SearchSettings, ctx: SearchContext): Promise<ChunkFilter | undefined> {
  if (!ctx.documentTypes) return undefined;
  const wanted = new Set(ctx.documentTypes.map((t) => t.trim().toLowerCase()));
  const docs = await s.opts.documents.list({ projects: ctx.searchable.map((p) => p.ref), status: 'indexed' });
  return { documentTypes: [...new Set(docs.map((d) => d.documentType).filter((t) => wanted.has(t.trim().toLowerCase())))] };
}

/**
 * The searchable projects' passages, retrieved and reranked, best first. Per project, each gets its own share of
 * the citations, so that none is crowded out of its answer.
 */
export async function rankPassages(
  s: SearchSettings,
  ctx: SearchContext,
  queryVector: Promise<Float32Array> | null,
): Promise<ScoredChunk[]> {
  const filter = await documentFilter(s, ctx);
  const groups: RequestedProject[][] = ctx.perProject ? ctx.searchable.map((p) => [p]) : [ctx.searchable];
  const groupTopK = ctx.perProject ? Math.max(PER_PROJECT_CITATIONS, Math.ceil(ctx.topK / ctx.searchable.length)) : ctx.topK;
  const rankedGroups = await Promise.all(
    groups.map(async (group) => {
      const refs = group.map((p) => p.ref);
      const candidates = await retrieve(s, ctx.query, refs, ctx.mode, groupTopK, queryVector, filter);
      return (await s.opts.reranker.rerank(ctx.query, candidates, groupTopK)).slice(0, groupTopK);
    }),
  );
  return mergeRankings(rankedGroups);
}

/** The ranked passages as citations, numbered from 1, each project named as the request spelled its registry. */
export function toCitations(ranked: readonly ScoredChunk[], projects: readonly RequestedProject[]): Citation[] {
  const requestedSpelling = new Map(projects.map((p) => [projectKey(p.ref), p.requestedRegistry]));
  return ranked.map((c, i) => ({
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
}
