import type { HttpBindings } from '@hono/node-server';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { A_WORD, MAX_QUERY_CHARS as MAX_SEARCH_QUERY_CHARS } from '../../domain/search-limits.js';
import { AppError } from '../../errors.js';
import { SEARCH_MODES, type SearchMode } from '../../services/search.js';
import { jsonBody } from '../middleware/json-body.js';
import { standardErrorResponses } from '../schemas/error.js';
import { nonBlankString, projectListOneOf, projectListShape, requireProjectList, resolveProjectList } from '../schemas/project-ref.js';
import type { AppDeps } from '../types.js';
import type { AppEnv } from '../env.js';

/** SPEC 4.3: the documented path (plural `projects-documents`). */
export const BATCH_SEARCH_PATH = '/projects-documents/batch-search';
/** CONTRACT 1: also served under the singular spelling of the two metadata paths. */
export const BATCH_SEARCH_ALIAS_PATH = '/project-documents/batch-search';

type SearchLimits = { MAX_BATCH_PROJECTS: number; SEARCH_MAX_TOP_K: number; SEARCH_DEFAULT_TOP_K: number };

export function batchSearchRequestSchema(config: SearchLimits) {
  return z
    .object({
      ...projectListShape({ maxBatchProjects: config.MAX_BATCH_PROJECTS }),
      query: z
        .string({ error: 'must be a string' })
        .refine((s) => s.trim().length > 0, 'must not be empty')
        .refine((s) => s.trim().length === 0 || A_WORD.test(s), 'must contain a word')
        .refine((s) => s.trim().length <= MAX_SEARCH_QUERY_CHARS, `must be at most ${MAX_SEARCH_QUERY_CHARS} characters`)
        .openapi({
          pattern: A_WORD.source,
          description: `Natural-language question, at most ${MAX_SEARCH_QUERY_CHARS} characters.`,
          example: 'What is the crediting period of the project?',
        }),
      topK: z
        .number({ error: 'must be a number' })
        .int('must be a whole number')
        .min(1, 'must be at least 1')
        .max(config.SEARCH_MAX_TOP_K, `must be at most ${config.SEARCH_MAX_TOP_K}`)
        .optional()
        .openapi({
          description: `Citations to return: default ${config.SEARCH_DEFAULT_TOP_K}, at most ${config.SEARCH_MAX_TOP_K}.`,
          example: config.SEARCH_DEFAULT_TOP_K,
        }),
      mode: z
        .enum(['hybrid', 'text', 'vector'], { error: `must be one of ${SEARCH_MODES.join(', ')}` })
        .optional()
        .openapi({
          description:
            'Retrieval method: `hybrid` (default: full-text and dense vectors fused), `text` (full-text only) or ' +
            '`vector` (dense only). The single methods exist for evaluation and debugging.',
        }),
      perProject: z
        .boolean({ error: 'must be a boolean' })
        .optional()
        .openapi({
          description:
            'Default false. When true, each item of `projects` also carries its own `answer`, `answered` and ' +
            '`citationIds`, each project gets its own share of the citations (ceil(topK / projects), at least 2), ' +
            "and `answer` puts the projects' answers one after the other.",
        }),
      documentTypes: z
        .array(nonBlankString('must be a string', 200), { error: 'must be a list of strings' })
        .min(1, 'must not be empty')
        .max(50, 'must have at most 50 items')
        .optional()
        .openapi({
          description: 'Search only documents of these types (case-insensitive, matched against `documentType`).',
          example: ['Project Description', 'Validation Report'],
        }),
    })
    .superRefine(requireProjectList)
    .openapi('BatchSearchRequest', {
      ...projectListOneOf,
      description:
        'Projects as `projectList` (sample body) or `list` (parameter table); items name the id `project_id`, ' +
        '`projectId` or `id`, in any mix. Unknown fields are ignored.',
      example: {
        projectList: [
          { project_id: 5533, registry: 'Verra' },
          { project_id: 9199, registry: 'CDM' },
        ],
        query: 'What is the crediting period?',
        topK: 8,
      },
    });
}

export const citationSchema = z
  .object({
    id: z.number().int().openapi({ description: 'The marker `[id]` used in `answer`; 1, 2, ... in relevance order.' }),
    projectId: z.number().int(),
    registry: z.string().openapi({ description: 'As the request spelled it.' }),
    documentTitle: z.string(),
    documentType: z.string(),
    uri: z.string(),
    page: z.number().int().openapi({ description: '1-based physical page of the PDF.' }),
    text: z.string().openapi({
      description:
        'The passage, as extracted from the document (page furniture removed; completed to the end of its last ' +
        'sentence from the page when the quoted fact ran past the passage).',
    }),
    quote: z.string().openapi({
      description: 'The sentence(s) of `text` that bear on the question, verbatim: always a substring of `text`.',
    }),
    score: z.number().openapi({ description: 'Fused relevance in [0, 1]; higher is better.' }),
    ocr: z
      .boolean()
      .optional()
      .openapi({
        description:
          'true when the page was read by OCR (it has no usable text layer): `text` and `quote` are what OCR read. ' +
          'Absent otherwise. `uri` with `#page=N` still opens the document at that page.',
      }),
  })
  .openapi('Citation');

