import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import type { AppEnv } from '../../../src/http/env.js';
import { requireJsonContentType } from '../../../src/http/middleware/content-type.js';

/** The middleware alone, behind the AppError -> status mapping the app uses. */
function app() {
  const a = new Hono<AppEnv>();
  a.use('*', requireJsonContentType());
  a.post('/x', (c) => c.text('ok'));
  a.onError((err, c) => {
    if (err instanceof AppError) return c.json({ code: err.code, message: err.message }, err.status);
    throw err;
  });
  return a;
}

const post = (type?: string) =>
  app().request('/x', {
    method: 'POST',
    // Bytes, not a string: a string body would be given text/plain.
    body: new TextEncoder().encode('{}'),
    ...(type === undefined ? {} : { headers: { 'Content-Type': type } }),
  });

describe('requireJsonContentType', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json'])(
    'lets %j through',
    async (type) => {
      expect((await post(type)).status).toBe(200);
    },
  );

  it('refuses another type or none with 415 saying what it got, cut when long', async () => {
    const none = await post();
    expect(none.status).toBe(415);
    expect(((await none.json()) as { message: string }).message).toMatch(/got no Content-Type/);
    const form = await post('application/x-www-form-urlencoded');
    expect(((await form.json()) as { code: string; message: string }).message).toMatch(/got "application\/x-www-form-urlencoded"/);
    expect((await post('text/json')).status).toBe(415);
    const long = (await (await post(`text/${'x'.repeat(5000)}`)).json()) as { message: string };
    expect(long.message.length).toBeLessThan(400);
  });
});
