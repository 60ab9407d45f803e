import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDocumentStateStore } from '../../../src/adapters/sqlite/document-state-store.js';
import type { DocumentStateStore } from '../../../src/ports/document-state-store.js';
import type { RecordStore } from '../../../src/ports/record-store.js';
import { createDiscoveryService } from '../../../src/services/discovery.js';
import { createTestApp, errorOf, postJson, type TestApp } from '../fixture.js';

interface SearchBody {
  projects: Array<{ projectId: number; registry: string; name: string; location: string; indexedDocuments: number }>;
  nextCursor: string | null;
  total: number;
}

describe('POST /projects/search', () => {
  let t: TestApp;
  let states: DocumentStateStore;

  beforeAll(async () => {
    // The fixture builds the app before its store exists outside it: the service reaches both through these.
    let records: RecordStore | undefined;
    t = await createTestApp({}, (deps) => ({
      ...deps,
      discovery: createDiscoveryService({
        records: { searchProjects: (q) => (records as RecordStore).searchProjects(q) },
        documents: { countIndexed: (refs) => states.countIndexed(refs) },
      }),
    }));
    records = t.records;
    states = await createSqliteDocumentStateStore({ db: t.db });
    for (const [n, status] of [
      [1, 'indexed'],
      [2, 'indexed'],
      [3, 'failed'],
    ] as const) {
      await states.put({
        registry: 'CDM',
        projectId: 547,
        documentId: `d${n}`,
        uri: `https://example.org/${n}.pdf`,
        title: `${n}.pdf`,
        documentType: 'Project Design Document',
        uploadDate: null,
        status,
        reason: null,
        contentHash: null,
        pages: 1,
        chunks: 1,
        embedderId: null,
      });
    }
  });

  afterAll(async () => {
    await states.close();
    await t.close();
  });

  const search = async (body: unknown): Promise<SearchBody> => {
    const res = await postJson(t.app, '/projects/search', body);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as SearchBody;
  };

  it('finds projects by a word of their name, with the fields CONTRACT 2 lists and indexed document counts', async () => {
    const body = await search({ query: 'reforestation' });
    expect(body.projects.map((p) => `${p.registry}:${p.projectId}`)).toEqual(['CDM:547', 'Verra:5533']); // 5533: in its description only
    expect(body.total).toBe(2);
    expect(body.nextCursor).toBeNull();
    expect(Object.keys(body.projects[0] ?? {})).toEqual([
      'projectId',
      'registry',
      'name',
      'location',
      'methodology',
      'type',
      'status',
      'proponent',
      'indexedDocuments',
    ]);
    expect(body.projects[0]).toMatchObject({
      name: 'Facilitating Reforestation for Guangxi Watershed Management in Pearl River Basin',
      location: 'China',
      indexedDocuments: 2,
    });
    expect(body.projects[1]?.indexedDocuments).toBe(0);
  });

  it('takes filters as a string or a list, registries by alias, and pages with a cursor', async () => {
    expect((await search({ registry: 'unfccc' })).total).toBe(3);
    expect(
      (await search({ registry: ['cdm', 'Regen'], country: ['India', 'United Kingdom', 'Colombia'] })).projects
        .map((p) => p.projectId)
        .sort(),
    ).toEqual(expect.arrayContaining([1, 9199]));
    const first = await search({ limit: 3 });
    expect(first.total).toBe(7);
    expect(first.projects).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await search({ limit: 3, cursor: first.nextCursor });
    const third = await search({ limit: 3, cursor: second.nextCursor });
    expect(third.nextCursor).toBeNull();
    const all = await search({ limit: 200 });
    expect([...first.projects, ...second.projects, ...third.projects].map((p) => p.projectId)).toEqual(
      all.projects.map((p) => p.projectId),
    );
  });

  it('leaves hidden projects out', async () => {
    await t.records.setHidden({ registry: 'CDM', projectId: 547 }, true);
    try {
      expect((await search({ query: 'guangxi' })).total).toBe(0);
    } finally {
      await t.records.setHidden({ registry: 'CDM', projectId: 547 }, false);
    }
    expect((await search({ query: 'guangxi' })).total).toBe(1);
  });

  it('answers bad requests with the JSON error envelope, naming the field', async () => {
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ limit: 0 }, 400, 'invalid_request', /^limit: must be at least 1/],
      [{ limit: 201 }, 400, 'invalid_request', /^limit: must be at most 200/],
      [{ query: 5 }, 400, 'invalid_request', /^query: must be a string/],
      [{ country: [''] }, 400, 'invalid_request', /^country/],
      [{ status: { a: 1 } }, 400, 'invalid_request', /^status: must be a string or a list of strings/],
      [{ registry: 'Nowhere Registry' }, 400, 'unknown_registry', /registry: unknown registry "Nowhere Registry"/],
      [{ cursor: 'not-a-cursor' }, 400, 'invalid_request', /^cursor: is not a cursor/],
      [{ query: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') }, 400, 'invalid_request', /^query: at most 32 distinct words/],
      ['{"query": ', 400, 'invalid_request', /JSON/i],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await postJson(t.app, '/projects/search', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      const err = await errorOf(res);
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
    }
    const page = await search({ query: 'farm', limit: 1 });
    const other = await postJson(t.app, '/projects/search', { query: 'forest', limit: 1, cursor: page.nextCursor ?? 'x' });
    expect((await errorOf(other)).message).toMatch(/^cursor: belongs to a search with other words or filters/);
    expect((await t.app.request('/projects/search')).status).toBe(405);
  });

  it('is in the OpenAPI document, with the health and OpenAPI paths', async () => {
    const doc = (await (await t.app.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(doc.paths['/projects/search']?.post).toBeDefined();
    expect(doc.paths['/healthz']?.get).toBeDefined();
    expect(doc.paths['/readyz']?.get).toBeDefined();
    expect(doc.paths['/openapi.json']?.get).toBeDefined();
  });
});
