import { z } from '@hono/zod-openapi';
import { metadataRequestSchema, projectNotFound } from '../../http/routes/metadata.js';
import { resolveProject } from '../../http/schemas/project-ref.js';
import { projectViewSchema } from '../../http/schemas/records.js';
import type { ProjectView } from '../../services/metadata.js';
import { defineTool, type McpTool } from '../tool.js';
import type { McpDeps } from '../types.js';

/** structuredContent must be an object; a record is one, but of two shapes, so it is carried under `record`. */
const outputSchema = z.object({
  projectId: z.number().int(),
  registry: z.string(),
  raw: z.boolean(),
  record: projectViewSchema,
});

/** `get_project`: POST /project-documents/metadata. */
export function getProjectTool(deps: McpDeps): McpTool {
  return defineTool({
    name: 'get_project',
    title: 'Get a project record',
    description:
      "Returns one project's record: name, country, methodology, proponent, status, estimated reductions, crediting " +
      'period, a summary of its documents and the documents with their links; `raw: true` gives the registry record as published.',
    input: metadataRequestSchema,
    output: outputSchema,
    async run(args) {
      const project = resolveProject(args, 'registry');
      const record = await deps.metadata.getOne(project, { raw: args.raw });
      if (record === null) throw projectNotFound(project.ref.projectId, args.registry);
      const label = `${args.registry} ${project.ref.projectId}`;
      const text = args.raw ? `Raw registry record of ${label}.` : cleanedSummary(label, record);
      return { text, structured: { projectId: project.ref.projectId, registry: args.registry, raw: args.raw, record } };
    },
  });
}

/** A few lines of a cleaned record for the assistant; the whole record is in structuredContent. */
function cleanedSummary(label: string, record: ProjectView): string {
  const field = (name: string): string => {
    const v = (record as Record<string, unknown>)[name];
    return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
  };
  const lines = [
    `${field('name')} (${label})`,
    ...(
      [
        ['Location', 'location'],
        ['Status', 'status'],
        ['Type', 'type'],
        ['Methodology', 'methodology'],
        ['Proponent', 'proponent'],
        ['Estimated annual reductions (tCO2e)', 'reductions'],
        ['Registration', 'registration'],
      ] as const
    )
      .filter(([, name]) => field(name) !== '')
      .map(([what, name]) => `${what}: ${field(name)}`),
  ];
  const summary = field('summary');
  if (summary !== '') lines.push('', summary.length > 1200 ? `${summary.slice(0, 1200)}...` : summary);
  return lines.join('\n');
}
