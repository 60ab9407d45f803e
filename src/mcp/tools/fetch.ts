import { z } from '@hono/zod-openapi';
import { defineTool, type McpTool } from '../tool.js';
import type { McpDeps } from '../types.js';
import { unavailable } from './unavailable.js';

const outputSchema = z.object({
  id: z.string(),
  title: z.string(),
  text: z.string().describe("The page's text as extracted from the document."),
  url: z.string().describe('The document opened at the page.'),
  metadata: z.object({
    registry: z.string(),
    projectId: z.number().int(),
    documentTitle: z.string(),
    documentType: z.string(),
    uri: z.string(),
    page: z.number().int(),
    pages: z.number().int(),
  }),
});

/** `fetch`: the deep-research convention's fetch, one passage by an id `search` returned. */
export function fetchTool(deps: McpDeps): McpTool {
  return defineTool({
    name: 'fetch',
    title: 'Read a passage',
    description:
      'Reads one passage found by search, by its id: the full text of that page of the document, its title, link, ' +
      'project and document type.',
    input: z.object({
      id: z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty')
        .max(500, 'is not an id search returns')
        .describe('An id from search.'),
    }),
    output: outputSchema,
    async run(args) {
      if (!deps.passages) throw unavailable('search');
      const passage = await deps.passages.fetch(args.id);
      const structured = { ...passage };
      return { text: JSON.stringify(structured), structured };
    },
  });
}
