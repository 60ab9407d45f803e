import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { randomUUID } from 'node:crypto';
import { AppError, DependencyError, toErrorBody, type ErrorCode } from '../errors.js';
import { cut } from './echo.js';
import { METRICS_PATH, metricsMiddleware, registerMetrics } from './metrics.js';
import { apiKeyAuth } from './middleware/auth.js';
import { clientAddress, rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { registerDemoDocuments } from './routes/demo-documents.js';
import { HEALTH_PATHS, registerHealth } from './routes/health.js';
import { registerRoutes } from './routes/index.js';
import { WEB_ASSETS_PREFIX, WEB_PAGE_PATH, registerWebPage } from './routes/web-page.js';
import type { AppDeps } from './types.js';
import type { AppEnv } from './env.js';

export type { AppDeps } from './types.js';
export type { AppEnv } from './env.js';
import { validationError } from './validation-error.js';
export { validationError } from './validation-error.js';

export const OPENAPI_PATH = '/openapi.json';

const isHealthPath = (p: string): boolean => (HEALTH_PATHS as readonly string[]).includes(p);

/** Hono's own exceptions (from its validators and middleware) in our vocabulary. */
function fromHttpException(err: HTTPException): AppError | null {
  const map: Partial<Record<number, ErrorCode>> = {
    400: 'invalid_request',
    401: 'unauthorized',
    404: 'not_found',
    405: 'method_not_allowed',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    429: 'rate_limited',
    503: 'unavailable',
  };
  const code = map[err.status];
  return code === undefined ? null : new AppError(code, err.message || code.replaceAll('_', ' '), { cause: err });
}

function requestIdOf(c: Context<AppEnv>): string {
  // Set by requestContext, which runs first; an error before it (none is expected) still gets an id.
  return (c.get('requestId') as string | undefined) ?? randomUUID();
}

function sendError(c: Context<AppEnv>, err: AppError): Response {
  return c.json(toErrorBody(err, requestIdOf(c)), err.status, err.headers);
}

/** The health checks and this document, listed in the OpenAPI document (their handlers are plain routes). */
function registerOperationalPaths(app: OpenAPIHono<AppEnv>): void {
  const json = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' as const } } } });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness: the process is up',
    description: 'Touches no store. Served without an API key and without rate limiting.',
    security: [],
    responses: { 200: json('`{"status": "ok"}`') },
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness: every backing store answers',
    description: 'Served without an API key and without rate limiting.',
    security: [],
    responses: { 200: json('`{"status": "ready", "checks": {...}}`'), 503: json('`unavailable`, naming the stores that do not answer.') },
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: OPENAPI_PATH,
    operationId: 'openapi',
    summary: 'This document (OpenAPI 3.1)',
    responses: { 200: json('The OpenAPI document.') },
  });
}

/**
 * The whole HTTP API: request ids and logs, auth, rate limit, health checks, the documented routes, the OpenAPI
 * document, 405 for other methods on known paths, and one error handler that turns every failure into the JSON
 * error body (never a stack trace).
 */
