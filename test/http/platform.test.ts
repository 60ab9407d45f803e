import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createPgPool, type PgPool } from '../../src/adapters/postgres/database.js';
import { createPgRecordStore } from '../../src/adapters/postgres/record-store.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { NotReadyError } from '../../src/errors.js';
import type { ReadinessCheck } from '../../src/http/types.js';
import type { MetadataService } from '../../src/services/metadata.js';
import { createMetadataService } from '../../src/services/metadata.js';
import { repoRoot } from '../support/corpus.js';
import { describeWithService, postgresUrl } from '../support/services.js';
import { createTestApp, errorOf, EVAL_RECORDS, postJson, type TestApp } from './fixture.js';

/** Verra 5533, the first line of the corpus records file. */
function firstEvalRecord(): Record<string, unknown> {
  const line = readFileSync(EVAL_RECORDS, 'utf8').split('\n')[0] ?? '';
  const raw = JSON.parse(line) as Record<string, unknown>;
  if (raw.resourceIdentifier !== '5533') throw new Error('the corpus records file changed: expected 5533 first');
  return raw;
}

const METADATA = '/project-documents/metadata';
const BATCH = '/project-documents/batch-metadata';
const ok = { projectId: 5533, registry: 'Verra' };

const open: TestApp[] = [];
async function app(...args: Parameters<typeof createTestApp>): Promise<TestApp> {
  const t = await createTestApp(...args);
  open.push(t);
  return t;
}
/** The app with readiness checks beside its stores' own. */
function appWithChecks(...checks: ReadinessCheck[]): Promise<TestApp> {
  return app({}, (d) => ({ ...d, readiness: [...d.readiness, ...checks] }));
}
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

