import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { rateLimit } from '../../src/http/middleware/rate-limit.js';
import type { AppEnv } from '../../src/http/types.js';

/** The limiter alone, on a clock the test moves, behind the same AppError -> status mapping the app uses. */
function limited(perMinute: number, clock: { t: number }, clientOf: (c: { req: { header(n: string): string | undefined } }) => string) {
  const app = new Hono<AppEnv>();
  app.use('*', rateLimit({ perMinute, now: () => clock.t, clientKey: clientOf }));
  app.get('/x', (c) => c.text('ok'));
  app.onError((err, c) => {
    if (err instanceof AppError) return c.json({ code: err.code }, err.status, err.headers);
    throw err;
  });
  return app;
}

const byHeader = (c: { req: { header(n: string): string | undefined } }): string => c.req.header('x-client') ?? 'anon';

describe('rateLimit middleware', () => {
  it('allows a burst of perMinute, then refills one request every 60/perMinute seconds', async () => {
    const clock = { t: 1_000_000 };
    const app = limited(6, clock, byHeader);
    for (let i = 0; i < 6; i++) expect((await app.request('/x')).status).toBe(200);
    const refused = await app.request('/x');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');

    clock.t += 9_000;
    const still = await app.request('/x');
    expect(still.status).toBe(429);
    expect(still.headers.get('retry-after')).toBe('1');

    clock.t += 1_000;
    expect((await app.request('/x')).status).toBe(200);
    expect((await app.request('/x')).status).toBe(429);

    // A full minute idle refills the whole burst, and no more.
    clock.t += 120_000;
    for (let i = 0; i < 6; i++) expect((await app.request('/x')).status).toBe(200);
    expect((await app.request('/x')).status).toBe(429);
  });

  it('keeps one bucket per client', async () => {
    const clock = { t: 0 };
    const app = limited(1, clock, byHeader);
    expect((await app.request('/x', { headers: { 'x-client': 'a' } })).status).toBe(200);
    expect((await app.request('/x', { headers: { 'x-client': 'a' } })).status).toBe(429);
    expect((await app.request('/x', { headers: { 'x-client': 'b' } })).status).toBe(200);
  });

  it('does nothing at 0 and refuses a bad setting at creation', async () => {
    const app = limited(0, { t: 0 }, byHeader);
    for (let i = 0; i < 20; i++) expect((await app.request('/x')).status).toBe(200);
    expect(() => rateLimit({ perMinute: -1 })).toThrow(/perMinute/);
    expect(() => rateLimit({ perMinute: 1.5 })).toThrow(/perMinute/);
  });
});
