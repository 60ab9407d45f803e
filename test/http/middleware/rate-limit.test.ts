import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { rateLimit } from '../../../src/http/middleware/rate-limit.js';
import type { AppEnv } from '../../../src/http/env.js';

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
  it('allows perMinute at once, then nothing until the first of them is a minute old', async () => {
    const clock = { t: 1_000_000 };
    const app = limited(6, clock, byHeader);
    for (let i = 0; i < 6; i++) expect((await app.request('/x')).status).toBe(200);
    const refused = await app.request('/x');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('61');

    clock.t += 60_000;
    const still = await app.request('/x');
    expect(still.status).toBe(429);
    expect(still.headers.get('retry-after')).toBe('1');

    clock.t += 1_000;
    for (let i = 0; i < 6; i++) expect((await app.request('/x')).status).toBe(200);
    expect((await app.request('/x')).status).toBe(429);
  });

  it('never accepts more than perMinute in any 60 seconds (issue 16.7: a token bucket accepted twice that)', async () => {
    const clock = { t: 5_000_000 };
    const limit = 60;
    const app = limited(limit, clock, byHeader);
    const accepted: number[] = [];
    // A client sending every 250 ms for five minutes.
    for (let i = 0; i < 1200; i++) {
      if ((await app.request('/x')).status === 200) accepted.push(clock.t);
      clock.t += 250;
    }
    let most = 0;
    for (let a = 0; a < accepted.length; a++) {
      let b = a;
      while (b < accepted.length && (accepted[b] as number) - (accepted[a] as number) < 60_000) b++;
      most = Math.max(most, b - a);
    }
    expect(most).toBe(limit);
    // ... and still accepts nearly the limit: 60 per 61 s at worst.
    expect(accepted.length).toBeGreaterThanOrEqual(Math.floor((300 / 61) * limit));
  });

  it('with `counts`, hands back the requests whose answer does not count', async () => {
    const clock = { t: 0 };
    const app = new Hono<AppEnv>();
    app.use('*', rateLimit({ perMinute: 2, now: () => clock.t, clientKey: () => 'a', counts: (s) => s === 401 }));
    app.get('/ok', (c) => c.text('ok'));
    app.get('/no', (c) => c.text('no', 401));
    app.onError((err, c) => (err instanceof AppError ? c.json({ code: err.code }, err.status, err.headers) : c.text('?', 500)));
    for (let i = 0; i < 10; i++) expect((await app.request('/ok')).status).toBe(200);
    expect((await app.request('/no')).status).toBe(401);
    expect((await app.request('/no')).status).toBe(401);
    expect((await app.request('/ok')).status).toBe(429);
  });

  it('keeps one window per client', async () => {
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
