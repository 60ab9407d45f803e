import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DocumentWorkItem, IngestDeps, StageContext } from '../../../ingest/types.js';
import { upsert } from '../../../ingest/stages/upsert.js';
import { createQdrantVectorIndex } from '../../../src/adapters/qdrant/vector-index.js';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import { createSqliteVectorIndex } from '../../../src/adapters/sqlite/vector-index.js';
import type { ProjectRef } from '../../../src/domain/project-ref.js';
import type { Embedder } from '../../../src/ports/embedder.js';
import type { VectorIndex } from '../../../src/ports/vector-index.js';
import { EMBEDDER, randomUnitVector } from '../../contract/vector-index.contract.js';
import { startFakeQdrant, type FakeQdrant } from '../../support/fake-qdrant.js';
import { rng } from '../../support/rng.js';

/**
 * A document re-indexed by a writer that dies in the middle of its chunks (the store fails the write of chunk 300
 * of 320, as a kill would end it): search must go on citing the document's previous chunks, never the new ones
 * written so far. Before replaceDocument, the upsert stage deleted the old chunks and wrote the new ones in batches
 * of 256, so 256 half-document chunks were cited until the next run.
 */

const REF: ProjectRef = { registry: 'Verra', projectId: 77 };
const DOC = 'doc-77';
const rand = rng(16);

/** `n` chunks of `words`, one a page, at `offset` (the old and the new generation use different offsets). */
function item(words: string, n: number, offset: number, hash: string): DocumentWorkItem {
  const pages = Array.from({ length: n }, (_, i) => `${words} passage number ${i + 1}`);
  return {
    ref: REF,
    documentId: DOC,
    uri: 'https://registry.verra.org/doc-77.pdf',
    title: 'doc-77.pdf',
    documentType: 'Project Description',
    uploadDate: null,
    previous: null,
    content: { bytes: Buffer.from('%PDF'), contentType: 'application/pdf', contentHash: hash, finalUrl: 'x' },
    pages,
    chunks: pages.map((text, i) => ({ page: i + 1, offset, text })),
    vectors: pages.map(() => randomUnitVector(rand)),
  };
}

const embedder = { id: EMBEDDER.embedderId } as Embedder;

function backends(): {
  name: string;
  setup(): Promise<{ index: VectorIndex; failChunk300(): void; heal(): void; done(): Promise<void> }>;
}[] {
  return [
    {
      name: 'SQLite',
      async setup() {
        const db: SqliteDatabase = openSqlite({ dataDir: ':memory:' });
        const index = await createSqliteVectorIndex({ db });
        return {
          index,
          failChunk300() {
            // The statement writing chunk 300 fails inside the adapter's write, as a killed process would stop there.
            db.exec(`CREATE TEMP TRIGGER die_at_300 BEFORE INSERT ON chunks WHEN NEW.text LIKE '% number 300'
              BEGIN SELECT RAISE(ABORT, 'writer killed'); END`);
          },
          heal() {
            db.exec('DROP TRIGGER die_at_300');
          },
          async done() {
            db.close();
          },
        };
      },
    },
    {
      name: 'Qdrant (loopback REST API)',
      async setup() {
        const fake: FakeQdrant = await startFakeQdrant();
        const index = await createQdrantVectorIndex({ url: fake.url, collection: 'chunks', upsertBatchSize: 100 });
        return {
          index,
          failChunk300() {
            fake.failWhen((r) => r.method === 'PUT' && JSON.stringify(r.body).includes(' number 300"'));
          },
          heal() {
            // failWhen fails one request only.
          },
          done: () => fake.close(),
        };
      },
    },
  ];
}

for (const backend of backends()) {
  describe(`upsert stage interrupted mid-document: ${backend.name}`, () => {
    let env: Awaited<ReturnType<ReturnType<typeof backends>[number]['setup']>>;
    let db: SqliteDatabase;
    let ctx: StageContext;

    beforeAll(async () => {
      env = await backend.setup();
      db = openSqlite({ dataDir: ':memory:' });
      const deps: IngestDeps = {
        records: undefined as never,
        states: await createSqliteDocumentStateStore({ db }),
        texts: await createSqliteDocumentTextStore({ db }),
        index: env.index,
        embedder,
      };
      await env.index.open(EMBEDDER);
      ctx = {
        deps,
        logger: undefined as never,
        downloader: undefined as never,
        extractor: undefined as never,
        force: false,
        chunkMaxTokens: 100,
      };
    });
    afterAll(async () => {
      await env.done();
      db.close();
    });
    beforeEach(async () => {
      await env.index.deleteDocument(REF, DOC);
    });

    it('leaves search citing the previous chunks only, and the next run replaces them all', async () => {
      await upsert(item('earlier wording', 5, 7, 'h1'), ctx);
      const before = await env.index.documentChunkIds(REF, DOC);
      expect(before).toHaveLength(5);

      env.failChunk300();
      await expect(upsert(item('revised wording', 320, 0, 'h2'), ctx)).rejects.toThrow();
      // Nothing of the new generation is visible: not by text, not by vector, not in counts.
      expect(await env.index.searchText('revised', [REF], 50)).toEqual([]);
      const byVector = await env.index.searchVector(randomUnitVector(rand), [REF], 50);
      expect(byVector.map((c) => c.text).every((t) => t.startsWith('earlier wording'))).toBe(true);
      expect(byVector).toHaveLength(5);
      expect((await env.index.searchText('earlier', [REF], 50)).map((c) => c.id).sort()).toEqual(before);
      expect(await env.index.documentChunkIds(REF, DOC)).toEqual(before);
      expect((await env.index.countChunks([REF])).get('Verra:77')).toBe(5);
      expect(await ctx.deps.states.get(REF, DOC)).toMatchObject({ status: 'pending' });

      // The next run writes the whole new set; the old chunks and anything the killed writer left are gone.
      env.heal();
      await upsert(item('revised wording', 320, 0, 'h2'), ctx);
      expect(await env.index.documentChunkIds(REF, DOC)).toHaveLength(320);
      expect((await env.index.countChunks([REF])).get('Verra:77')).toBe(320);
      expect(await env.index.searchText('earlier', [REF], 50)).toEqual([]);
      expect(await ctx.deps.states.get(REF, DOC)).toMatchObject({ status: 'indexed', chunks: 320 });
    });
  });
}