describe('request ids and logs', () => {
  it('returns a generated X-Request-Id on success and on errors, and logs the request under it', async () => {
    const t = await app();
    const res = await postJson(t.app, METADATA, ok);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await postJson(t.app, METADATA, { projectId: 0, registry: 'Verra' });
    const badId = bad.headers.get('x-request-id');
    expect(badId).toMatch(/^[0-9a-f-]{36}$/);
    expect(badId).not.toBe(id);
    expect((await errorOf(bad)).requestId).toBe(badId);
    const line = t.logs.find((l) => l.requestId === id && l.msg === 'request');
    expect(line).toMatchObject({ method: 'POST', path: METADATA, status: 200 });
  });

  it('keeps a safe incoming X-Request-Id and replaces an unsafe one', async () => {
    const t = await app();
    const kept = await postJson(t.app, METADATA, ok, { 'X-Request-Id': 'client-abc.123' });
    expect(kept.headers.get('x-request-id')).toBe('client-abc.123');
    const replaced = await postJson(t.app, METADATA, ok, { 'X-Request-Id': 'bad id with spaces' });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('404 and 500', () => {
  it('404 not_found as JSON for an unknown path, with a request id', async () => {
    const t = await app();
    for (const [method, p] of [
      ['GET', '/nope'],
      ['POST', '/project-documents/metadatas'],
      ['POST', '/v1'],
    ] as const) {
      const res = await t.app.request(p, {
        method,
        headers: { 'Content-Type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      });
      expect(res.status).toBe(404);
      const err = await errorOf(res);
      expect(err.code).toBe('not_found');
      expect(err.message).toContain(p);
      expect(res.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('500 internal with the request id, logged with the stack, never a stack in the body', async () => {
    const failing: MetadataService = {
      async getOne() {
        throw new Error('secret detail: disk sector 7');
      },
      async getBatch() {
        throw new RangeError('boom in batch');
      },
      async getOneJson() {
        throw new Error('secret detail: disk sector 7');
      },
      async getBatchJson() {
        throw new RangeError('boom in batch');
      },
    };
    const t = await app({}, (d) => ({ ...d, metadata: failing }));
    for (const [p, body] of [
      [METADATA, ok],
      [BATCH, { projectList: [{ id: 1, registry: 'CDM' }] }],
    ] as const) {
      const res = await postJson(t.app, p, body);
      expect(res.status).toBe(500);
      const text = await res.clone().text();
      const err = await errorOf(res);
      expect(err.code).toBe('internal');
      expect(err.requestId).toBe(res.headers.get('x-request-id'));
      expect(err.message).toContain(err.requestId);
      expect(text).not.toMatch(/secret detail|boom|\bat .*\.ts:\d+/);
      const logged = t.logs.find((l) => l.requestId === err.requestId && l.msg === 'unexpected error');
      expect(logged?.level).toBe(50);
      expect(logged?.err?.stack).toMatch(/secret detail|boom/);
    }
  });
});

describe('503 when a store is down', () => {
  it('503 unavailable naming the record store when the SQLite database is closed; /readyz says the same', async () => {
    const t = await app();
    expect((await postJson(t.app, METADATA, ok)).status).toBe(200);
    expect((await t.app.request('/readyz')).status).toBe(200);
    t.db.close();
    for (const [p, body] of [
      [METADATA, ok],
      [BATCH, { list: [ok] }],
    ] as const) {
      const res = await postJson(t.app, p, body);
      expect(res.status).toBe(503);
      const err = await errorOf(res);
      expect(err.code).toBe('unavailable');
      expect(err.message).toContain('record store');
    }
    const ready = await t.app.request('/readyz');
    expect(ready.status).toBe(503);
    const err = await errorOf(ready);
    expect(err.code).toBe('unavailable');
    expect(err.message).toContain('record store');
    // Liveness does not depend on the stores.
    expect((await t.app.request('/healthz')).status).toBe(200);
  });

  describeWithService('PostgreSQL record store', { available: postgresUrl !== undefined, why: 'DATABASE_URL is not set' }, () => {
    let admin: PgPool | undefined;
    const database = `h3_http_${randomBytes(4).toString('hex')}`;
    afterAll(async () => {
      if (admin === undefined) return;
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    });

    it('503 unavailable naming the record store when the pool can no longer reach PostgreSQL', async () => {
      admin = createPgPool(postgresUrl ?? '', { max: 1 });
      await admin.query(`CREATE DATABASE ${database}`);
      const url = new URL(postgresUrl ?? '');
      url.pathname = `/${database}`;
      const pool = createPgPool(url.toString(), { max: 2 });
      const records = await createPgRecordStore({ pool });
      await records.upsert([{ ref: { registry: 'Verra', projectId: 5533 }, format: 'registry-json', raw: firstEvalRecord() }]);
      const t = await app({}, (d) => ({
        ...d,
        metadata: createMetadataService({ records, countries: createCountryLookup() }),
        readiness: [{ name: 'record store', check: () => records.ping() }],
      }));
      expect((await postJson(t.app, METADATA, ok)).status).toBe(200);
      expect((await t.app.request('/readyz')).status).toBe(200);
      await pool.end();
      const res = await postJson(t.app, METADATA, ok);
      expect(res.status).toBe(503);
      const err = await errorOf(res);
      expect(err.code).toBe('unavailable');
      expect(err.message).toContain('record store');
      expect((await t.app.request('/readyz')).status).toBe(503);
    });
  });
});

describe('authentication (API_KEYS set)', () => {
  const keys = { API_KEYS: 'first-key-123, second-key-456' };

  it('401 unauthorized without a key, with a wrong key, and with a malformed Authorization header', async () => {
    const t = await app(keys);
    const attempts: Array<Record<string, string>> = [
      {},
      { Authorization: 'Bearer wrong-key' },
      { 'X-API-Key': 'first-key-12' },
      { 'X-API-Key': 'first-key-1234' },
      { Authorization: 'Basic Zmlyc3Qta2V5LTEyMw==' },
      { Authorization: 'first-key-123' },
    ];
    for (const headers of attempts) {
      const res = await postJson(t.app, METADATA, ok, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect((await errorOf(res)).code).toBe('unauthorized');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it('compares keys exactly: a non-breaking space, another Unicode space or a different case is a wrong key (issue 45)', async () => {
    const t = await app(keys);
    const attempts: Array<Record<string, string>> = [
      { 'X-API-Key': 'first-key-123\u00a0' },
      { 'X-API-Key': '\u00a0first-key-123' },
      { Authorization: 'Bearer first-key-123\u00a0' },
      { Authorization: 'Bearer first-key-123\u0085' },
      { Authorization: 'Bearer first-key-123\u000b' },
      { 'X-API-Key': 'FIRST-KEY-123' },
      { 'X-API-Key': 'first-key-123 ' + 'x' },
    ];
    for (const headers of attempts) {
      const res = await postJson(t.app, METADATA, ok, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
    }
    // Spaces and tabs around a header value are HTTP's own padding, not part of the key.
    expect((await postJson(t.app, METADATA, ok, { 'X-API-Key': ' first-key-123\t' })).status).toBe(200);
  });

  it('accepts either key, as a bearer token or in X-API-Key', async () => {
    const t = await app(keys);
    const accepted: Array<Record<string, string>> = [
      { Authorization: 'Bearer first-key-123' },
      { Authorization: 'bearer second-key-456' },
      { 'X-API-Key': 'second-key-456' },
    ];
    for (const headers of accepted) {
      expect((await postJson(t.app, METADATA, ok, headers)).status, JSON.stringify(headers)).toBe(200);
      expect((await postJson(t.app, BATCH, { list: [ok] }, headers)).status).toBe(200);
    }
  });

  it('guards /openapi.json but not the health checks', async () => {
    const t = await app(keys);
    expect((await t.app.request('/openapi.json')).status).toBe(401);
    expect((await t.app.request('/openapi.json', { headers: { 'X-API-Key': 'first-key-123' } })).status).toBe(200);
    expect((await t.app.request('/healthz')).status).toBe(200);
    expect((await t.app.request('/readyz')).status).toBe(200);
  });

  it('is off when API_KEYS is empty', async () => {
    const t = await app({ API_KEYS: ' , ' });
    expect((await postJson(t.app, METADATA, ok)).status).toBe(200);
  });
});

describe('rate limiting', () => {
  it('429 rate_limited with Retry-After once a client exceeds RATE_LIMIT_PER_MINUTE', async () => {
    const t = await app({ RATE_LIMIT_PER_MINUTE: '3' });
    for (let i = 0; i < 3; i++) expect((await postJson(t.app, METADATA, ok)).status).toBe(200);
    const res = await postJson(t.app, BATCH, { list: [ok] });
    expect(res.status).toBe(429);
    const err = await errorOf(res);
    expect(err.code).toBe('rate_limited');
    const retryAfter = Number(res.headers.get('retry-after'));
    // The three were sent at once: room comes back when they are a minute old.
    expect(retryAfter).toBeGreaterThanOrEqual(60);
    expect(retryAfter).toBeLessThanOrEqual(61);
    // Health checks are never limited.
    expect((await t.app.request('/healthz')).status).toBe(200);
  });

  it('counts each API key separately', async () => {
    const t = await app({ RATE_LIMIT_PER_MINUTE: '2', API_KEYS: 'key-a,key-b' });
    const a = { 'X-API-Key': 'key-a' };
    const b = { Authorization: 'Bearer key-b' };
    expect((await postJson(t.app, METADATA, ok, a)).status).toBe(200);
    expect((await postJson(t.app, METADATA, ok, a)).status).toBe(200);
    expect((await postJson(t.app, METADATA, ok, a)).status).toBe(429);
    expect((await postJson(t.app, METADATA, ok, b)).status).toBe(200);
  });

  it('does not let a client escape the limit by sending made-up API keys while auth is off', async () => {
    const t = await app({ RATE_LIMIT_PER_MINUTE: '2' });
    expect((await postJson(t.app, METADATA, ok, { 'X-API-Key': 'a' })).status).toBe(200);
    expect((await postJson(t.app, METADATA, ok, { 'X-API-Key': 'b' })).status).toBe(200);
    expect((await postJson(t.app, METADATA, ok, { Authorization: 'Bearer c' })).status).toBe(429);
  });

  it('is off by default', async () => {
    const t = await app();
    for (let i = 0; i < 50; i++) expect((await postJson(t.app, METADATA, ok)).status).toBe(200);
  });

  it('limits failed authentications per address before checking keys (issue 16.7), even with RATE_LIMIT_PER_MINUTE off', async () => {
    const t = await app({ API_KEYS: 'key-a', AUTH_FAILURES_PER_MINUTE: '5' });
    for (let i = 0; i < 3; i++) expect((await postJson(t.app, METADATA, ok, { 'X-API-Key': `wrong-${i}` })).status).toBe(401);
    expect((await postJson(t.app, METADATA, ok)).status).toBe(401);
    // Successes do not count.
    for (let i = 0; i < 10; i++) expect((await postJson(t.app, METADATA, ok, { 'X-API-Key': 'key-a' })).status).toBe(200);
    expect((await postJson(t.app, METADATA, ok)).status).toBe(401);
    const refused = await postJson(t.app, METADATA, ok, { 'X-API-Key': 'wrong-again' });
    expect(refused.status).toBe(429);
    const err = await errorOf(refused);
    expect(err.code).toBe('rate_limited');
    expect(err.message).toMatch(/5 failed authentications per minute/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // The key is not checked for that address any more, not even the right one; health checks still answer.
    expect((await postJson(t.app, METADATA, ok, { 'X-API-Key': 'key-a' })).status).toBe(429);
    expect((await t.app.request('/healthz')).status).toBe(200);
  });
});

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

describe('demo documents', () => {
  const demoDocs = path.join(repoRoot, 'demo', 'documents');

  it('serves a demo PDF read-only, and nothing outside the folder', async () => {
    const t = await app({}, (d) => ({ ...d, demoDocumentsDir: demoDocs }));
    const name = 'PD_900001_rio_verde_agroforestry.pdf';
    const res = await t.app.request(`/demo/documents/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(readFileSync(path.join(demoDocs, name)))).toBe(true);
    for (const p of [
      '/demo/documents/..%2F..%2Fpackage.json',
      '/demo/documents/..%2f..%2fsrc%2fmain.ts',
      '/demo/documents/%2e%2e%2f%2e%2e%2fREADME.pdf',
      '/demo/documents/.hidden.pdf',
      '/demo/documents/missing.pdf',
      '/demo/documents/..',
    ]) {
      const r = await t.app.request(p);
      expect(r.status, p).toBe(404);
    }
    expect((await t.app.request(`/demo/documents/${name}`, { method: 'DELETE' })).status).toBe(405);
  });

  it('wants a key for the demo documents when API_KEYS is set (issue 16.9)', async () => {
    const t = await app({ API_KEYS: 'k' }, (d) => ({ ...d, demoDocumentsDir: demoDocs }));
    expect((await t.app.request('/demo/documents/PD_900001_rio_verde_agroforestry.pdf')).status).toBe(401);
    const keyed = await t.app.request('/demo/documents/PD_900001_rio_verde_agroforestry.pdf', { headers: { 'X-API-Key': 'k' } });
    expect(keyed.status).toBe(200);
  });

  it('404 for a name too long for the file system, naming it cut to 200 characters (issue 16.9)', async () => {
    const t = await app({}, (d) => ({ ...d, demoDocumentsDir: demoDocs }));
    const res = await t.app.request(`/demo/documents/${'a'.repeat(300)}.pdf`);
    expect(res.status).toBe(404);
    const err = await errorOf(res);
    expect(err.code).toBe('not_found');
    expect(err.message.length).toBeLessThan(300);
  });

  it('is not served when no demo folder is configured', async () => {
    const t = await app();
    expect((await t.app.request('/demo/documents/PD_900001_rio_verde_agroforestry.pdf')).status).toBe(404);
  });
});

describe('errors repeat at most 200 characters of the input (issue 16.9)', () => {
  it('cuts a 1 MiB registry, id, path or content type', async () => {
    const t = await app({ MAX_BODY_BYTES: String(4 * 1024 * 1024) });
    const huge = 'V'.repeat(1024 * 1024);
    const digits = '9'.repeat(100_000);
    const cases: Array<[string, Promise<Response>]> = [
      ['unknown registry', postJson(t.app, METADATA, { projectId: 5533, registry: huge })],
      ['unknown registry in a list', postJson(t.app, BATCH, { projectList: [{ project_id: 1, registry: huge }] })],
      ['unknown project', postJson(t.app, METADATA, { projectId: 424242, registry: `verra` })],
      ['id too large', postJson(t.app, METADATA, { projectId: digits, registry: 'Verra' })],
      ['unknown path', Promise.resolve(t.app.request(`/${'p'.repeat(100_000)}`))],
      [
        'content type',
        Promise.resolve(
          t.app.request(METADATA, { method: 'POST', headers: { 'Content-Type': `text/${'x'.repeat(100_000)}` }, body: '{}' }),
        ),
      ],
    ];
    for (const [name, pending] of cases) {
      const res = await pending;
      const text = await res.text();
      expect(res.status, name).toBeGreaterThanOrEqual(400);
      expect(text.length, `${name}: ${text.slice(0, 300)}`).toBeLessThan(1500);
    }
  });
});
