import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPassThroughReranker } from '../../../src/adapters/rerankers/none.js';
import { createExtractiveSummarizer } from '../../../src/adapters/summarizers/extractive.js';
import { createExtractiveReader } from '../../../src/adapters/readers/extractive.js';
import { createLogger } from '../../../src/logger.js';
import { createSearchService } from '../../../src/services/search.js';
import type { Embedder } from '../../../src/ports/embedder.js';
import type { Summarizer } from '../../../src/ports/summarizer.js';
import { BATCH_SEARCH_ALIAS_PATH, BATCH_SEARCH_PATH } from '../../../src/http/routes/batch-search.js';
import { createSearchFixture, searchOptions, type SearchFixture } from '../../services/support/fixtures.js';
import { createTestApp, errorOf, postJson, type TestApp } from '../fixture.js';

const logger = createLogger({ level: 'silent', name: 'test' });

let fx: SearchFixture;
let t: TestApp;
let broken: SearchFixture;
let tBroken: TestApp;
let tNoSearch: TestApp;

function searchOver(f: SearchFixture) {
  return createSearchService(searchOptions(f));
}

beforeAll(async () => {
  fx = await createSearchFixture();
  await fx.addDocument({ registry: 'Verra', projectId: 5533 }, 'pd', [
    'Project to afforest degraded lands in West Bengal under VM0047.',
    'The crediting period is 20 years, from 15/07/2022 to 14/07/2042.',
  ]);
  await fx.addDocument({ registry: 'CDM', projectId: 9199 }, 'mr', ['The second monitoring period covers 17/02/2016 to 01/10/2020.']);
  await fx.addDocument({ registry: 'CDM', projectId: 547 }, 'pdd', ['The crediting period of the Guangxi project is 30 years.']);
  // The records of the test app hold Verra 5533, CDM 1, 547, 9199, Regen 6006, 6007 and Verra 1000000.
  t = await createTestApp({ MAX_BATCH_PROJECTS: '3', SEARCH_MAX_TOP_K: '20', SEARCH_DEFAULT_TOP_K: '2' }, (d) => ({
    ...d,
    search: createSearchService(searchOptions(fx, { defaultTopK: d.config.SEARCH_DEFAULT_TOP_K, maxTopK: d.config.SEARCH_MAX_TOP_K })),
  }));
  broken = await createSearchFixture();
  tBroken = await createTestApp({}, (d) => ({ ...d, search: searchOver(broken) }));
  broken.db.close();
  tNoSearch = await createTestApp();
});
afterAll(async () => {
  await t.close();
  await tBroken.close();
  await tNoSearch.close();
  await fx.close();
});

const search = (body: unknown, path = BATCH_SEARCH_PATH) => postJson(t.app, path, body);

