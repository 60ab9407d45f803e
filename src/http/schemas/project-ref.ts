import { z } from '@hono/zod-openapi';
import { canonicalRegistry, knownRegistryNames } from '../../domain/registries.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { cut, quoted } from '../echo.js';
import { projectKey, type RequestedProject } from '../../domain/project-ref.js';

/**
 * Request pieces shared by every endpoint that names projects (metadata, batch-metadata, batch-search): the
 * project reference with both naming variants (CONTRACT 1), the project list with its length limit, registry
 * resolution and the ambiguity check. The same zod schemas validate requests and generate the OpenAPI document.
 */

const ID_FIELDS = ['project_id', 'projectId', 'id'] as const;

/**
 * A string refused when blank, and when longer than `maxChars` if given. A refine does not reach the OpenAPI
 * document, so the same rules are stated there too: without them, a client generated from the document would send ""
 * and get a 400.
 */
export function nonBlankString(typeError: string, maxChars?: number) {
  const nonBlank = z.string({ error: typeError }).refine((s) => s.trim().length > 0, 'must not be empty');
  const limited =
    maxChars === undefined ? nonBlank : nonBlank.refine((s) => s.length <= maxChars, `must be at most ${maxChars} characters`);
  return limited.openapi({ minLength: 1, pattern: '\\S', ...(maxChars === undefined ? {} : { maxLength: maxChars }) });
}
export const LIST_FIELDS = ['projectList', 'list'] as const;

/** A project id: an integer > 0, or the same written as a decimal string ("4086"), normalised to the integer. */
export const projectIdSchema = z
  .union(
    [
      z.number().int('must be a whole number').positive('must be greater than 0').max(Number.MAX_SAFE_INTEGER, 'is too large'),
      // At most 15 significant digits, so every string the pattern (and so the OpenAPI document) accepts is a safe
      // integer; "0" and "000" are not accepted either.
      z.string().regex(/^0*[1-9][0-9]{0,14}$/, 'must be a positive integer or a string of at most 15 digits'),
    ],
    { error: 'must be a positive integer or a string of digits' },
  )
  .transform((v, ctx) => {
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isSafeInteger(n) || n <= 0) {
      ctx.addIssue({ code: 'custom', message: `must be a positive integer (got ${typeof v === 'string' ? quoted(v) : String(v)})` });
      return z.NEVER;
    }
    return n;
  })
  .openapi({
    description: 'Project id: an integer > 0; a string of at most 15 digits ("4086") is accepted and read as the integer.',
    example: 4086,
  });

const registrySchema = nonBlankString('must be a string').openapi({
  description:
    `Registry of the project, matched case-insensitively (known: ${knownRegistryNames().join(', ')}). ` +
    'Cleaned records echo it exactly as given.',
  example: 'Verra',
});

/** OpenAPI for mergeIds' rule that an id is required under one of its names. Given to a schema's `.openapi()`. */
export const projectIdAnyOf = {
  anyOf: ID_FIELDS.map((f) => ({ type: 'object' as const, required: [f] })),
};

/** Fields of one project reference before the id variants are merged (toParsedRef merges them). */
export const projectRefShape = {
  project_id: projectIdSchema.optional(),
  projectId: projectIdSchema.optional(),
  id: projectIdSchema.optional(),
  registry: registrySchema,
};

export interface ParsedProjectRef {
  projectId: number;
  /** As the caller wrote it. */
  registry: string;
}

/** Exactly one id, or several that agree: `{project_id: 1, id: 2}` has no right answer. */
function mergeIds(v: { project_id?: number; projectId?: number; id?: number }, ctx: z.RefinementCtx): number {
  const given = ID_FIELDS.filter((f) => v[f] !== undefined);
  const values = new Set(given.map((f) => v[f]));
  if (given.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'a project id is required (as project_id, projectId or id)' });
    return 0;
  }
  if (values.size > 1) {
    ctx.addIssue({ code: 'custom', message: `${given.join(' and ')} disagree; give the project id once` });
    return 0;
  }
  return v[given[0] ?? 'id'] ?? 0;
}

/** Transform step for an object built from projectRefShape: one project id, whichever field carried it. */
export function toParsedRef(
  v: { project_id?: number; projectId?: number; id?: number; registry: string },
  ctx: z.RefinementCtx,
): ParsedProjectRef {
  return { projectId: mergeIds(v, ctx), registry: v.registry };
}

/** One project reference: `project_id` | `projectId` | `id`, plus `registry`. */
export const projectRefSchema = z
  .object(projectRefShape)
  .transform(toParsedRef)
  .openapi('ProjectReference', {
    ...projectIdAnyOf,
    description: 'A project: its id under one of `project_id`, `projectId` or `id` (several only when they agree), and its registry.',
    example: { project_id: 4086, registry: 'Verra' },
  });

export interface ProjectListLimits {
  /** More projects than this is a 413 `payload_too_large`. */
  maxBatchProjects: number;
}

/** The list under either name; non-empty, and at most `maxBatchProjects` long (longer is a 413, see isListTooLong). */
export function projectListSchema(limits: ProjectListLimits) {
  return z
    .array(projectRefSchema)
    .min(1, 'must list at least one project')
    .max(limits.maxBatchProjects, `must list at most ${limits.maxBatchProjects} projects`)
    .openapi({
      description: `Projects, at most ${limits.maxBatchProjects} (more is a 413). Items may mix the id field names.`,
    });
}

