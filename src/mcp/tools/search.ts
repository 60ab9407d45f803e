import { z } from '@hono/zod-openapi';
import { batchSearchRequestSchema } from '../../http/routes/batch-search.js';
import { defineTool, type McpTool } from '../tool.js';
import type { McpDeps } from '../types.js';
import { unavailable } from './unavailable.js';

/** Results of one `search`: a deep-research client fetches the ones it wants, so a page of them is enough. */
export const SEARCH_RESULTS = 10;

const outputSchema = z.object({
  results: z.array(
    z.object({
      id: z.string().describe('Give to fetch to read the passage.'),
      title: z.string(),
      url: z.string().describe('The document opened at the page.'),
    }),
  ),
});

/** `search`: the deep-research convention's search, over the indexed passages of every project. */
export function searchTool(deps: McpDeps): McpTool {
  return defineTool({
    name: 'search',
    title: 'Search all project documents',
    description:
      'Searches the indexed documents of every carbon-credit project for passages matching a query, best first; ' +
      'returns ids, titles and links, and fetch reads a passage by its id.',
    input: z.object({ query: batchSearchRequestSchema(deps.config).shape.query.describe('What to look for, in words.') }),
    output: outputSchema,
    async run(args, { signal }) {
      if (!deps.passages) throw unavailable('search');
      const results = await deps.passages.search(args.query, Math.min(SEARCH_RESULTS, deps.config.SEARCH_MAX_TOP_K), signal);
      // The convention: the text item is the JSON itself.
      const structured = { results };
      return { text: JSON.stringify(structured), structured };
    },
  });
}
