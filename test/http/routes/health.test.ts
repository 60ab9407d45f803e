import { describe, expect, it } from 'vitest';
import { NotReadyError } from '../../../src/errors.js';
import type { ReadinessCheck } from '../../../src/http/types.js';
import { errorOf, testAppsClosedAfterEach, type TestApp } from '../fixture.js';

const app = testAppsClosedAfterEach();
/** The app with readiness checks beside its stores' own. */
function appWithChecks(...checks: ReadinessCheck[]): Promise<TestApp> {
  return app({}, (d) => ({ ...d, readiness: [...d.readiness, ...checks] }));
}

describe('health checks', () => {
  it('/healthz answers ok; /readyz lists the checks; other methods are 405', async () => {
    const t = await app();
    const live = await t.app.request('/healthz');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await t.app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { 'record store': 'ok' } });
    const post = await t.app.request('/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('/readyz names every failing store, and gives up on a hanging one', async () => {
    const t = await appWithChecks(
      { name: 'vector index', check: () => Promise.reject(new Error('connection refused')) },
      { name: 'slow store', check: () => new Promise<void>(() => undefined) },
    );
    const started = Date.now();
    const res = await t.app.request('/readyz');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(res.status).toBe(503);
    const err = await errorOf(res);
    expect(err.message).toContain('vector index');
    expect(err.message).toContain('slow store');
    expect(err.message).not.toContain('record store');
    expect(err.details.map((d) => d.dependency)).toEqual(['vector index', 'slow store']);
  });
});

describe('/readyz while content is being prepared', () => {
  it('503 saying what is awaited, with Retry-After, when every store answers; ready once it is done', async () => {
    let indexing = true;
    const t = await appWithChecks({
      name: 'demo documents',
      check: () => (indexing ? Promise.reject(new NotReadyError('the demo documents are being indexed')) : Promise.resolve()),
    });
    const waiting = await t.app.request('/readyz');
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get('retry-after')).toBe('5');
    const err = await errorOf(waiting);
    expect(err.code).toBe('unavailable');
    expect(err.message).toBe('the demo documents are being indexed');
    expect(err.details).toEqual([{ dependency: 'demo documents', message: 'the demo documents are being indexed' }]);
    // Not a failure: nothing is logged as one.
    expect(t.logs.some((l) => l.msg === 'readiness check failed')).toBe(false);
    indexing = false;
    const ready = await t.app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { 'record store': 'ok', 'demo documents': 'ok' } });
  });

  it('a store that is down is named first, without Retry-After, beside what is awaited', async () => {
    const t = await appWithChecks(
      { name: 'vector index', check: () => Promise.reject(new Error('connection refused')) },
      { name: 'demo documents', check: () => Promise.reject(new NotReadyError('the demo documents are being indexed')) },
    );
    const res = await t.app.request('/readyz');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeNull();
    const err = await errorOf(res);
    expect(err.message).toBe('vector index is unavailable');
    expect(err.details.map((d) => d.message)).toEqual(['vector index is unavailable', 'the demo documents are being indexed']);
  });
});
