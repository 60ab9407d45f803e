import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, EVAL_RECORDS, postJson, type TestApp } from '../fixture.js';

const PATH = '/project-documents/metadata';
const rawById = new Map<string, Record<string, unknown>>(
  readFileSync(EVAL_RECORDS, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map((r) => [String(r.resourceIdentifier), r]),
);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('POST /project-documents/metadata: success', () => {
  it('returns the cleaned record for the sample-body name projectId', async () => {
    const res = await postJson(t.app, PATH, { projectId: 5533, registry: 'Verra' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.resourceIdentifier).toBe(5533);
    expect(body.name).toBe(rawById.get('5533')?.resourceName);
    expect(body.registry).toBe('Verra');
    expect(body.location).toBe('India');
    expect(body.proponent).toBe('Multiple Proponents');
    expect(body).toHaveProperty('Reported Period');
    expect(body).toHaveProperty('Size (Hectares)');
    expect(body).toHaveProperty('Total Reported Sequestration');
    expect(Array.isArray(body.documentGroups)).toBe(true);
    expect((body.documentGroups as unknown[]).length).toBe(4);
    // The raw shape must not leak into the cleaned record.
    expect(body).not.toHaveProperty('participationSummaries');
  });

  it('accepts the parameter-table name id and gives the same record', async () => {
    const a = await (await postJson(t.app, PATH, { projectId: 547, registry: 'CDM' })).json();
    const res = await postJson(t.app, PATH, { id: 547, registry: 'CDM' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(a);
  });

  it('accepts project_id too, and several id fields when they agree', async () => {
    expect((await postJson(t.app, PATH, { project_id: 547, registry: 'CDM' })).status).toBe(200);
    expect((await postJson(t.app, PATH, { projectId: 547, id: '547', registry: 'CDM' })).status).toBe(200);
  });

  it('accepts a numeric-string id and returns the integer', async () => {
    const res = await postJson(t.app, PATH, { projectId: '5533', registry: 'Verra' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { resourceIdentifier: unknown }).resourceIdentifier).toBe(5533);
  });

  it('matches the registry case-insensitively and by alias, and echoes it as spelled', async () => {
    for (const spelled of ['verra', 'VERRA', 'vErRa', 'VCS']) {
      const res = await postJson(t.app, PATH, { projectId: 5533, registry: spelled });
      expect(res.status, spelled).toBe(200);
      expect(((await res.json()) as { registry: string }).registry).toBe(spelled);
    }
  });

  it('returns the raw record, as imported, when raw is true', async () => {
    const res = await postJson(t.app, PATH, { projectId: 5533, registry: 'verra', raw: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(rawById.get('5533'));
  });

  it('returns the cleaned record when raw is false or absent', async () => {
    const explicit = await (await postJson(t.app, PATH, { projectId: 6006, registry: 'Regen', raw: false })).json();
    const absent = await (await postJson(t.app, PATH, { projectId: 6006, registry: 'Regen' })).json();
    expect(explicit).toEqual(absent);
    expect(explicit).toHaveProperty('resourceIdentifier', 6006);
  });

  it('ignores unknown fields and accepts a charset parameter on the content type', async () => {
    const res = await postJson(
      t.app,
      PATH,
      { projectId: 5533, registry: 'Verra', somethingElse: { deep: [1, 2] } },
      { 'Content-Type': 'application/json; charset=utf-8' },
    );
    expect(res.status).toBe(200);
  });
});

describe('POST /project-documents/metadata: errors', () => {
  it('404 not_found for a project the service does not hold, and for a held id under another registry', async () => {
    for (const body of [
      { projectId: 999999, registry: 'Verra' },
      { projectId: 5533, registry: 'Gold Standard' },
    ]) {
      const res = await postJson(t.app, PATH, body);
      expect(res.status).toBe(404);
      const err = await errorOf(res);
      expect(err.code).toBe('not_found');
      expect(err.message).toContain(String(body.projectId));
    }
  });

  it('400 unknown_registry naming the registry', async () => {
    const res = await postJson(t.app, PATH, { projectId: 5533, registry: 'Acme Carbon' });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('unknown_registry');
    expect(err.message).toContain('Acme Carbon');
    expect(err.details[0]?.path).toBe('registry');
  });

  const invalid: Array<[string, unknown, string]> = [
    ['an id of 0', { projectId: 0, registry: 'Verra' }, 'projectId'],
    ['a negative id', { projectId: -3, registry: 'Verra' }, 'projectId'],
    ['a fractional id', { projectId: 4086.5, registry: 'Verra' }, 'projectId'],
    ['a non-numeric string id', { projectId: '4086abc', registry: 'Verra' }, 'projectId'],
    ['a decimal string id', { id: '4086.0', registry: 'Verra' }, 'id'],
    ['a string id of zeros', { id: '000', registry: 'Verra' }, 'id'],
    ['a boolean id', { projectId: true, registry: 'Verra' }, 'projectId'],
    ['an unsafe integer', { projectId: 2 ** 60, registry: 'Verra' }, 'projectId'],
    ['a missing id', { registry: 'Verra' }, 'project id is required'],
    ['ids that disagree', { projectId: 1, id: 2, registry: 'Verra' }, 'disagree'],
    ['a missing registry', { projectId: 5533 }, 'registry'],
    ['a numeric registry', { projectId: 5533, registry: 7 }, 'registry'],
    ['an empty registry', { projectId: 5533, registry: '  ' }, 'registry'],
    ['raw as a string', { projectId: 5533, registry: 'Verra', raw: 'true' }, 'raw'],
    ['a JSON array body', [{ projectId: 5533, registry: 'Verra' }], 'body'],
    ['a JSON string body', '"hello"', 'body'],
  ];
  for (const [what, body, named] of invalid) {
    it(`400 invalid_request for ${what}, naming ${named}`, async () => {
      const res = await postJson(t.app, PATH, body);
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_request');
      expect(err.message).toContain(named);
    });
  }

  it('accepts the JSON content type with parameters, in any case', async () => {
    for (const type of ['application/json;charset=UTF-8', 'Application/JSON', 'application/vnd.api+json']) {
      const res = await postJson(t.app, PATH, { projectId: 5533, registry: 'Verra' }, { 'Content-Type': type });
      expect(res.status, type).toBe(200);
    }
  });

  it('400 invalid_request for a body that is not JSON, and for an empty body', async () => {
    for (const text of ['{"projectId": 5533,', '']) {
      const res = await postJson(t.app, PATH, text);
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_request');
      expect(err.message).toMatch(/not valid JSON/);
    }
  });

  it('415 unsupported_media_type for a form body, text/plain, and no content type', async () => {
    const body = JSON.stringify({ projectId: 5533, registry: 'Verra' });
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/jsonx', 'text/json', undefined]) {
      const res = await t.app.request(PATH, {
        method: 'POST',
        body,
        headers: type === undefined ? {} : { 'Content-Type': type },
      });
      expect(res.status, String(type)).toBe(415);
      const err = await errorOf(res);
      expect(err.code).toBe('unsupported_media_type');
      expect(err.message).toContain('application/json');
    }
  });

  it('413 payload_too_large for a body over MAX_BODY_BYTES, declared or streamed', async () => {
    // The fixture sets MAX_BODY_BYTES=4096.
    const big = JSON.stringify({ projectId: 5533, registry: 'Verra', pad: 'x'.repeat(5000) });
    const declared = await postJson(t.app, PATH, big);
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).code).toBe('payload_too_large');

    const bytes = new TextEncoder().encode(big);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000));
        controller.close();
      },
    });
    const streamed = await t.app.request(PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await errorOf(streamed)).code).toBe('payload_too_large');
  });

  it('accepts a body just under the limit', async () => {
    const body = { projectId: 5533, registry: 'Verra', pad: '' };
    body.pad = 'x'.repeat(4096 - JSON.stringify(body).length);
    expect(JSON.stringify(body).length).toBe(4096);
    expect((await postJson(t.app, PATH, body)).status).toBe(200);
  });

  it('405 method_not_allowed with Allow: POST for other methods', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const res = await t.app.request(PATH, { method });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await errorOf(res)).code).toBe('method_not_allowed');
    }
  });
});
