import { z } from '@hono/zod-openapi';
import { ERROR_CODES } from '../../errors.js';

/** The one error body of CONTRACT 3, documented once and referenced by every route. */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string().openapi({ description: 'Human-readable; names the offending field.' }),
      details: z
        .array(
          z
            .object({ path: z.string().optional(), message: z.string() })
            .catchall(z.unknown())
            .openapi({ description: 'One entry per problem; `path` is the dotted field path, e.g. `projectList.2.registry`.' }),
        )
        .openapi({ description: 'Per-field problems; empty when there is nothing more to say.' }),
      requestId: z.string().optional().openapi({ description: 'Also in the X-Request-Id header; quote it when reporting a 500.' }),
    }),
  })
  .openapi('Error');

export const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});

/** Error responses every JSON endpoint can give (CONTRACT 3), with the limits that trigger them. */
export function standardErrorResponses(config: { MAX_BODY_BYTES: number; MAX_BATCH_PROJECTS: number }) {
  return {
    400: errorResponse(
      '`invalid_request` (body not JSON, wrong types, missing fields, empty list, bad id), `unknown_registry`, or `ambiguous_project_id`.',
    ),
    401: errorResponse('`unauthorized`: API keys are configured and the request carries none or a wrong one.'),
    405: errorResponse('`method_not_allowed`: only POST is served on this path; see the Allow header.'),
    413: errorResponse(
      `\`payload_too_large\`: body over ${config.MAX_BODY_BYTES} bytes, or more than ${config.MAX_BATCH_PROJECTS} projects in a list.`,
    ),
    415: errorResponse('`unsupported_media_type`: the body must be sent as `Content-Type: application/json`.'),
    429: errorResponse('`rate_limited`: over the configured request rate; see Retry-After.'),
    500: errorResponse('`internal`: logged under the request id the body carries.'),
    503: errorResponse('`unavailable`: a backing store is down; the message names it.'),
  } as const;
}
