import { defined } from '../../defined.js';
import { projectSearchRequestSchema, projectSearchResponseSchema } from '../../http/routes/project-search.js';
import type { DiscoveredProject } from '../../services/discovery.js';
import { defineTool, type McpTool } from '../tool.js';
import type { McpDeps } from '../types.js';
import { unavailable } from './unavailable.js';

function line(p: DiscoveredProject): string {
  const where = [p.location, p.type, p.status].filter((s) => s !== '').join(', ');
  return `- ${p.name} (${p.registry} ${p.projectId}${where ? `; ${where}` : ''}; ${p.indexedDocuments} indexed documents)`;
}

/** `search_projects`: POST /projects/search. */
export function searchProjectsTool(deps: McpDeps): McpTool {
  return defineTool({
    name: 'search_projects',
    title: 'Find carbon-credit projects',
    description:
      'Finds carbon-credit projects by words (name, description, proponent, methodology, country) and filters ' +
      '(registry, country, methodology, type, status); use it to get the projectId and registry that get_project and ask take.',
    input: projectSearchRequestSchema,
    output: projectSearchResponseSchema,
    async run(args) {
      if (!deps.discovery) throw unavailable('discovery');
      const { query, registry, country, methodology, type, status, limit, cursor } = args;
      const result = await deps.discovery.search(defined({ query, registry, country, methodology, type, status, limit, cursor }));
      const head =
        result.total === 0
          ? 'No project matches.'
          : `${result.total} project${result.total === 1 ? '' : 's'} match; ${result.projects.length} listed:`;
      const more = result.nextCursor === null ? '' : `\nMore: call again with cursor ${JSON.stringify(result.nextCursor)}.`;
      return { text: [head, ...result.projects.map(line)].join('\n') + more, structured: { ...result } };
    },
  });
}
