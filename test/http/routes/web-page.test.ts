import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_HEDGE } from '../../../src/services/search.js';
import { createTestApp, errorOf, type TestApp } from '../fixture.js';

describe('GET / (the search page)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ API_KEYS: 'k1' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves the page and its two assets without an API key, while the API still wants one', async () => {
    const page = await t.app.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<script src="/ui/app.js" defer></script>');
    expect(html).toContain('<option>Gold Standard</option>');
    expect(html).toContain('<option value="Colombia"></option>');
    expect(html).not.toContain('{{');
    for (const [p, type] of [
      ['/ui/app.js', 'text/javascript; charset=utf-8'],
      ['/ui/app.css', 'text/css; charset=utf-8'],
    ] as const) {
      const res = await t.app.request(p);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toBe(type);
    }
    expect((await t.app.request('/ui/other.js')).status).toBe(404);
    // The page marks an answer given on little evidence by the sentence the service begins it with.
    expect(await (await t.app.request('/ui/app.js')).text()).toContain(`const ANSWER_HEDGE = '${ANSWER_HEDGE}';`);
    expect(html).toContain('<p id="partial" class="partial" hidden>');
    const api = await t.app.request('/projects/search', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect((await errorOf(api)).code).toBe('unauthorized');
  });

  it('allows no request to leave the origin (Content-Security-Policy), and loads no third-party code', async () => {
    const res = await t.app.request('/');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('weighs less than 150 kB with its assets', async () => {
    let bytes = 0;
    for (const p of ['/', '/ui/app.js', '/ui/app.css']) bytes += (await (await t.app.request(p)).arrayBuffer()).byteLength;
    expect(bytes).toBeLessThan(150_000);
  });

  it('answers another method on / with 405', async () => {
    const res = await t.app.request('/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(405);
  });
});
