import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AppError, codeToStatus, toErrorBody, type ErrorCode } from '../src/errors.js';
import { apiKeyMatcher, presentedApiKey } from '../src/api-keys.js';
import type { IngestQueue } from '../src/ports/ingest-queue.js';
import type { DocumentOutcome } from './types.js';

/**
 * The queue worker's Prometheus metrics (prom-client), served by a small HTTP listener on METRICS_PORT: documents by
 * outcome, pages, chunks embedded, embed seconds, download failures by reason, the queue's depth and per-state job
 * counts (read from PostgreSQL at each scrape), and the Node.js process's own.
 */
export interface WorkerMetrics {
  registry: Registry;
  /** Counts a document's outcome, its pages and chunks when indexed, and a failed download's kind. */
  document(outcome: DocumentOutcome, counts: { pages: number; chunks: number }): void;
  /** A failure that the queue will try again later. */
  retried(outcome: FailedOutcome): void;
  embedSeconds(seconds: number): void;
}

type FailedOutcome = Extract<DocumentOutcome, { kind: 'failed' }>;

export function createWorkerMetrics(queue?: Pick<IngestQueue, 'status'>): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const documents = new Counter({
    name: 'carbon_docs_ingest_documents_total',
    help: 'Documents this worker finished, by outcome (indexed, unchanged, skipped, needs_ocr, failed; retry: tried again later).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const pages = new Counter({ name: 'carbon_docs_ingest_pages_total', help: 'Pages of the documents indexed.', registers: [registry] });
  const chunks = new Counter({
    name: 'carbon_docs_ingest_chunks_embedded_total',
    help: 'Chunks embedded and written to the index.',
    registers: [registry],
  });
  const embed = new Counter({
    name: 'carbon_docs_ingest_embed_seconds_total',
    help: 'Seconds spent inside the embedder.',
    registers: [registry],
  });
  const embedPerDocument = new Histogram({
    name: 'carbon_docs_ingest_document_embed_seconds',
    help: "Seconds one document's chunks took to embed.",
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  const downloadFailures = new Counter({
    name: 'carbon_docs_ingest_download_failures_total',
    help: 'Failed downloads by kind (http_<status>, timeout, network, too_large, refused, not_pdf, redirect, placeholder, other).',
    labelNames: ['reason'],
    registers: [registry],
  });
  const depth = new Gauge({
    name: 'carbon_docs_ingest_queue_depth',
    help: 'Jobs waiting to be claimed (created or waiting to retry).',
    registers: [registry],
  });
  if (queue) {
    // Read at scrape time, so every worker reports the queue as it is (a scrape of any one worker is enough).
    new Gauge({
      name: 'carbon_docs_ingest_jobs',
      help: 'Jobs in the ingestion queue by queue (documents, enrich) and state.',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        const status = await queue.status();
        for (const [name, counts] of Object.entries(status.queues)) {
          for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
        }
        depth.set(status.depth);
      },
    });
  }
  const countDownloadFailure = (outcome: FailedOutcome): void => {
    if (outcome.downloadFailure !== undefined) downloadFailures.inc({ reason: outcome.downloadFailure });
  };

  return {
    registry,
    document(outcome, counts) {
      documents.inc({ outcome: outcome.kind });
      if (outcome.kind === 'indexed') {
        pages.inc(counts.pages);
        chunks.inc(counts.chunks);
      }
      if (outcome.kind === 'failed') countDownloadFailure(outcome);
    },
    retried(outcome) {
      documents.inc({ outcome: 'retry' });
      countDownloadFailure(outcome);
    },
    embedSeconds(seconds) {
      embed.inc(seconds);
      embedPerDocument.observe(seconds);
    },
  };
}

export interface MetricsListenerOptions {
  port: number;
  host?: string;
  /** API_KEYS: a scrape needs one of them unless `public`. */
  keys: readonly string[];
  /** METRICS_PUBLIC: serve /metrics without a key. */
  public: boolean;
}

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

/** GET /metrics (Prometheus text) and GET /healthz on `port`; anything else is a JSON 404. */
export async function startMetricsListener(registry: Registry, opts: MetricsListenerOptions): Promise<MetricsListener> {
  const keys = apiKeyMatcher(opts.keys);
  const json = (res: http.ServerResponse, code: ErrorCode, message: string, headers: Record<string, string> = {}): void => {
    res.writeHead(codeToStatus(code), { 'Content-Type': 'application/json', ...headers });
    res.end(JSON.stringify(toErrorBody(new AppError(code, message))));
  };
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"status":"ok"}');
      return;
    }
    if (path !== '/metrics') return json(res, 'not_found', `no route ${req.method} ${path}; the worker serves GET /metrics`);
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 'method_not_allowed', 'use GET /metrics', { Allow: 'GET' });
    if (!opts.public && keys.enabled) {
      const presented = presentedApiKey((name) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      });
      const challenge = { 'WWW-Authenticate': 'Bearer' };
      if (presented === undefined) return json(res, 'unauthorized', 'an API key is required (or set METRICS_PUBLIC=true)', challenge);
      if (keys.match(presented) < 0) return json(res, 'unauthorized', 'the API key is not valid', challenge);
    }
    registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'Content-Type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => json(res, 'unavailable', `metrics could not be collected: ${err instanceof Error ? err.message : String(err)}`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
