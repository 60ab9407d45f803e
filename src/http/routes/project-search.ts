import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { knownRegistryNames } from '../../domain/registries.js';
import { AppError } from '../../errors.js';
import { DEFAULT_DISCOVERY_LIMIT, MAX_DISCOVERY_LIMIT } from '../../services/discovery.js';
import { jsonBody } from '../middleware/json-body.js';
import { standardErrorResponses } from '../schemas/error.js';
import { nonBlankString } from '../schemas/project-ref.js';
import type { AppDeps } from '../types.js';
import type { AppEnv } from '../env.js';
import { defined } from '../../defined.js';

/** CONTRACT 2, "Project discovery". */
export const PROJECT_SEARCH_PATH = '/projects/search';

export const MAX_DISCOVERY_QUERY_CHARS = 500;
const MAX_FILTER_VALUES = 50;
const MAX_FILTER_CHARS = 200;

/** One value or a list of values; normalised to a list. */
function filterSchema(description: string, example: string) {
  const value = nonBlankString('must be a string or a list of strings', MAX_FILTER_CHARS);
  return z
    .union(
      [
        value,
        z
          .array(value, { error: 'must be a string or a list of strings' })
          .max(MAX_FILTER_VALUES, `must list at most ${MAX_FILTER_VALUES} values`),
      ],
      {
        error: 'must be a string or a list of strings',
      },
    )
    .transform((v) => (typeof v === 'string' ? [v] : v))
    .optional()
    .openapi({ description, example });
}

export const projectSearchRequestSchema = z
  .object({
    query: z
      .string({ error: 'must be a string' })
      .max(MAX_DISCOVERY_QUERY_CHARS, `must be at most ${MAX_DISCOVERY_QUERY_CHARS} characters`)
      .optional()
      .openapi({
        description:
          `Words, at most ${MAX_DISCOVERY_QUERY_CHARS} characters. Each word must begin a word of the project's name, proponent, ` +
          'methodology, location (country), registry id or description; case and accents are ignored ("rio" finds ' +
          '"Río"). Projects whose name holds every word come first, then those matched without the description, then the rest; ' +
          'within each group by name. Absent or empty: every project, by name.',
        example: 'cookstoves',
      }),
    registry: filterSchema(`Registry name or alias, or a list (known: ${knownRegistryNames().join(', ')}).`, 'Verra'),
    country: filterSchema("Country name as the cleaned record's `location` gives it, or a list; case and accents ignored.", 'Kenya'),
    methodology: filterSchema(
      'Methodology as the cleaned record gives it, or one of its codes (`VM0007` matches `VM0007, VM0015`), or a list.',
      'VM0047',
    ),
    type: filterSchema('Project type as the cleaned record gives it, or a list.', 'Energy demand'),
    status: filterSchema('Project status as the cleaned record gives it, or a list.', 'Registered'),
    limit: z
      .number({ error: 'must be a number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_DISCOVERY_LIMIT, `must be at most ${MAX_DISCOVERY_LIMIT}`)
      .optional()
      .openapi({
        description: `Projects per page: default ${DEFAULT_DISCOVERY_LIMIT}, at most ${MAX_DISCOVERY_LIMIT}.`,
        example: DEFAULT_DISCOVERY_LIMIT,
      }),
    cursor: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(2000, 'is not a cursor this service gave out')
      .optional()
      .openapi({ description: '`nextCursor` of the previous page, unchanged, with the same words and filters.' }),
  })
  .openapi('ProjectSearchRequest', {
    description: 'Every field is optional; filters are a string or a list of strings (any of them matches), and combine with AND.',
    example: { query: 'cookstoves', country: 'Kenya', status: ['Registered', 'Under validation'], limit: 20 },
  });

export const projectSearchResponseSchema = z
  .object({
    projects: z.array(
      z
        .object({
          projectId: z.number().int(),
          registry: z.string().openapi({ description: 'Canonical registry name.' }),
          name: z.string(),
          location: z.string().openapi({ description: 'Country, as in the cleaned record; empty when unknown.' }),
          methodology: z.string(),
          type: z.string(),
          status: z.string(),
          proponent: z.string(),
          indexedDocuments: z.number().int().openapi({ description: 'Documents of the project a batch search reads.' }),
        })
        .openapi('DiscoveredProject'),
    ),
    nextCursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last page.' }),
    total: z.number().int().openapi({ description: 'Projects matching the words and filters, over all pages.' }),
  })
  .openapi('ProjectSearchResponse');

/** POST /projects/search: find projects by words and filters (hidden projects are never listed). */
export function registerProjectSearch(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config } = deps;
  const route = createRoute({
    method: 'post',
    path: PROJECT_SEARCH_PATH,
    operationId: 'searchProjects',
    summary: 'Find projects by words and filters',
    description:
      'Project discovery: words over name, description, proponent, methodology and location, filters on registry, ' +
      'country, methodology, type and status, with stable cursor paging (a cursor stays valid while projects are ' +
      'added). Each project carries `indexedDocuments`, so a client can pick projects for a batch search. Projects an ' +
      'operator hid are not listed. An unknown registry is a 400 `unknown_registry`; a cursor from another search a 400.',
    middleware: jsonBody({ maxBytes: config.MAX_BODY_BYTES }),
    request: { body: { required: true, content: { 'application/json': { schema: projectSearchRequestSchema } } } },
    responses: {
      200: { description: 'A page of projects.', content: { 'application/json': { schema: projectSearchResponseSchema } } },
      ...standardErrorResponses(config),
    },
  });

  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    if (!deps.discovery) {
      throw new AppError('unavailable', 'project discovery is not configured on this server', {
        details: [{ dependency: 'discovery', message: 'no discovery service' }],
      });
    }
    const { query, registry, country, methodology, type, status, limit, cursor } = body;
    const result = await deps.discovery.search(defined({ query, registry, country, methodology, type, status, limit, cursor }));
    return c.json(result, 200);
  });
}
