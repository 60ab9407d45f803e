import { z } from '@hono/zod-openapi';
import { pageLink } from '../../domain/passage-id.js';
import { batchSearchRequestSchema, batchSearchResponseSchema, citationSchema } from '../../http/routes/batch-search.js';
import { projectListSchema, resolveProjectList } from '../../http/schemas/project-ref.js';
import type { SearchResponse } from '../../services/search.js';
import { defined } from '../../defined.js';
import { defineTool, type McpTool } from '../tool.js';
import type { McpDeps } from '../types.js';
import { unavailable } from './unavailable.js';

/** `ask`'s arguments: the batch search's own field schemas, under the names the tool documents. */
function askInputSchema(config: McpDeps['config']) {
  const search = batchSearchRequestSchema(config).shape;
  return z.object({
    projects: projectListSchema({ maxBatchProjects: config.MAX_BATCH_PROJECTS }).describe(
      `Projects whose documents are searched: [{projectId, registry}], at most ${config.MAX_BATCH_PROJECTS} (search_projects finds them).`,
    ),
    question: search.query.describe('The question, in natural language.'),
    perProject: search.perProject.describe('true: one answer per project as well ("which of these projects ...?").'),
    documentTypes: search.documentTypes.describe('Search only documents of these types, e.g. ["Project Description"].'),
    topK: search.topK.describe(`Citations to return: default ${config.SEARCH_DEFAULT_TOP_K}, at most ${config.SEARCH_MAX_TOP_K}.`),
  });
}

const askCitationSchema = citationSchema.extend({
  pageUri: z.string().describe('The document opened at the cited page (`uri#page=N`).'),
});

const askOutputSchema = batchSearchResponseSchema.extend({ citations: z.array(askCitationSchema) });

/** The answer, then each citation's source and quote: what an assistant relays, with the page to check. */
function answerText(result: SearchResponse): string {
  const sources = result.citations.map(
    (c) =>
      `[${c.id}] ${c.documentTitle} (${c.documentType}), page ${c.page}, ${c.registry} ${c.projectId}: "${c.quote}" ${pageLink(c.uri, c.page)}`,
  );
  return [result.answer, ...(sources.length > 0 ? ['', 'Sources:', ...sources] : [])].join('\n');
}

/** `ask`: POST /projects-documents/batch-search. */
export function askTool(deps: McpDeps): McpTool {
  return defineTool({
    name: 'ask',
    title: "Ask the projects' documents",
    description:
      'Answers a natural-language question from the indexed documents of the given projects, citing each passage ' +
      'used with its document, page and verbatim quote; `answered: false` means the documents do not appear to answer it.',
    input: askInputSchema(deps.config),
    output: askOutputSchema,
    async run(args, { signal }) {
      if (!deps.search) throw unavailable('search');
      const projects = resolveProjectList({ projectList: args.projects }, { field: 'projects' });
      const { perProject, documentTypes, topK } = args;
      const result = await deps.search.search({ projects, query: args.question, signal, ...defined({ perProject, documentTypes, topK }) });
      const citations = result.citations.map((c) => ({ ...c, pageUri: pageLink(c.uri, c.page) }));
      return { text: answerText(result), structured: { ...result, citations } };
    },
  });
}
