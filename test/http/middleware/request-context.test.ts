import { describe, expect, it } from 'vitest';
import { errorOf, postJson, testAppsClosedAfterEach } from '../fixture.js';

const METADATA = '/project-documents/metadata';
const ok = { projectId: 5533, registry: 'Verra' };

const app = testAppsClosedAfterEach();

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
