import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createPgPool, type PgPool } from '../../src/adapters/postgres/database.js';
import { createPgRecordStore } from '../../src/adapters/postgres/record-store.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import type { MetadataService } from '../../src/services/metadata.js';
import { createMetadataService } from '../../src/services/metadata.js';
import { describeWithService, postgresUrl } from '../support/services.js';
import { errorOf, EVAL_RECORDS, postJson, testAppsClosedAfterEach } from './fixture.js';

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

const app = testAppsClosedAfterEach();

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
