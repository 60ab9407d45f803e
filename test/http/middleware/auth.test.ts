import { describe, expect, it } from 'vitest';
import { errorOf, postJson, testAppsClosedAfterEach } from '../fixture.js';

const METADATA = '/project-documents/metadata';
const BATCH = '/project-documents/batch-metadata';
const ok = { projectId: 5533, registry: 'Verra' };

const app = testAppsClosedAfterEach();

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