export function createApp(deps: AppDeps): OpenAPIHono<AppEnv> {
  const { config } = deps;
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error);
    },
  });

  // Health checks, and the search page and its assets (they hold no data; the page asks for a key when the API wants
  // one). With API_KEYS set the demo documents need a key too (the API indexes them from disk).
  // GET /metrics too when METRICS_PUBLIC is set (a scraper on a private network).
  const isPublic = (p: string): boolean =>
    isHealthPath(p) || p === WEB_PAGE_PATH || p.startsWith(WEB_ASSETS_PREFIX) || (config.METRICS_PUBLIC && p === METRICS_PATH);

  app.use('*', requestContext({ logger: deps.logger }));
  if (deps.metrics) app.use('*', metricsMiddleware(deps.metrics));
  if (config.API_KEYS.length > 0 && config.AUTH_FAILURES_PER_MINUTE > 0) {
    // Before authentication: an address that keeps presenting no key or a wrong one is refused before its key is
    // checked (a valid key from it too: the key cannot be known valid without checking it).
    app.use(
      '*',
      rateLimit({
        perMinute: config.AUTH_FAILURES_PER_MINUTE,
        clientKey: (c) => `addr:${clientAddress(c)}`,
        isExempt: isPublic,
        counts: (status) => status === 401,
        what: 'failed authentications',
      }),
    );
  }
  app.use('*', apiKeyAuth({ keys: config.API_KEYS, isPublic }));
  app.use('*', rateLimit({ perMinute: config.RATE_LIMIT_PER_MINUTE, isExempt: isHealthPath }));

  registerHealth(app, deps);
  registerRoutes(app, deps);
  if (deps.demoDocumentsDir !== undefined) registerDemoDocuments(app, deps.demoDocumentsDir);
  registerWebPage(app);
  if (deps.metrics) registerMetrics(app, deps.metrics);

  const authOn = config.API_KEYS.length > 0;
  // Either scheme satisfies the requirement (OpenAPI: alternatives are separate entries).
  const security: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'One of the keys in API_KEYS. Required only when the service is started with API_KEYS set.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKeyHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Alternative to the bearer token.',
  });
  registerOperationalPaths(app);
  app.doc31(OPENAPI_PATH, (c) => ({
    openapi: '3.1.0',
    info: {
      title: 'Carbon project document metadata and search',
      version: '1.0.0',
      description:
        'Records of carbon-credit projects held by registries, and cited search across their documents. ' +
        `Limits: request bodies up to ${config.MAX_BODY_BYTES} bytes; at most ${config.MAX_BATCH_PROJECTS} projects per list; ` +
        (config.RATE_LIMIT_PER_MINUTE > 0
          ? `${config.RATE_LIMIT_PER_MINUTE} requests per minute per client (429 with Retry-After beyond). `
          : 'no rate limit configured. ') +
        (authOn
          ? 'Authentication: `Authorization: Bearer <key>` or `X-API-Key: <key>` on every endpoint but /healthz and /readyz. '
          : 'Authentication: off (no API_KEYS configured). ') +
        'Errors are `{"error": {"code", "message", "details", "requestId"}}`.',
    },
    servers: [{ url: config.PUBLIC_BASE_URL ?? new URL(c.req.url).origin }],
    ...(authOn ? { security } : {}),
  }));

  // 405 for any other method on a path that exists, with Allow listing what it serves. Registered after every route,
  // so the real handlers answer first; derived from the routing table, so a route added later is covered too.
  const methodsByPath = new Map<string, Set<string>>();
  for (const r of app.routes) {
    if (r.method === 'ALL' || r.path.includes('*')) continue;
    const set = methodsByPath.get(r.path) ?? new Set<string>();
    set.add(r.method);
    if (r.method === 'GET') set.add('HEAD');
    methodsByPath.set(r.path, set);
  }
  for (const [p, methods] of methodsByPath) {
    const allow = [...methods].join(', ');
    app.all(p, (c) => {
      throw new AppError('method_not_allowed', `${c.req.method} is not allowed on ${cut(c.req.path)}; allowed: ${allow}`, {
        headers: { Allow: allow },
      });
    });
  }

  app.notFound((c) => sendError(c, new AppError('not_found', `no such endpoint: ${cut(c.req.method)} ${cut(c.req.path)}`)));

  app.onError((err, c) => {
    if (err instanceof AppError) return sendError(c, err);
    const log = (c.get('logger') as AppEnv['Variables']['logger'] | undefined) ?? deps.logger;
    if (err instanceof DependencyError) {
      log.warn({ err, dependency: err.dependency }, 'dependency unavailable');
      return sendError(
        c,
        new AppError('unavailable', `${err.dependency} is unavailable; try again later`, {
          details: [{ dependency: err.dependency, message: `${err.dependency} is unavailable`, retryable: err.retryable }],
        }),
      );
    }
    if (err instanceof HTTPException) {
      const mapped = fromHttpException(err);
      if (mapped !== null) return sendError(c, mapped);
    }
    const requestId = requestIdOf(c);
    log.error({ err, requestId }, 'unexpected error');
    return sendError(c, new AppError('internal', `internal error; quote request id ${requestId} when reporting it`));
  });

  return app;
}
