import { projectKey, type RequestedProject } from '../../domain/project-ref.js';
import { validateMarkers } from '../../domain/markers.js';
import type { ReadResult } from '../../ports/reader.js';
import type { CitedPassage } from '../../ports/summarizer.js';
import { projectLabel, type ReadPassage } from './read.js';
import type { SearchContext, SearchSettings } from './settings.js';
import type { Citation, ProjectIndexState, SearchResponse } from './types.js';

/**
 * What an answer given on little evidence says first (support below AnswerTuning.hedgedSupport): its passages hold
 * some of the question's words, maybe not what is asked.
 */
export const ANSWER_HEDGE = 'The passages found may answer this only in part.';

/** Projects an answer names one by one; a longer list is named by its first few and a count (describeProjects). */
const NAMED_PROJECTS = 5;

/** The projects an answer speaks of: "Verra 5533", "CDM 1, CDM 547 and Verra 5533", or the first three and a count. */
function describeProjects(projects: RequestedProject[]): string {
  const names = projects.map((p) => `${p.requestedRegistry} ${p.ref.projectId}`);
  if (names.length <= 1) return names.join('');
  if (names.length > NAMED_PROJECTS) return `${names.slice(0, 3).join(', ')} and ${names.length - 3} other projects`;
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
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

/** The answer when the evidence does not answer the question (CONTRACT 2: said plainly; citations still returned). */
function notFound(scope: RequestedProject[]): string {
  return (
    `The indexed documents of ${describeProjects(scope)} do not appear to answer this question; ` +
    'the closest passages found are cited for checking.'
  );
}

/** The response when none of the requested projects has an indexed document: nothing searched, nothing cited. */
export function nothingIndexed(s: SearchSettings, ctx: SearchContext): SearchResponse {
  const { projects } = ctx;
  const answer =
    projects.length === 1
      ? `No documents are indexed for ${describeProjects(projects)}, so there is nothing to answer from.`
      : `None of the requested projects (${describeProjects(projects)}) has indexed documents, so there is nothing to answer from.`;
  if (ctx.perProject) answerUnindexed(ctx.states);
  return { answer, answered: false, citations: [], answerModel: s.opts.fallbackSummarizer.model, projects: ctx.states };
}

/** The answer over some citations, written by the summariser from their quotes when the reader found an answer. */
async function write(
  s: SearchSettings,
  ctx: SearchContext,
  citations: readonly Citation[],
  reading: ReadResult,
  scope: RequestedProject[],
): Promise<{ text: string; model: string }> {
  const { opts, log, tuning } = s;
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
  const input = { question: ctx.query, passages, maxChars: tuning.answerChars };
  const { summarizer } = ctx;
  let text: string;
  let model = summarizer.model;
  try {
    text = await summarizer.summarize(input, ctx.signal);
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err), model }, 'summariser failed; answering extractively');
    text = await opts.fallbackSummarizer.summarize(input, ctx.signal);
    model = opts.fallbackSummarizer.model;
  }
  const validated = validateMarkers(text, new Set(citations.map((c) => c.id)));
  if (validated.removed.length > 0)
    log.warn({ removed: validated.removed, model }, 'answer cited passages that do not exist; markers removed');
  return { text: reading.support < tuning.hedgedSupport ? `${ANSWER_HEDGE} ${validated.text}` : validated.text, model };
}

export type WrittenAnswer = { text: string; model: string; answered: boolean };

/** With perProject: each searchable project read and answered on its own citations, its answer written onto its state. */
async function writePerProject(
  s: SearchSettings,
  ctx: SearchContext,
  read: readonly ReadPassage[],
  readOf: (rs: readonly ReadPassage[]) => Promise<ReadResult>,
): Promise<WrittenAnswer> {
  const fallbackModel = s.opts.fallbackSummarizer.model;
  const perProject = await Promise.all(
    ctx.searchable.map(async (p) => {
      const own = read.filter((r) => projectKey(r.chunk) === projectKey(p.ref));
      const ownReading = own.length > 0 ? await readOf(own) : { quotes: [], support: 0, answered: false };
      const citations = own.map((r) => r.citation);
      const written = own.length === 0 ? { text: notFound([p]), model: fallbackModel } : await write(s, ctx, citations, ownReading, [p]);
      const state = ctx.states[ctx.projects.indexOf(p)];
      if (state) Object.assign(state, { answer: written.text, answered: ownReading.answered, citationIds: citations.map((c) => c.id) });
      return { p, answered: ownReading.answered, written };
    }),
  );
  const text = perProject.map((r) => `${describeProjects([r.p])}: ${r.written.text}`).join('\n\n');
  const models = new Set(perProject.filter((r) => r.answered).map((r) => r.written.model));
  const model = models.size === 1 ? ([...models][0] ?? ctx.summarizer.model) : fallbackModel;
  return { text, model, answered: perProject.some((r) => r.answered) };
}

/**
 * The search's answer: none without citations, one per project with perProject, else one over every citation;
 * the projects without indexed documents are named after it.
 */
export async function writeAnswer(
  s: SearchSettings,
  ctx: SearchContext,
  read: readonly ReadPassage[],
  reading: ReadResult,
  readOf: (rs: readonly ReadPassage[]) => Promise<ReadResult>,
): Promise<WrittenAnswer> {
  let written: WrittenAnswer;
  if (read.length === 0) {
    const text = `The indexed documents of the requested ${ctx.documentTypes ? 'types' : 'projects'} contain no passage that matches the question.`;
    written = { text, model: s.opts.fallbackSummarizer.model, answered: false };
  } else if (ctx.perProject) {
    written = await writePerProject(s, ctx, read, readOf);
  } else {
    const citations = read.map((r) => r.citation);
    const { text, model } = await write(s, ctx, citations, reading, ctx.searchable);
    written = { text, model, answered: reading.answered };
  }
  if (ctx.unindexed.length > 0) {
    written.text += `${written.text ? '\n\n' : ''}No documents are indexed for ${describeProjects(ctx.unindexed)}.`;
    if (ctx.perProject) answerUnindexed(ctx.states);
  }
  return written;
}
