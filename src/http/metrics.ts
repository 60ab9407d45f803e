import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { AppEnv } from './env.js';

export const METRICS_PATH = '/metrics';

/** A search's stages, as the search service reports them (SearchServiceOptions.onStage). */
export type SearchStage = 'embed' | 'retrieve' | 'answer';

/**
 * The API's Prometheus metrics (prom-client): requests by route and status, request latency by route, search stage
 * timings, and the Node.js process's own (event-loop lag, heap, CPU). One registry a process: each API process is
 * scraped on its own.
 */
export interface ApiMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
  searchStage: Histogram<'stage'>;
}

export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: 'carbon_docs_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'carbon_docs_http_request_duration_seconds',
      help: 'Time from a request to its response, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    searchStage: new Histogram({
      name: 'carbon_docs_search_stage_seconds',
      help: 'Time a batch search spends in each stage: embed (the query), retrieve (fusion and reranking), answer.',
      labelNames: ['stage'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 30],
      registers: [registry],
    }),
  };
}

/**
 * Counts and times every request. The route label is the matched route's pattern ("/projects/:id" style), never the
 * raw path, so a scan of random URLs cannot grow the series without bound: unmatched paths are "unmatched".
 */
export function metricsMiddleware(metrics: ApiMetrics): MiddlewareHandler<AppEnv> {
  return async function recordRequestMetrics(c, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const pattern = routePath(c, -1);
      const route = pattern === '' || pattern === '*' || pattern === '/*' ? 'unmatched' : pattern;
      const method = c.req.method;
      metrics.requests.inc({ method, route, status: String(c.res.status) });
      metrics.duration.observe({ method, route }, (performance.now() - started) / 1000);
    }
  };
}

/** GET /metrics in Prometheus's text format. */
export function registerMetrics(app: OpenAPIHono<AppEnv>, metrics: ApiMetrics): void {
  app.get(METRICS_PATH, async (c) => {
    const body = await metrics.registry.metrics();
    return c.body(body, 200, { 'Content-Type': metrics.registry.contentType });
  });
}
