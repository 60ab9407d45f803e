import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { createDiscoveryService, type DiscoveryService } from '../../src/services/discovery.js';
import { createSearchFixture, type SearchFixture } from './support/fixtures.js';

/** The service over a real SQLite record and document-state store: five Verra projects, two documents of one indexed. */
let f: SearchFixture;
let discovery: DiscoveryService;

beforeAll(async () => {
  f = await createSearchFixture();
  for (const projectId of [11, 12, 13, 14, 15]) await f.addRecord({ registry: 'Verra', projectId });
  await f.addDocument({ registry: 'Verra', projectId: 12 }, 'a', ['Page one.']);
  await f.addDocument({ registry: 'Verra', projectId: 12 }, 'b', ['Page one.']);
  discovery = createDiscoveryService({ records: f.records, documents: f.states });
});
afterAll(async () => {
  await f.close();
});

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe('the discovery service', () => {
  it('lists projects with their count of indexed documents', async () => {
    const r = await discovery.search({ query: 'Project 12' });
    const hit = r.projects.find((p) => p.projectId === 12);
    expect(hit).toMatchObject({ registry: 'Verra', name: 'Project 12', indexedDocuments: 2 });
    expect(r.projects.filter((p) => p.projectId !== 12).every((p) => p.indexedDocuments === 0)).toBe(true);
  });

  it('pages with a cursor until every project was shown once', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await discovery.search({ registry: ['verra'], limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.total).toBe(5);
      seen.push(...page.projects.map((p) => p.projectId));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(seen.sort()).toEqual([11, 12, 13, 14, 15]);
  });

  it('refuses a cursor of another search, a forged one, and one that is not base64url, as 400s on cursor', async () => {
    const first = await discovery.search({ registry: ['Verra'], limit: 1 });
    const other = await refusal(discovery.search({ query: 'Project', limit: 1, cursor: first.nextCursor ?? '' }));
    expect(other.message).toMatch(/belongs to a search with other words or filters/);
    const forged = Buffer.from(JSON.stringify([1, 'x', 0, 'a', 'Verra', 1]), 'utf8').toString('base64url');
    for (const cursor of [forged, 'not a cursor!', Buffer.from('[2]').toString('base64url')]) {
      const e = await refusal(discovery.search({ cursor }));
      expect(e.status).toBe(400);
      expect(e.details[0]?.path).toBe('cursor');
    }
  });

  it('refuses a limit out of range, an unknown registry and too many words, naming the field', async () => {
    expect((await refusal(discovery.search({ limit: 0 }))).details[0]?.path).toBe('limit');
    expect((await refusal(discovery.search({ limit: 1.5 }))).message).toMatch(/got 1\.5/);
    const registry = await refusal(discovery.search({ registry: ['Verr'] }));
    expect(registry.code).toBe('unknown_registry');
    expect(registry.message).toMatch(/unknown registry "Verr"; known: .*Verra/);
    const words = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    expect((await refusal(discovery.search({ query: words }))).details[0]?.path).toBe('query');
  });
});
