import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, postJson, topLevelKeysInOrder, type TestApp } from '../fixture.js';

const PATH = '/project-documents/batch-metadata';
const SINGLE = '/project-documents/metadata';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ MAX_BATCH_PROJECTS: '5' });
});
afterAll(async () => {
  await t.close();
});

async function batch(body: unknown): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const res = await postJson(t.app, PATH, body);
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Record<string, unknown> };
}

describe('POST /project-documents/batch-metadata: success', () => {
  it('keys records by id string in request order (not numeric order), with the sample-body names', async () => {
    const r = await batch({
      projectList: [
        { project_id: 6007, registry: 'Regen' },
        { project_id: 547, registry: 'CDM' },
        { project_id: 5533, registry: 'Verra' },
      ],
    });
    expect(r.status).toBe(200);
    expect(topLevelKeysInOrder(r.text)).toEqual(['6007', '547', '5533']);
    expect((r.json['547'] as { resourceIdentifier: number }).resourceIdentifier).toBe(547);
    expect((r.json['6007'] as { registry: string }).registry).toBe('Regen');
  });

  it('gives each entry the same record the single endpoint gives', async () => {
    const r = await batch({
      list: [
        { id: 5533, registry: 'verra' },
        { id: 1, registry: 'cdm' },
      ],
    });
    const one = await (await postJson(t.app, SINGLE, { id: 5533, registry: 'verra' })).json();
    expect(r.json['5533']).toEqual(one);
  });

  it('accepts the parameter-table names and any mix of item id names, with numeric strings', async () => {
    const sample = await batch({
      projectList: [
        { project_id: 547, registry: 'CDM' },
        { projectId: 5533, registry: 'Verra' },
        { id: '6006', registry: 'Regen' },
      ],
    });
    const table = await batch({
      list: [
        { id: '547', registry: 'CDM' },
        { project_id: '5533', registry: 'Verra' },
        { projectId: 6006, registry: 'Regen' },
      ],
    });
    expect(sample.status).toBe(200);
    expect(table.status).toBe(200);
    expect(table.json).toEqual(sample.json);
    expect(topLevelKeysInOrder(table.text)).toEqual(['547', '5533', '6006']);
  });

  it('maps a project the service does not hold to null, keeping its place', async () => {
    const r = await batch({
      projectList: [
        { project_id: 5533, registry: 'Verra' },
        { project_id: 424242, registry: 'Verra' },
        { project_id: 547, registry: 'CDM' },
      ],
    });
    expect(r.status).toBe(200);
    expect(topLevelKeysInOrder(r.text)).toEqual(['5533', '424242', '547']);
    expect(r.json['424242']).toBeNull();
    // Held id, wrong registry: the service does not hold *that* project.
    const other = await batch({ projectList: [{ project_id: 5533, registry: 'Gold Standard' }] });
    expect(other.json).toEqual({ '5533': null });
  });

  it('gives one key for an id requested twice under the same registry, echoing the first spelling', async () => {
    const r = await batch({
      projectList: [
        { project_id: 5533, registry: 'verra' },
        { project_id: 547, registry: 'CDM' },
        { projectId: '5533', registry: 'VERRA' },
      ],
    });
    expect(r.status).toBe(200);
    expect(topLevelKeysInOrder(r.text)).toEqual(['5533', '547']);
    expect((r.json['5533'] as { registry: string }).registry).toBe('verra');
  });

  it("echoes each item's registry spelling", async () => {
    const r = await batch({
      projectList: [
        { id: 5533, registry: 'vcs' },
        { id: 547, registry: 'Cdm' },
      ],
    });
    expect((r.json['5533'] as { registry: string }).registry).toBe('vcs');
    expect((r.json['547'] as { registry: string }).registry).toBe('Cdm');
  });

  it('returns raw records when raw is true, for every entry', async () => {
    const r = await batch({
      raw: true,
      projectList: [
        { id: 5533, registry: 'Verra' },
        { id: 6006, registry: 'Regen' },
        { id: 9, registry: 'Verra' },
      ],
    });
    expect(r.status).toBe(200);
    expect((r.json['5533'] as { resourceIdentifier: unknown }).resourceIdentifier).toBe('5533');
    expect(r.json['5533']).toHaveProperty('participationSummaries');
    expect(r.json['6006']).toHaveProperty('resourceName');
    expect(r.json['9']).toBeNull();
  });

  it('accepts query and gives exactly the same result with or without it', async () => {
    const projectList = [
      { project_id: 5533, registry: 'Verra' },
      { project_id: 547, registry: 'CDM' },
    ];
    const without = await batch({ projectList });
    const withQuery = await batch({ projectList, query: 'What methodology does the project use?' });
    expect(withQuery.status).toBe(200);
    expect(withQuery.text).toBe(without.text);
  });

  it('accepts the maximum number of projects', async () => {
    const list = [
      { id: 1, registry: 'CDM' },
      { id: 547, registry: 'CDM' },
      { id: 9199, registry: 'CDM' },
      { id: 5533, registry: 'Verra' },
      { id: 6006, registry: 'Regen' },
    ];
    const r = await batch({ list });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json)).toHaveLength(5);
    expect(Object.values(r.json).every((v) => v !== null)).toBe(true);
  });
});

