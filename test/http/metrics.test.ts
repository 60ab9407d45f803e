import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiMetrics, METRICS_PATH, type ApiMetrics } from '../../src/http/metrics.js';
import { BATCH_SEARCH_PATH } from '../../src/http/routes/batch-search.js';
import { createSearchService } from '../../src/services/search.js';
import { createSearchFixture, searchOptions, type SearchFixture } from '../services/support/fixtures.js';
import { createTestApp, postJson, type TestApp } from './fixture.js';

/** The value of one sample line of a Prometheus text exposition, or 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.indexOf('}'));
    if (want.every((w) => inner.split(',').includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

let fx: SearchFixture;
let metrics: ApiMetrics;
let open: TestApp;
let keyed: TestApp;
let keyedPublic: TestApp;

beforeAll(async () => {
  fx = await createSearchFixture();
  await fx.addDocument({ registry: 'Verra', projectId: 5533 }, 'pd', ['The crediting period is 20 years, from 15/07/2022 to 14/07/2042.']);
  metrics = createApiMetrics();
  open = await createTestApp({}, (d) => ({
    ...d,
    metrics,
    search: createSearchService(searchOptions(fx, { onStage: (stage, seconds) => metrics.searchStage.observe({ stage }, seconds) })),
  }));
  keyed = await createTestApp({ API_KEYS: 'k1' }, (d) => ({ ...d, metrics: createApiMetrics() }));
  keyedPublic = await createTestApp({ API_KEYS: 'k1', METRICS_PUBLIC: 'true' }, (d) => ({ ...d, metrics: createApiMetrics() }));
});
afterAll(async () => {
  await open.close();
  await keyed.close();
  await keyedPublic.close();
  await fx.close();
});

describe('GET /metrics', () => {
  it('serves Prometheus text whose counts move as searches are answered', async () => {
    const scrape = async (): Promise<string> => {
      const res = await open.app.request(METRICS_PATH);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    const before = await scrape();
    const ok = { method: 'POST', route: BATCH_SEARCH_PATH, status: '200' };
    const bad = { method: 'POST', route: BATCH_SEARCH_PATH, status: '400' };
    for (let i = 0; i < 2; i++) {
      const res = await postJson(open.app, BATCH_SEARCH_PATH, {
        projectList: [{ project_id: 5533, registry: 'Verra' }],
        query: 'What is the crediting period?',
      });
      expect(res.status).toBe(200);
    }
    expect((await postJson(open.app, BATCH_SEARCH_PATH, { projectList: [] })).status).toBe(400);
    const after = await scrape();

    expect(sample(after, 'carbon_docs_http_requests_total', ok) - sample(before, 'carbon_docs_http_requests_total', ok)).toBe(2);
    expect(sample(after, 'carbon_docs_http_requests_total', bad) - sample(before, 'carbon_docs_http_requests_total', bad)).toBe(1);
    const timed = (t: string) => sample(t, 'carbon_docs_http_request_duration_seconds_count', { method: 'POST', route: BATCH_SEARCH_PATH });
    expect(timed(after) - timed(before)).toBe(3);
    for (const stage of ['embed', 'retrieve', 'answer']) {
      const n = (t: string) => sample(t, 'carbon_docs_search_stage_seconds_count', { stage });
      expect(n(after) - n(before), stage).toBe(2);
    }
    // The process's own metrics come along (prom-client's defaults).
    expect(after).toMatch(/^process_cpu_user_seconds_total /m);
  });

  it('labels requests by route pattern, never by the raw path', async () => {
    await open.app.request('/no/such/path/12345');
    const text = await (await open.app.request(METRICS_PATH)).text();
    expect(text).not.toContain('/no/such/path');
    expect(sample(text, 'carbon_docs_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
  });

  it('needs an API key like any endpoint, unless METRICS_PUBLIC is set', async () => {
    expect((await keyed.app.request(METRICS_PATH)).status).toBe(401);
    expect((await keyed.app.request(METRICS_PATH, { headers: { Authorization: 'Bearer k1' } })).status).toBe(200);
    expect((await keyedPublic.app.request(METRICS_PATH)).status).toBe(200);
    // Public metrics open nothing else.
    expect((await postJson(keyedPublic.app, BATCH_SEARCH_PATH, { projectList: [], query: 'x' })).status).toBe(401);
  });
});
