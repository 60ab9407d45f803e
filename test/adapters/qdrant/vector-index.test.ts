import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createQdrantVectorIndex, pointId, projectsFilter } from '../../../src/adapters/qdrant/vector-index.js';
import { documentSparseVector, querySparseVector, termId } from '../../../src/adapters/qdrant/sparse-vector.js';
import { DependencyError } from '../../../src/errors.js';
import type { VectorIndex } from '../../../src/ports/vector-index.js';
import { EMBEDDER, axis, chunk, vectorIndexContract, type VectorIndexStore } from '../../contract/vector-index.contract.js';
import { startFakeQdrant, type FakeQdrant } from '../../support/fake-qdrant.js';
import { describeWithService } from '../../support/services.js';

/** A store is a fresh collection on the server; dropping it is the dispose. */
function collectionStore(url: string, apiKey?: string): () => Promise<VectorIndexStore> {
  return async () => {
    const collection = `contract_${randomUUID().replaceAll('-', '')}`;
    return {
      connect: (opts) => createQdrantVectorIndex({ url, collection, ...(apiKey ? { apiKey } : {}), ...opts }),
      async dispose() {
        await fetch(`${url}/collections/${collection}`, {
          method: 'DELETE',
          ...(apiKey ? { headers: { 'api-key': apiKey } } : {}),
        });
      },
    };
  };
}

