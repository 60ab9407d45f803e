import { afterEach, describe, expect, it } from 'vitest';
import { createWorkerMetrics, startMetricsListener, type MetricsListener } from '../../ingest/metrics.js';

/** The worker's metrics: counts by outcome and download-failure kind, and the /metrics listener's auth and errors over real HTTP. */

describe('worker metrics listener', () => {
  let listener: MetricsListener | null = null;
  afterEach(async () => {
    await listener?.close();
    listener = null;
  });

  async function start(opts: { keys: string[]; public: boolean }): Promise<{ url: string }> {
    const metrics = createWorkerMetrics();
    metrics.document({ kind: 'indexed' }, { pages: 3, chunks: 7 });
    metrics.document({ kind: 'failed', reason: 'download: HTTP 404 Not Found', downloadFailure: 'http_404' }, { pages: 0, chunks: 0 });
    metrics.retried({ kind: 'failed', reason: 'download: timed out after 10 ms', retryable: true, downloadFailure: 'timeout' });
    // A failure that is not a download's counts as a document outcome only.
    metrics.document({ kind: 'failed', reason: 'extract: timed out after 120000 ms' }, { pages: 0, chunks: 0 });
    metrics.embedSeconds(1.5);
    listener = await startMetricsListener(metrics.registry, { port: 0, host: '127.0.0.1', ...opts });
    return { url: `http://127.0.0.1:${listener.port}` };
  }

  it('serves the counts in Prometheus text', async () => {
    const { url } = await start({ keys: [], public: false });
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await res.text();
    expect(body).toContain('carbon_docs_ingest_documents_total{outcome="indexed"} 1');
    expect(body).toContain('carbon_docs_ingest_documents_total{outcome="failed"} 2');
    expect(body).toContain('carbon_docs_ingest_documents_total{outcome="retry"} 1');
    expect(body).toContain('carbon_docs_ingest_pages_total 3');
    expect(body).toContain('carbon_docs_ingest_chunks_embedded_total 7');
    expect(body).toContain('carbon_docs_ingest_embed_seconds_total 1.5');
    expect(body).toContain('carbon_docs_ingest_download_failures_total{reason="http_404"} 1');
    expect(body).toContain('carbon_docs_ingest_download_failures_total{reason="timeout"} 1');
    expect(body.match(/^carbon_docs_ingest_download_failures_total\{/gm)).toHaveLength(2);
    expect(body).toContain('process_cpu_user_seconds_total');
  });

  it('needs one of API_KEYS unless METRICS_PUBLIC, and answers other paths with a JSON error', async () => {
    const { url } = await start({ keys: ['k1'], public: false });
    const none = await fetch(`${url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer k1' } })).status).toBe(200);
    expect((await fetch(`${url}/metrics`, { headers: { 'x-api-key': 'k1' } })).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const missing = await fetch(`${url}/nothing`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const post = await fetch(`${url}/metrics`, { method: 'POST', headers: { 'x-api-key': 'k1' } });
    expect(post.status).toBe(405);
    await listener?.close();
    const open = await start({ keys: ['k1'], public: true });
    expect((await fetch(`${open.url}/metrics`)).status).toBe(200);
  });
});