describe('POST /projects-documents/batch-search', () => {
  it('starts embedding the question before validation, and the search uses that embedding', async () => {
    const embedded: string[] = [];
    const counting: Embedder = { ...fx.embedder, embed: (texts, kind) => (embedded.push(...texts), fx.embedder.embed(texts, kind)) };
    const app = await createTestApp({}, (d) => ({ ...d, search: createSearchService({ ...searchOptions(fx), embedder: counting }) }));
    try {
      const ok = await postJson(app.app, BATCH_SEARCH_PATH, {
        projectList: [{ project_id: 5533, registry: 'Verra' }],
        query: 'crediting period?',
      });
      expect(ok.status).toBe(200);
      expect(embedded).toEqual(['crediting period?']);
      // Started before validation: a request refused for another field has had its question embedded already.
      const refused = await postJson(app.app, BATCH_SEARCH_PATH, {
        projectList: [{ project_id: 5533, registry: 'Verra' }],
        query: 'where?',
        topK: 0,
      });
      expect(refused.status).toBe(400);
      expect(embedded).toEqual(['crediting period?', 'where?']);
      // Text-only searches embed nothing; an unparseable body never reaches the embedder.
      await postJson(app.app, BATCH_SEARCH_PATH, {
        projectList: [{ project_id: 5533, registry: 'Verra' }],
        query: 'crediting period?',
        mode: 'text',
      });
      await postJson(app.app, BATCH_SEARCH_PATH, '{"query": "crediting period?", ');
      expect(embedded).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  it('answers with the CONTRACT shape: answer, citations, answerModel, projects', async () => {
    const res = await search({
      projectList: [
        { project_id: 5533, registry: 'verra' },
        { project_id: 9199, registry: 'CDM' },
      ],
      query: 'What is the crediting period?',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['answer', 'answered', 'citations', 'answerModel', 'projects']);
    expect(body.answerModel).toBe('extractive');
    expect(body.projects).toEqual([
      { projectId: 5533, registry: 'verra', indexedDocuments: 1 },
      { projectId: 9199, registry: 'CDM', indexedDocuments: 1 },
    ]);
    const citations = body.citations as Record<string, unknown>[];
    expect(citations).toHaveLength(2); // SEARCH_DEFAULT_TOP_K
    expect(Object.keys(citations[0] ?? {})).toEqual([
      'id',
      'projectId',
      'registry',
      'documentTitle',
      'documentType',
      'uri',
      'page',
      'text',
      'quote',
      'score',
    ]);
    expect(citations[0]).toMatchObject({ id: 1, projectId: 5533, registry: 'verra', page: 2 });
    expect(String(body.answer)).toMatch(/15\/07\/2022.*\[1\]/);
  });

  it('serves the alias path and accepts the table names, mixed id names and numeric strings', async () => {
    const a = await (
      await search({
        projectList: [
          { project_id: 5533, registry: 'Verra' },
          { projectId: '547', registry: 'cdm' },
        ],
        query: 'crediting period',
        topK: 5,
      })
    ).json();
    const b = await (
      await search(
        {
          list: [
            { id: '5533', registry: 'Verra' },
            { id: 547, registry: 'cdm' },
          ],
          query: 'crediting period',
          topK: 5,
        },
        BATCH_SEARCH_ALIAS_PATH,
      )
    ).json();
    expect(b).toEqual(a);
    // Every chunk of the two projects: 5533 has two pages, 547 one.
    expect((a as { citations: unknown[] }).citations.length).toBe(3);
  });

  it('reports an unknown or unindexed project with 0 instead of a 404, and says so in the answer', async () => {
    const res = await search({
      projectList: [
        { project_id: 5533, registry: 'Verra' },
        { project_id: 424242, registry: 'VCS' },
      ],
      query: 'crediting period',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { answer: string; projects: unknown[] };
    expect(body.projects).toEqual([
      { projectId: 5533, registry: 'Verra', indexedDocuments: 1 },
      { projectId: 424242, registry: 'VCS', indexedDocuments: 0 },
    ]);
    expect(body.answer).toMatch(/No documents are indexed for VCS 424242\./);
    const none = (await (await search({ projectList: [{ project_id: 6006, registry: 'Regen' }], query: 'soil carbon' })).json()) as {
      citations: unknown[];
      answer: string;
    };
    expect(none.citations).toEqual([]);
    expect(none.answer).toMatch(/No documents are indexed for Regen 6006/);
  });

  it('passes mode through: text mode matches a date exactly', async () => {
    const res = await search({
      projectList: [
        { project_id: 5533, registry: 'Verra' },
        { project_id: 9199, registry: 'CDM' },
      ],
      query: '17/02/2016',
      mode: 'text',
    });
    const body = (await res.json()) as { citations: { projectId: number }[] };
    expect(body.citations[0]?.projectId).toBe(9199);
  });
});

describe('POST /projects-documents/batch-search: errors (CONTRACT 3)', () => {
  const list = [{ project_id: 5533, registry: 'Verra' }];
  const invalid: [string, unknown, RegExp][] = [
    ['missing query', { projectList: list }, /^query: /],
    ['empty query', { projectList: list, query: '  ' }, /^query: must not be empty/],
    ['query of punctuation only', { projectList: list, query: '!!! ??? ...' }, /^query: must contain a word/],
    ['query not a string', { projectList: list, query: 42 }, /^query: must be a string/],
    ['query too long', { projectList: list, query: 'x'.repeat(2001) }, /^query: must be at most 2000 characters/],
    ['topK 0', { projectList: list, query: 'q', topK: 0 }, /^topK: must be at least 1/],
    ['topK over the maximum', { projectList: list, query: 'q', topK: 21 }, /^topK: must be at most 20/],
    ['topK fractional', { projectList: list, query: 'q', topK: 2.5 }, /^topK: must be a whole number/],
    ['topK a string', { projectList: list, query: 'q', topK: '5' }, /^topK: must be a number/],
    ['unknown mode', { projectList: list, query: 'q', mode: 'bm25' }, /^mode: must be one of hybrid, text, vector/],
    ['no project list', { query: 'q' }, /^projectList: a project list is required/],
    ['empty list', { projectList: [], query: 'q' }, /^projectList: must list at least one project/],
    ['both list names', { projectList: list, list, query: 'q' }, /^list: give the project list once/],
    ['negative id', { projectList: [{ project_id: -1, registry: 'Verra' }], query: 'q' }, /^projectList\.0\.project_id: /],
    ['id not numeric', { projectList: [{ id: 'abc', registry: 'Verra' }], query: 'q' }, /^projectList\.0\.id: /],
    ['missing registry', { projectList: [{ id: 5533 }], query: 'q' }, /^projectList\.0\.registry: /],
    ['body an array', [1, 2], /.+/],
  ];
  for (const [name, body, message] of invalid) {
    it(`400 invalid_request: ${name}`, async () => {
      const res = await search(body);
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('invalid_request');
      expect(err.message).toMatch(message);
      expect(err.details.length).toBeGreaterThan(0);
    });
  }

  it('400 invalid_request for a body that is not JSON', async () => {
    const res = await search('{"query": ');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('invalid_request');
  });

  it('400 unknown_registry naming it, and 400 ambiguous_project_id naming both registries', async () => {
    const u = await search({ projectList: [{ id: 5533, registry: 'Nowhere' }], query: 'q' });
    expect(u.status).toBe(400);
    const ue = await errorOf(u);
    expect(ue.code).toBe('unknown_registry');
    expect(ue.message).toContain('"Nowhere"');
    const a = await search({
      projectList: [
        { id: 1, registry: 'CDM' },
        { id: 1, registry: 'Verra' },
      ],
      query: 'q',
    });
    expect(a.status).toBe(400);
    const ae = await errorOf(a);
    expect(ae.code).toBe('ambiguous_project_id');
    expect(ae.details[0]?.registries).toEqual(['CDM', 'Verra']);
  });

  it('413 for more projects than MAX_BATCH_PROJECTS and for a body over MAX_BODY_BYTES', async () => {
    const many = [1, 547, 9199, 5533].map((id) => ({ id, registry: 'CDM' }));
    const r = await search({ projectList: many, query: 'q' });
    expect(r.status).toBe(413);
    expect((await errorOf(r)).code).toBe('payload_too_large');
    const big = await search({ projectList: list, query: 'q', padding: 'x'.repeat(5000) });
    expect(big.status).toBe(413);
  });

  it('415 for a body that is not application/json', async () => {
    const res = await t.app.request(BATCH_SEARCH_PATH, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('unsupported_media_type');
  });

  it('405 with Allow: POST for other methods on both paths', async () => {
    for (const p of [BATCH_SEARCH_PATH, BATCH_SEARCH_ALIAS_PATH]) {
      const res = await t.app.request(p, { method: 'GET' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await errorOf(res)).code).toBe('method_not_allowed');
    }
  });

  it('503 unavailable naming the store when a backing store is down', async () => {
    const res = await postJson(tBroken.app, BATCH_SEARCH_PATH, { projectList: list, query: 'crediting period' });
    expect(res.status).toBe(503);
    const err = await errorOf(res);
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/unavailable/);
  });

  it('503 unavailable when the server has no search service', async () => {
    const res = await postJson(tNoSearch.app, BATCH_SEARCH_PATH, { projectList: list, query: 'q' });
    expect(res.status).toBe(503);
    expect((await errorOf(res)).message).toMatch(/document search is not configured/);
  });

  it('documents both paths in /openapi.json, with the unknown-project rule and the limits', async () => {
    const doc = (await (await t.app.request('/openapi.json')).json()) as {
      paths: Record<string, { post?: { description?: string; requestBody?: unknown } }>;
      components: { schemas: Record<string, unknown> };
    };
    for (const p of [BATCH_SEARCH_PATH, BATCH_SEARCH_ALIAS_PATH]) expect(doc.paths[p]?.post).toBeDefined();
    const d = doc.paths[BATCH_SEARCH_PATH]?.post?.description ?? '';
    expect(d).toMatch(/not a 404/);
    expect(d).toMatch(/topK default 2, at most 20/);
    expect(d).toMatch(/At most 3 projects/);
    expect(doc.components.schemas.BatchSearchRequest).toBeDefined();
    expect(doc.components.schemas.BatchSearchResponse).toBeDefined();
    expect(doc.components.schemas.Citation).toBeDefined();
  });
});

describe('batch search over a real HTTP connection: the answer stops when the client goes away', () => {
  /** A summariser that answers only when released, and records what happened to its abort signal. */
  function waitingSummarizer() {
    let release: (text: string) => void = () => undefined;
    let abortedResolve: () => void = () => undefined;
    const seen: { signal?: AbortSignal; aborted: Promise<void> } = {
      aborted: new Promise((resolve) => (abortedResolve = resolve)),
    };
    const summarizer: Summarizer = {
      model: 'waiting-llm',
      summarize: (_input, signal) =>
        new Promise<string>((resolve, reject) => {
          seen.signal = signal;
          release = resolve;
          signal?.addEventListener('abort', () => {
            abortedResolve();
            reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          });
        }),
      close: async () => undefined,
    };
    return { summarizer, seen, release: (text: string) => release(text) };
  }

  async function serveWith(summarizer: Summarizer): Promise<{ port: number; app: TestApp; close(): Promise<void> }> {
    const app = await createTestApp({}, (d) => ({
      ...d,
      search: createSearchService({
        index: fx.index,
        embedder: fx.embedder,
        documents: fx.states,
        summarizer,
        fallbackSummarizer: createExtractiveSummarizer(),
        reader: createExtractiveReader(),
        reranker: createPassThroughReranker(),
        logger,
      }),
    }));
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    return {
      port: (server.address() as AddressInfo).port,
      app,
      close: async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await app.close();
      },
    };
  }

  const body = JSON.stringify({ projectList: [{ project_id: 5533, registry: 'Verra' }], query: 'What is the crediting period?' });

  it('aborts the summariser when the client disconnects before the answer', async () => {
    const { summarizer, seen } = waitingSummarizer();
    const s = await serveWith(summarizer);
    try {
      const req = request({
        host: '127.0.0.1',
        port: s.port,
        method: 'POST',
        path: BATCH_SEARCH_PATH,
        headers: { 'content-type': 'application/json' },
      });
      req.on('error', () => undefined);
      req.end(body);
      await vi.waitFor(() => expect(seen.signal).toBeDefined());
      expect(seen.signal?.aborted).toBe(false);
      req.destroy();
      await seen.aborted;
      expect(seen.signal?.aborted).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('leaves the signal alone when the answer is delivered', async () => {
    const { summarizer, seen, release } = waitingSummarizer();
    const s = await serveWith(summarizer);
    try {
      const pending = fetch(`http://127.0.0.1:${s.port}${BATCH_SEARCH_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await vi.waitFor(() => expect(seen.signal).toBeDefined());
      release('The crediting period is 20 years [1].');
      const res = await pending;
      expect(res.status).toBe(200);
      expect(((await res.json()) as { answerModel: string }).answerModel).toBe('waiting-llm');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(seen.signal?.aborted).toBe(false);
    } finally {
      await s.close();
    }
  });
});