// The same contract through the real client against a loopback server speaking Qdrant's REST API.
describe('Qdrant adapter against the loopback Qdrant API', () => {
  let fake: FakeQdrant;
  beforeAll(async () => {
    fake = await startFakeQdrant();
  });
  afterAll(async () => {
    await fake.close();
  });

  vectorIndexContract('Qdrant (loopback REST API)', async () => collectionStore(fake.url)());

  describe('wire format', () => {
    let index: VectorIndex;
    let collection: string;
    beforeEach(async () => {
      collection = `wire_${randomUUID().replaceAll('-', '')}`;
      fake.requests.length = 0;
      index = await createQdrantVectorIndex({ url: fake.url, collection });
      await index.open(EMBEDDER);
    });
    afterEach(async () => {
      await index.close();
    });

    const bodiesOf = (method: string, suffix: string) =>
      fake.requests.filter((r) => r.method === method && r.path === `/collections/${collection}${suffix}`).map((r) => r.body);

    it('creates the collection once with a max_sim dense multivector, an IDF sparse vector, metadata and payload indexes', async () => {
      expect(bodiesOf('PUT', '')).toEqual([
        {
          vectors: { dense: { size: EMBEDDER.dimensions, distance: 'Dot', multivector_config: { comparator: 'max_sim' } } },
          sparse_vectors: { text: { modifier: 'idf' } },
          metadata: { embedderId: EMBEDDER.embedderId, dimensions: EMBEDDER.dimensions, layout: 2 },
        },
      ]);
      expect(bodiesOf('PUT', '/index')).toEqual([
        { field_name: 'registry', field_schema: 'keyword' },
        { field_name: 'projectId', field_schema: 'integer' },
        { field_name: 'documentId', field_schema: 'keyword' },
        { field_name: 'documentType', field_schema: 'keyword' },
        { field_name: 'generation', field_schema: 'keyword' },
        { field_name: 'pending', field_schema: 'bool' },
      ]);
      const again = await createQdrantVectorIndex({ url: fake.url, collection });
      await again.open(EMBEDDER);
      expect(bodiesOf('PUT', '')).toHaveLength(1);
    });

    it('searches with a `should` of per-project `must` pairs, exact, and only the requested projects', async () => {
      await index.upsert([chunk({ id: 'a', projectId: 4074, text: 'VM0007 baseline' })]);
      fake.requests.length = 0;
      const projects = [
        { registry: 'Verra', projectId: 4074 },
        { registry: 'Gold Standard', projectId: 4074 },
        { registry: 'Verra', projectId: 4074 },
      ];
      await index.searchVector(
        axis(0).map((x) => x * 3),
        projects,
        5,
      );
      await index.searchText('VM0007', projects, 5);
      const [vectorBody, textBody] = bodiesOf('POST', '/points/query') as Record<string, unknown>[];
      const filter = {
        should: [
          {
            must: [
              { key: 'registry', match: { value: 'Verra' } },
              { key: 'projectId', match: { value: 4074 } },
            ],
          },
          {
            must: [
              { key: 'registry', match: { value: 'Gold Standard' } },
              { key: 'projectId', match: { value: 4074 } },
            ],
          },
        ],
        // Never a point of a document generation not yet switched live (replaceDocument).
        must_not: [{ key: 'pending', match: { value: true } }],
      };
      expect(vectorBody).toMatchObject({ using: 'dense', filter, limit: 5, with_payload: true, params: { exact: true } });
      // One unit query vector, as a multivector of one.
      expect(vectorBody?.query).toEqual([Array.from(axis(0))]);
      expect(textBody).toMatchObject({ using: 'text', filter, limit: 5, with_payload: true });
      expect(textBody?.query).toEqual({ indices: [termId('vm0007')], values: [1] });
      expect(projectsFilter([])).toEqual({ should: [], must_not: [{ key: 'pending', match: { value: true } }] });
    });

    it('writes points with UUIDs derived from chunk ids and a BM25 sparse vector', async () => {
      await index.upsert([chunk({ id: 'Verra:4074:doc:1:0', projectId: 4074, text: 'Methodology AMS-III.AU' })]);
      const [body] = bodiesOf('PUT', '/points') as {
        points: { id: string; vector: Record<string, unknown>; payload: Record<string, unknown> }[];
      }[];
      const point = body?.points[0];
      expect(point?.id).toBe(pointId('Verra:4074:doc:1:0'));
      expect(point?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(pointId('Verra:4074:doc:1:0')).toBe(point?.id);
      expect(pointId('Verra:4074:doc:1:1')).not.toBe(point?.id);
      // The chunk's text plus its context (the default document title PD_1.pdf and type Project Description).
      expect(point?.vector.text).toEqual(documentSparseVector('Methodology AMS-III.AU\nPD 1\nProject Description'));
      expect(point?.payload).toMatchObject({ chunkId: 'Verra:4074:doc:1:0', registry: 'Verra', projectId: 4074 });
      // Without sentences, the multivector is the chunk's unit vector alone.
      expect(point?.vector.dense).toEqual([Array.from(axis(0))]);
      expect(fake.requests.find((r) => r.method === 'PUT' && r.path.endsWith('/points'))?.query).toMatchObject({
        wait: 'true',
      });
    });

    it('replaces a document by writing hidden points of a new generation, then switching in one batch request', async () => {
      await index.replaceDocument({ registry: 'Verra', projectId: 4074 }, 'doc-1', [
        chunk({ id: 'n1', projectId: 4074, text: 'new one' }),
        chunk({ id: 'n2', projectId: 4074, page: 2, text: 'new two' }),
      ]);
      const [body] = bodiesOf('PUT', '/points') as { points: { payload: Record<string, unknown> }[] }[];
      const generation = body?.points[0]?.payload.generation;
      expect(generation).toMatch(/^[0-9a-f-]{36}$/);
      for (const p of body?.points ?? []) expect(p.payload).toMatchObject({ pending: true, generation });
      const doc = [
        { key: 'registry', match: { value: 'Verra' } },
        { key: 'projectId', match: { value: 4074 } },
        { key: 'documentId', match: { value: 'doc-1' } },
      ];
      const thisGeneration = { key: 'generation', match: { value: generation } };
      expect(bodiesOf('POST', '/points/batch')).toEqual([
        {
          operations: [
            { delete: { filter: { must: doc, must_not: [thisGeneration] } } },
            { delete_payload: { keys: ['pending'], filter: { must: [...doc, thisGeneration] } } },
          ],
        },
      ]);
      expect(fake.requests.find((r) => r.path.endsWith('/points/batch'))?.query).toMatchObject({ wait: 'true' });
    });

    it('writes (c + s) / 2 of unit vectors per sentence, so max_sim gives the mean of the two cosines', async () => {
      const own = axis(0).map((x) => x * 2);
      await index.upsert([chunk({ id: 'c', projectId: 1, vector: own, sentenceVectors: [axis(1).map((x) => x * 5), axis(2)] })]);
      const [body] = bodiesOf('PUT', '/points') as { points: { vector: Record<string, number[][]> }[] }[];
      const half = (i: number) => Array.from(axis(0), (x, d) => (x + (d === i ? 1 : 0)) / 2);
      expect(body?.points[0]?.vector.dense).toEqual([half(1), half(2)]);
    });

    it("keeps searching a collection of the layout before sentence vectors by the chunks' own vectors, and says so", async () => {
      const legacy = `legacy_${randomUUID().replaceAll('-', '')}`;
      await fetch(`${fake.url}/collections/${legacy}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          vectors: { dense: { size: EMBEDDER.dimensions, distance: 'Cosine' } },
          sparse_vectors: { text: { modifier: 'idf' } },
          metadata: { embedderId: EMBEDDER.embedderId, dimensions: EMBEDDER.dimensions, layout: 1 },
        }),
      });
      const told: string[] = [];
      const old = await createQdrantVectorIndex({ url: fake.url, collection: legacy, onLegacyLayout: (m) => told.push(m) });
      await old.open(EMBEDDER);
      expect(told).toEqual([expect.stringMatching(/predates sentence vectors.*--reindex/)]);
      await old.upsert([
        chunk({ id: 'near', projectId: 1, vector: axis(1), sentenceVectors: [axis(2)] }),
        chunk({ id: 'far', projectId: 1, vector: axis(2) }),
      ]);
      const [body] = fake.requests.filter((r) => r.method === 'PUT' && r.path === `/collections/${legacy}/points`).map((r) => r.body) as {
        points: { vector: Record<string, unknown> }[];
      }[];
      expect(body?.points[0]?.vector.dense).toEqual(Array.from(axis(1)));
      const got = await old.searchVector(axis(1), [{ registry: 'Verra', projectId: 1 }], 2);
      expect(got.map((c) => [c.id, c.score])).toEqual([
        ['near', 1],
        ['far', 0],
      ]);
      await old.close();
      // Re-indexing (which re-embeds every document) re-creates it in the current layout.
      const reindexed = await createQdrantVectorIndex({
        url: fake.url,
        collection: legacy,
        reindex: true,
        onLegacyLayout: (m) => told.push(m),
      });
      await reindexed.open(EMBEDDER);
      expect(told).toHaveLength(1);
      expect(await reindexed.countChunks([{ registry: 'Verra', projectId: 1 }])).toEqual(new Map([['Verra:1', 0]]));
      await reindexed.upsert([chunk({ id: 'near', projectId: 1, vector: axis(1), sentenceVectors: [axis(2)] })]);
      const [, after] = fake.requests
        .filter((r) => r.method === 'PUT' && r.path === `/collections/${legacy}/points`)
        .map((r) => r.body) as { points: { vector: Record<string, unknown> }[] }[];
      expect(after?.points[0]?.vector.dense).toHaveLength(1);
      expect((after?.points[0]?.vector.dense as number[][])[0]).toHaveLength(EMBEDDER.dimensions);
      await reindexed.close();
    });

    it('deletes a document by a filter on registry, projectId and documentId', async () => {
      await index.deleteDocument({ registry: 'Verra', projectId: 12 }, 'doc-9');
      expect(bodiesOf('POST', '/points/delete')).toEqual([
        {
          filter: {
            must: [
              { key: 'registry', match: { value: 'Verra' } },
              { key: 'projectId', match: { value: 12 } },
              { key: 'documentId', match: { value: 'doc-9' } },
            ],
          },
        },
      ]);
    });

    it('pages through scroll results for a document with many chunks', async () => {
      const many = Array.from({ length: 2_300 }, (_, i) => chunk({ id: `c${String(i).padStart(5, '0')}`, projectId: 1 }));
      await index.upsert(many);
      fake.requests.length = 0;
      const ids = await index.documentChunkIds({ registry: 'Verra', projectId: 1 }, 'doc-1');
      expect(ids).toEqual(many.map((c) => c.id));
      expect(bodiesOf('POST', '/points/scroll')).toHaveLength(3);
      expect(bodiesOf('PUT', '/points')).toHaveLength(0);
    });

    it('reports a server error as a retryable DependencyError, a rejected request as not retryable', async () => {
      fake.failNext(1, 503);
      const err = await index.searchVector(axis(0), [{ registry: 'Verra', projectId: 1 }], 3).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DependencyError);
      expect(err).toMatchObject({ dependency: 'qdrant', retryable: true });
      expect((err as Error).message).toMatch(/vector search failed \(503\).*injected failure/);

      fake.failNext(1, 400);
      const bad = await index.searchText('x', [{ registry: 'Verra', projectId: 1 }], 3).catch((e: unknown) => e);
      expect(bad).toMatchObject({ dependency: 'qdrant', retryable: false });
    });

    it('reports an unreachable server as a retryable DependencyError naming the URL', async () => {
      const down = await createQdrantVectorIndex({ url: 'http://127.0.0.1:9', collection, timeoutMs: 2_000 });
      const err = await down.open(EMBEDDER).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DependencyError);
      expect((err as Error).message).toContain('http://127.0.0.1:9');
      await expect(down.ping()).rejects.toBeInstanceOf(DependencyError);
    });

    it('rejects a bad URL at construction', async () => {
      await expect(createQdrantVectorIndex({ url: 'localhost:6333' })).rejects.toThrow(/http:\/\//);
    });

    it('refuses a collection that has no embedder metadata', async () => {
      const foreign = `foreign_${randomUUID().replaceAll('-', '')}`;
      await fetch(`${fake.url}/collections/${foreign}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ vectors: { dense: { size: EMBEDDER.dimensions, distance: 'Cosine' } } }),
      });
      const other = await createQdrantVectorIndex({ url: fake.url, collection: foreign });
      await expect(other.open(EMBEDDER)).rejects.toThrow(/no embedder metadata.*re-index/);
    });
  });

  it('says a server that never answers timed out, after how long (issue 16.9)', async () => {
    const silent = createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const hung = await createQdrantVectorIndex({ url, collection: 'c', timeoutMs: 300 });
      const err = await hung.open(EMBEDDER).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DependencyError);
      expect((err as Error).message).toMatch(/timed out after 300 ms/);
      expect((err as Error).message).not.toMatch(/operation was aborted/);
    } finally {
      silent.close();
    }
  });

  it('sends the API key', async () => {
    const secured = await startFakeQdrant({ apiKey: 'k-123' });
    try {
      const ok = await createQdrantVectorIndex({ url: secured.url, apiKey: 'k-123', collection: 'c' });
      await ok.open(EMBEDDER);
      const wrong = await createQdrantVectorIndex({ url: secured.url, apiKey: 'nope', collection: 'c' });
      await expect(wrong.open(EMBEDDER)).rejects.toMatchObject({ dependency: 'qdrant', retryable: false });
    } finally {
      await secured.close();
    }
  });

  it('builds BM25 sparse vectors with unique sorted ids, compound codes as extra terms', () => {
    const v = documentSparseVector('VM0007 VM0007 AMS-III.AU emissions');
    expect(v.indices).toEqual([...v.indices].sort((a, b) => a - b));
    expect(new Set(v.indices).size).toBe(v.indices.length);
    const weight = (t: string) => v.values[v.indices.indexOf(termId(t))];
    expect(weight('vm0007')).toBeGreaterThan(weight('ams') ?? Infinity);
    expect(v.indices).toContain(termId('ams-iii.au'));
    expect(v.indices).toContain(termId('emission'));
    expect(querySparseVector('the of and').indices).toEqual([]);
  });
});