export const batchSearchResponseSchema = z
  .object({
    answer: z.string().openapi({
      description:
        'Answer in prose citing passages as [1], [2] (a run such as [1][3] when several passages state the same); ' +
        'every marker refers to a citation. When none of the requested ' +
        'projects has indexed documents the answer says so and there are no citations. When the passages do not ' +
        'answer the question (`answered: false`) it says so plainly. An answer given on little evidence begins ' +
        '"The passages found may answer this only in part."',
    }),
    answered: z.boolean().openapi({
      description:
        'True when the cited passages contain an answer to the question; false when they do not (the closest ' +
        'passages are still cited, so a reader can check).',
    }),
    citations: z.array(citationSchema).openapi({ description: 'Passages supporting the answer, most relevant first.' }),
    answerModel: z.string().openapi({
      description: 'What wrote `answer`: the configured LLM model, or `extractive` (none configured, or the LLM call failed).',
    }),
    projects: z
      .array(
        z.object({
          projectId: z.number().int(),
          registry: z.string().openapi({ description: 'As the request spelled it.' }),
          indexedDocuments: z
            .number()
            .int()
            .openapi({ description: '0 for a project with no indexed document or unknown to the service.' }),
          answer: z.string().optional().openapi({ description: "With `perProject`: this project's answer." }),
          answered: z.boolean().optional().openapi({ description: 'With `perProject`: whether its passages answer the question.' }),
          citationIds: z
            .array(z.number().int())
            .optional()
            .openapi({ description: 'With `perProject`: the `id`s of the citations from this project.' }),
        }),
      )
      .openapi({ description: 'One entry per distinct requested project, in request order.' }),
  })
  .openapi('BatchSearchResponse');

/**
 * Aborted when the client goes away before the response is sent, so that an LLM answer stops being generated. On
 * @hono/node-server the response's `close` event tells; `c.req.raw.signal` would tell too, but reading it builds a
 * full WHATWG Request per call, a large share of a search's round trip (bench/README.md "search"). Other runtimes use
 * the request's signal.
 */
function clientGone(c: Context<AppEnv>): AbortSignal {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (!outgoing) return c.req.raw.signal;
  const controller = new AbortController();
  outgoing.once('close', () => {
    if (!outgoing.writableFinished) controller.abort(new Error('the client closed the connection before the answer'));
  });
  return controller.signal;
}

/**
 * Starts embedding the question as soon as the body is parsed, while the request is validated (the embedding is the
 * slowest step of a search; SearchService.prepare). Runs after auth and the rate limit, so only accepted clients
 * cause embeddings; a request that then fails validation leaves only that embedding behind.
 */
function startQueryEmbedding(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async function startQueryEmbeddingMiddleware(c, next) {
    const body = c.get('jsonBody');
    if (deps.search?.prepare && typeof body === 'object' && body !== null) {
      const { query, mode } = body as { query?: unknown; mode?: unknown };
      // Any valid mode: prepare() itself skips text-only searches.
      if (typeof query === 'string' && (mode === undefined || SEARCH_MODES.includes(mode as SearchMode))) {
        const prepared = deps.search.prepare(query, mode as SearchMode | undefined);
        if (prepared) c.set('preparedQuery', prepared);
      }
    }
    return next();
  };
}

/** POST /projects-documents/batch-search (SPEC 4.3) and its alias: cited passages and a summarised answer. */
export function registerBatchSearch(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config } = deps;
  for (const [path, operationId, alias] of [
    [BATCH_SEARCH_PATH, 'batchSearchProjectDocuments', false],
    [BATCH_SEARCH_ALIAS_PATH, 'batchSearchProjectDocumentsAlias', true],
  ] as const) {
    const route = createRoute({
      method: 'post',
      path,
      operationId,
      summary: alias ? `Alias of ${BATCH_SEARCH_PATH}` : 'Search the documents of several projects',
      description:
        (alias ? `Same as ${BATCH_SEARCH_PATH}, served under the singular path spelling. ` : '') +
        'Answers a natural-language question across the indexed documents of the listed projects: full-text and ' +
        'dense retrieval restricted to those projects, fused, near-duplicates collapsed, then a summarised answer ' +
        'citing the passages as [n]. A project the service does not know, or whose documents are not indexed yet, ' +
        'is reported in `projects` with `indexedDocuments: 0` (not a 404), so one bad id does not sink a batch; the ' +
        'answer says which projects had nothing indexed. ' +
        `At most ${config.MAX_BATCH_PROJECTS} projects and ${config.MAX_BODY_BYTES} bytes per request (more is a 413); ` +
        `topK default ${config.SEARCH_DEFAULT_TOP_K}, at most ${config.SEARCH_MAX_TOP_K}. One id under two registries ` +
        'is a 400 `ambiguous_project_id`.',
      middleware: [...jsonBody({ maxBytes: config.MAX_BODY_BYTES }), startQueryEmbedding(deps)],
      request: {
        body: { required: true, content: { 'application/json': { schema: batchSearchRequestSchema(config) } } },
      },
      responses: {
        200: {
          description: 'Answer, citations and per-project index state.',
          content: { 'application/json': { schema: batchSearchResponseSchema } },
        },
        ...standardErrorResponses(config),
      },
    });

    app.openapi(route, async (c) => {
      const body = c.req.valid('json');
      const projects = resolveProjectList(body);
      if (!deps.search) {
        throw new AppError('unavailable', 'document search is not configured on this server', {
          details: [{ dependency: 'search', message: 'no search service' }],
        });
      }
      const result = await deps.search.search({
        projects,
        query: body.query,
        ...(body.topK !== undefined ? { topK: body.topK } : {}),
        ...(body.mode !== undefined ? { mode: body.mode } : {}),
        ...(body.perProject !== undefined ? { perProject: body.perProject } : {}),
        ...(body.documentTypes !== undefined ? { documentTypes: body.documentTypes } : {}),
        signal: clientGone(c),
        prepared: c.get('preparedQuery'),
      });
      return c.json(result, 200);
    });
  }
}