describe('POST /project-documents/batch-metadata: errors', () => {
  it('400 ambiguous_project_id for one id under two registries, naming both', async () => {
    const res = await postJson(t.app, PATH, {
      projectList: [
        { project_id: 547, registry: 'CDM' },
        { project_id: 5533, registry: 'Verra' },
        { project_id: '547', registry: 'Gold Standard' },
      ],
    });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('ambiguous_project_id');
    expect(err.message).toContain('547');
    expect(err.message).toContain('CDM');
    expect(err.message).toContain('Gold Standard');
    expect(err.details[0]).toMatchObject({ path: 'projectList.2', projectId: 547, registries: ['CDM', 'Gold Standard'] });
  });

  it('400 unknown_registry naming the item and the registry', async () => {
    const res = await postJson(t.app, PATH, {
      list: [
        { id: 5533, registry: 'Verra' },
        { id: 2, registry: 'Nowhere Registry' },
      ],
    });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('unknown_registry');
    expect(err.message).toContain('Nowhere Registry');
    expect(err.message).toContain('list.1.registry');
  });

  const invalid: Array<[string, unknown, string]> = [
    ['an empty list', { projectList: [] }, 'projectList'],
    ['no list at all', { query: 'x' }, 'projectList or list'],
    ['both list names', { projectList: [{ id: 1, registry: 'CDM' }], list: [{ id: 1, registry: 'CDM' }] }, 'not both'],
    ['a list that is an object', { projectList: { id: 1, registry: 'CDM' } }, 'projectList'],
    ['an item without an id', { projectList: [{ id: 1, registry: 'CDM' }, { registry: 'CDM' }] }, 'projectList.1'],
    ['an item with a bad id', { list: [{ project_id: 'abc', registry: 'CDM' }] }, 'list.0.project_id'],
    ['an item with id 0', { list: [{ projectId: 0, registry: 'CDM' }] }, 'list.0.projectId'],
    ['an item without a registry', { list: [{ id: 1 }] }, 'list.0.registry'],
    ['an item that is not an object', { list: [547] }, 'list.0'],
    ['a query that is not a string', { list: [{ id: 1, registry: 'CDM' }], query: 42 }, 'query'],
    ['a query over 2000 characters', { list: [{ id: 1, registry: 'CDM' }], query: 'q'.repeat(2001) }, 'query'],
    ['raw that is not a boolean', { list: [{ id: 1, registry: 'CDM' }], raw: 1 }, 'raw'],
  ];
  for (const [what, body, named] of invalid) {
    it(`400 invalid_request for ${what}, naming ${named}`, async () => {
      const res = await postJson(t.app, PATH, body);
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_request');
      expect(err.message).toContain(named);
      expect(err.details.length).toBeGreaterThan(0);
    });
  }

  it('reports every invalid item in details, with its path', async () => {
    const res = await postJson(t.app, PATH, { list: [{ id: 'x', registry: 'CDM' }, { id: 1, registry: 'CDM' }, { id: -1 }] });
    const err = await errorOf(res);
    const paths = err.details.map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['list.0.id', 'list.2.id', 'list.2.registry']));
  });

  it('413 payload_too_large for more projects than MAX_BATCH_PROJECTS (5 here), under either list name', async () => {
    const six = [1, 2, 3, 4, 5, 6].map((id) => ({ id, registry: 'CDM' }));
    for (const body of [{ projectList: six }, { list: six }]) {
      const res = await postJson(t.app, PATH, body);
      expect(res.status).toBe(413);
      const err = await errorOf(res);
      expect(err.code).toBe('payload_too_large');
      expect(err.message).toContain('5');
    }
  });

  it('413 payload_too_large for a body over MAX_BODY_BYTES', async () => {
    const res = await postJson(t.app, PATH, { list: [{ id: 1, registry: 'CDM' }], query: 'q'.repeat(1999), pad: 'p'.repeat(4000) });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe('payload_too_large');
  });

  it('400 for a body that is not JSON; 415 for one not sent as JSON', async () => {
    const bad = await postJson(t.app, PATH, '{"list": [');
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).code).toBe('invalid_request');
    const form = await t.app.request(PATH, {
      method: 'POST',
      body: 'list=1',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect((await errorOf(form)).code).toBe('unsupported_media_type');
  });

  it('405 with Allow: POST for other methods', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await t.app.request(PATH, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await errorOf(res)).code).toBe('method_not_allowed');
    }
  });
});