// Real Qdrant: QDRANT_URL, or a container when a docker engine is present; REQUIRE_QDRANT=1 makes absence a failure.
const qdrantUrl = process.env.QDRANT_URL;
const dockerPresent = Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
describeWithService(
  'Qdrant adapter against a real Qdrant',
  {
    available: Boolean(qdrantUrl) || dockerPresent,
    why: 'QDRANT_URL is not set and no docker engine is present (REQUIRE_QDRANT=1 asks for one)',
    required: process.env.REQUIRE_QDRANT === '1',
  },
  () => {
    let url = qdrantUrl ?? '';
    let stop: (() => Promise<unknown>) | undefined;
    beforeAll(async () => {
      if (qdrantUrl) return;
      const { GenericContainer, Wait } = await import('testcontainers');
      const container = await new GenericContainer(process.env.QDRANT_IMAGE ?? 'qdrant/qdrant:v1.18.0')
        .withExposedPorts(6333)
        .withWaitStrategy(Wait.forHttp('/readyz', 6333))
        .start();
      url = `http://${container.getHost()}:${container.getMappedPort(6333)}`;
      stop = () => container.stop();
    }, 180_000);
    afterAll(async () => {
      await stop?.();
    });
    vectorIndexContract('Qdrant (real server)', async () => collectionStore(url, process.env.QDRANT_API_KEY)());
  },
);