/**
 * The fields every batch body carries: the project list as `projectList` or `list`. Spread into a body object
 * and finish it with `requireProjectList`.
 */
export function projectListShape(limits: ProjectListLimits) {
  const list = projectListSchema(limits);
  return {
    projectList: list.optional().openapi({ description: 'The projects (sample-body name). Give this or `list`.' }),
    list: list.optional().openapi({ description: 'The projects (parameter-table name). Give this or `projectList`.' }),
  };
}

/**
 * OpenAPI for requireProjectList's rule, which a refinement does not document: exactly one of the two names (both
 * match two alternatives, neither matches none). Given to the body schema's `.openapi()`.
 */
export const projectListOneOf = {
  oneOf: [
    { type: 'object' as const, required: ['projectList'] },
    { type: 'object' as const, required: ['list'] },
  ],
};

/** Refinement for a batch body: exactly one of `projectList` and `list`. */
export function requireProjectList(body: { projectList?: unknown; list?: unknown }, ctx: z.RefinementCtx): void {
  if (body.projectList === undefined && body.list === undefined) {
    ctx.addIssue({ code: 'custom', path: ['projectList'], message: 'a project list is required (as projectList or list)' });
  } else if (body.projectList !== undefined && body.list !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['list'], message: 'give the project list once, as projectList or list, not both' });
  }
}

/** The parsed list, whichever name it came under, with the name for error paths. */
export function pickProjectList(body: { projectList?: ParsedProjectRef[]; list?: ParsedProjectRef[] }): {
  field: (typeof LIST_FIELDS)[number];
  items: ParsedProjectRef[];
} {
  if (body.projectList !== undefined) return { field: 'projectList', items: body.projectList };
  return { field: 'list', items: body.list ?? [] };
}

/** A validation issue that means "too many projects": CONTRACT 3 makes it a 413, not a 400. */
export function isListTooLong(issue: z.core.$ZodIssue): boolean {
  return (
    issue.code === 'too_big' &&
    issue.origin === 'array' &&
    issue.path.length === 1 &&
    (LIST_FIELDS as readonly PropertyKey[]).includes(issue.path[0] ?? '')
  );
}

/** Canonical registry for a caller's spelling; an unknown registry is a 400 `unknown_registry` naming it. */
export function resolveRegistry(registry: string, path: string): string {
  const canonical = canonicalRegistry(registry);
  if (canonical === null) {
    throw new AppError('unknown_registry', `${path}: unknown registry ${quoted(registry)}; known: ${knownRegistryNames().join(', ')}`, {
      details: [{ path, message: 'unknown registry', registry: cut(registry), known: knownRegistryNames() }],
    });
  }
  return canonical;
}

export function resolveProject(item: ParsedProjectRef, path: string): RequestedProject {
  return {
    ref: { registry: resolveRegistry(item.registry, path), projectId: item.projectId },
    requestedRegistry: item.registry,
  };
}

export interface ResolveListOptions {
  /**
   * Reject one id under two registries (400 `ambiguous_project_id`). Needed wherever results are keyed by id alone.
   * @default true
   */
  rejectAmbiguous?: boolean;
  /** The list's name in error paths, for a caller whose list has another name (the MCP `ask` tool's `projects`). */
  field?: string;
}

/**
 * Resolves a parsed list: registries canonicalised (unknown -> 400), duplicates of the same project dropped (the
 * first spelling is kept), request order kept. With `rejectAmbiguous`, one id under two registries is a 400 naming
 * both.
 */
export function resolveProjectList(
  body: { projectList?: ParsedProjectRef[]; list?: ParsedProjectRef[] },
  opts: ResolveListOptions = {},
): RequestedProject[] {
  const picked = pickProjectList(body);
  const field = opts.field ?? picked.field;
  const items = picked.items;
  const rejectAmbiguous = opts.rejectAmbiguous ?? true;
  const out: RequestedProject[] = [];
  const seen = new Map<string, number>();
  const byId = new Map<number, { project: RequestedProject; index: number }>();
  const ambiguous: ErrorDetail[] = [];
  items.forEach((item, index) => {
    const path = `${field}.${index}`;
    const project = resolveProject(item, `${path}.registry`);
    const key = projectKey(project.ref);
    if (seen.has(key)) return;
    seen.set(key, index);
    const earlier = byId.get(project.ref.projectId);
    if (earlier !== undefined && rejectAmbiguous) {
      ambiguous.push({
        path,
        message:
          `project id ${project.ref.projectId} is requested under registry ${quoted(earlier.project.requestedRegistry)} ` +
          `(${field}.${earlier.index}) and ${quoted(project.requestedRegistry)} (${path})`,
        projectId: project.ref.projectId,
        registries: [cut(earlier.project.requestedRegistry), cut(project.requestedRegistry)],
      });
      return;
    }
    if (earlier === undefined) byId.set(project.ref.projectId, { project, index });
    out.push(project);
  });
  const first = ambiguous[0];
  if (first !== undefined) {
    throw new AppError(
      'ambiguous_project_id',
      `${first.message}; results are keyed by project id, so one id cannot be asked for under two registries in one request`,
      { details: ambiguous },
    );
  }
  return out;
}
