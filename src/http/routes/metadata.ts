import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { AppError } from '../../errors.js';
import { cut, quoted } from '../echo.js';
import { jsonBody } from '../middleware/json-body.js';
import { serializedJson } from '../respond.js';
import { errorResponse, standardErrorResponses } from '../schemas/error.js';
import { projectIdAnyOf, projectRefShape, resolveProject, toParsedRef } from '../schemas/project-ref.js';
import { cleanedRecordSchema, rawRecordResponseSchema } from '../schemas/records.js';
import type { AppDeps } from '../types.js';
import type { AppEnv } from '../env.js';

export const METADATA_PATH = '/project-documents/metadata';

export const rawFlagSchema = z
  .boolean({ error: 'must be a JSON boolean' })
  .default(false)
  .openapi({ description: 'true: the raw registry record (SPEC 2.4); false (default): the cleaned record (SPEC 2.1).' });

export const metadataRequestSchema = z
  .object({ ...projectRefShape, raw: rawFlagSchema })
  .transform((v, ctx) => ({ ...toParsedRef(v, ctx), raw: v.raw }))
  .openapi('MetadataRequest', {
    ...projectIdAnyOf,
    description:
      'One project: its id as `projectId` (sample body) or `id` (parameter table); `project_id` is accepted too. ' +
      'Unknown fields are ignored.',
    example: { projectId: 4086, registry: 'Verra', raw: false },
  });

/** The 404 for a project the service does not hold, naming it as the caller did (the MCP `get_project` tool's too). */
export function projectNotFound(projectId: number, registry: string): AppError {
  return new AppError('not_found', `no project ${projectId} in registry ${quoted(registry)}`, {
    details: [{ path: 'projectId', message: 'unknown project', projectId, registry: cut(registry) }],
  });
}

/** POST /project-documents/metadata (SPEC 4.1): one project's cleaned or raw record; 404 when not held. */
export function registerMetadata(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config, metadata } = deps;
  const route = createRoute({
    method: 'post',
    path: METADATA_PATH,
    operationId: 'getProjectMetadata',
    summary: 'Metadata of one project',
    description:
      `Returns the cleaned record of one project, or the raw registry record when \`raw\` is true. ` +
      `Body at most ${config.MAX_BODY_BYTES} bytes. The registry is matched case-insensitively and echoed as given.`,
    middleware: jsonBody({ maxBytes: config.MAX_BODY_BYTES }),
    request: {
      body: { required: true, content: { 'application/json': { schema: metadataRequestSchema } } },
    },
    responses: {
      200: {
        description: 'The cleaned record, or the raw record when `raw` is true.',
        content: { 'application/json': { schema: z.union([cleanedRecordSchema, rawRecordResponseSchema]) } },
      },
      ...standardErrorResponses(config),
      404: errorResponse('`not_found`: the service holds no such project.'),
    },
  });

  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const project = resolveProject(body, 'registry');
    const text = await metadata.getOneJson(project, { raw: body.raw });
    if (text === null) throw projectNotFound(project.ref.projectId, body.registry);
    return serializedJson(c, text);
  });
}
