import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { jsonBody } from '../middleware/json-body.js';
import { orderedObjectOfJson, serializedJson } from '../respond.js';
import { standardErrorResponses } from '../schemas/error.js';
import { projectListOneOf, projectListShape, requireProjectList, resolveProjectList } from '../schemas/project-ref.js';
import { cleanedRecordSchema, rawRecordResponseSchema } from '../schemas/records.js';
import type { AppDeps } from '../types.js';
import type { AppEnv } from '../env.js';
import { rawFlagSchema } from './metadata.js';

export const BATCH_METADATA_PATH = '/project-documents/batch-metadata';

/** CONTRACT 1: accepted so clients following the parameter table are not refused, and ignored. */
export const MAX_BATCH_QUERY_CHARS = 2000;

export function batchMetadataRequestSchema(config: { MAX_BATCH_PROJECTS: number }) {
  return z
    .object({
      ...projectListShape({ maxBatchProjects: config.MAX_BATCH_PROJECTS }),
      query: z
        .string({ error: 'must be a string' })
        .max(MAX_BATCH_QUERY_CHARS, `must be at most ${MAX_BATCH_QUERY_CHARS} characters`)
        .optional()
        .openapi({
          description: `Accepted (at most ${MAX_BATCH_QUERY_CHARS} characters) and ignored: the query does not change the result.`,
        }),
      raw: rawFlagSchema,
    })
    .superRefine(requireProjectList)
    .openapi('BatchMetadataRequest', {
      ...projectListOneOf,
      description:
        'Projects as `projectList` (sample body) or `list` (parameter table); items name the id `project_id`, ' +
        '`projectId` or `id`, in any mix. Unknown fields are ignored.',
      example: {
        projectList: [
          { project_id: 4086, registry: 'Verra' },
          { project_id: 5533, registry: 'Verra' },
        ],
      },
    });
}

/** POST /project-documents/batch-metadata (SPEC 4.2): records keyed by project id, in request order, null if unknown. */
export function registerBatchMetadata(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config, metadata } = deps;
  const view = z.union([cleanedRecordSchema, rawRecordResponseSchema]).nullable();
  const route = createRoute({
    method: 'post',
    path: BATCH_METADATA_PATH,
    operationId: 'getBatchProjectMetadata',
    summary: 'Metadata of several projects',
    description:
      `Returns one entry per distinct requested project id, keyed by the id as a string, in request order; ` +
      `a project the service does not hold maps to null. At most ${config.MAX_BATCH_PROJECTS} projects and ` +
      `${config.MAX_BODY_BYTES} bytes per request (more is a 413). One id under two registries is a 400 ` +
      '`ambiguous_project_id`. The optional `query` is accepted and does not change the result.',
    middleware: jsonBody({ maxBytes: config.MAX_BODY_BYTES }),
    request: {
      body: { required: true, content: { 'application/json': { schema: batchMetadataRequestSchema(config) } } },
    },
    responses: {
      200: {
        description: 'Project id (string) -> cleaned record, raw record (`raw: true`), or null when unknown.',
        content: {
          'application/json': {
            schema: z.record(z.string().regex(/^[0-9]+$/), view).openapi('BatchMetadataResponse', {
              example: { '4086': null },
            }),
          },
        },
      },
      ...standardErrorResponses(config),
    },
  });

  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const projects = resolveProjectList(body);
    const entries = await metadata.getBatchJson(projects, { raw: body.raw });
    return serializedJson(c, orderedObjectOfJson(entries));
  });
}
