import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import { projectKey } from '../../src/domain/project-ref.js';
import { EmbedderMismatchError } from '../../src/errors.js';
import type { ChunkWithVector, ScoredChunk, VectorIndex } from '../../src/ports/vector-index.js';
import { rng } from '../support/rng.js';

/**
 * One behaviour for every VectorIndex adapter. `makeStore` gives a fresh, empty store per test; its `connect()`
 * returns a new adapter instance on that store (not yet opened), as a second process would have.
 */
export interface VectorIndexStore {
  connect(opts?: { reindex?: boolean }): Promise<VectorIndex>;
  dispose(): Promise<void>;
}

export const DIMS = 16;
export const EMBEDDER = { embedderId: 'contract-embedder', dimensions: DIMS };

export function randomUnitVector(rand: () => number, dims = DIMS): Float32Array {
  const v = new Float32Array(dims);
  let n = 0;
  for (let i = 0; i < dims; i++) {
    // Box-Muller: normally distributed components give directions uniform on the sphere.
    const x = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    v[i] = x;
    n += x * x;
  }
  const norm = Math.sqrt(n);
  for (let i = 0; i < dims; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

/** Unit vector along one axis: makes "this chunk is the best possible match" easy to arrange. */
export function axis(i: number, dims = DIMS): Float32Array {
  const v = new Float32Array(dims);
  v[i] = 1;
  return v;
}

export function chunk(over: Partial<ChunkWithVector> & Pick<ChunkWithVector, 'id' | 'projectId'>): ChunkWithVector {
  return {
    registry: 'Verra',
    documentId: 'doc-1',
    documentTitle: 'PD_1.pdf',
    documentType: 'Project Description',
    uri: 'https://registry.example/doc-1.pdf',
    page: 1,
    offset: 0,
    text: 'plain text',
    vector: axis(0),
    ...over,
  };
}

const V = (projectId: number): ProjectRef => ({ registry: 'Verra', projectId });
const ids = (rows: ScoredChunk[]): string[] => rows.map((r) => r.id);

export function vectorIndexContract(name: string, makeStore: () => Promise<VectorIndexStore>): void {
  describe(`VectorIndex contract: ${name}`, () => {
    let store: VectorIndexStore;
    let index: VectorIndex;

    beforeEach(async () => {
      store = await makeStore();
      index = await store.connect();
      await index.open(EMBEDDER);
    });
    afterEach(async () => {
      await index.close();
      await store.dispose();
    });

    it('narrows both searches to the given document types, exactly, and finds nothing for an empty list', async () => {
      await index.upsert([
        chunk({ id: 'pd', projectId: 1, text: 'mangrove restoration baseline', vector: axis(1) }),
        chunk({
          id: 'vr',
          projectId: 1,
          documentId: 'doc-2',
          documentType: 'Validation Report',
          text: 'mangrove validation',
          vector: axis(2),
        }),
        chunk({
          id: 'mr',
          projectId: 1,
          documentId: 'doc-3',
          documentType: 'Monitoring Report',
          text: 'mangrove monitoring',
          vector: axis(3),
        }),
      ]);
      const only = { documentTypes: ['Validation Report', 'Monitoring Report'] };
      expect(ids(await index.searchText('mangrove', [V(1)], 10, only)).sort()).toEqual(['mr', 'vr']);
      expect(ids(await index.searchVector(axis(1), [V(1)], 10, only)).sort()).toEqual(['mr', 'vr']);
      // A pending query (the read-ahead path of the embedded index) is filtered the same way.
      expect(ids(await index.searchVector(Promise.resolve(axis(1)), [V(1)], 10, only)).sort()).toEqual(['mr', 'vr']);
      expect(await index.searchText('mangrove', [V(1)], 10, { documentTypes: ['validation report'] })).toEqual([]);
      expect(await index.searchText('mangrove', [V(1)], 10, { documentTypes: [] })).toEqual([]);
      expect(await index.searchVector(axis(1), [V(1)], 10, { documentTypes: [] })).toEqual([]);
      expect(ids(await index.searchText('mangrove', [V(1)], 10, {})).sort()).toEqual(['mr', 'pd', 'vr']);
    });

    it('inserts, then replaces a chunk with the same id instead of adding a second one', async () => {
      await index.upsert([chunk({ id: 'c1', projectId: 1, text: 'first version about mangroves', vector: axis(1) })]);
      await index.upsert([chunk({ id: 'c1', projectId: 1, text: 'second version about peatland', vector: axis(2) })]);
      expect(await index.documentChunkIds(V(1), 'doc-1')).toEqual(['c1']);
      expect((await index.countChunks([V(1)])).get('Verra:1')).toBe(1);
      const [hit] = await index.searchVector(axis(2), [V(1)], 5);
      expect(hit?.text).toBe('second version about peatland');
      expect(hit?.score).toBeCloseTo(1, 4);
      expect(await index.searchText('mangroves', [V(1)], 5)).toEqual([]);
      expect(ids(await index.searchText('peatland', [V(1)], 5))).toEqual(['c1']);
    });

    it('returns every stored field of a chunk', async () => {
      const c = chunk({
        id: 'full',
        projectId: 42,
        registry: 'Gold Standard',
        documentId: 'd-42',
        documentTitle: 'MR_2021.pdf',
        documentType: 'Monitoring Report',
        uri: 'https://x.example/MR_2021.pdf',
        page: 12,
        offset: 3456,
        text: 'Ünïcode text with “quotes” and the code VM0042',
        vector: axis(3),
      });
      await index.upsert([c]);
      const { vector: _vector, ...expected } = c;
      const [byVector] = await index.searchVector(axis(3), [{ registry: 'Gold Standard', projectId: 42 }], 1);
      expect(byVector).toMatchObject(expected);
      const [byText] = await index.searchText('VM0042', [{ registry: 'Gold Standard', projectId: 42 }], 1);
      expect(byText).toMatchObject(expected);
      expect(byText && 'ocr' in byText).toBe(false);
    });

    it('says of a chunk from a page read by OCR that it was, in both searches', async () => {
      await index.upsert([chunk({ id: 'scan', projectId: 43, text: 'scanned annex signed by the validator', ocr: true, vector: axis(4) })]);
      const [byVector] = await index.searchVector(axis(4), [V(43)], 1);
      expect(byVector?.ocr).toBe(true);
      const [byText] = await index.searchText('validator', [V(43)], 1);
      expect(byText?.ocr).toBe(true);
    });

    it('never returns a chunk of an unrequested project, even when it is the best match', async () => {
      await index.upsert([
        chunk({ id: 'other-best', projectId: 2, text: 'VM0007 VM0007 avoided deforestation', vector: axis(0) }),
        chunk({ id: 'mine', projectId: 1, text: 'VM0007 once in a long passage about other things', vector: axis(1) }),
      ]);
      expect(ids(await index.searchVector(axis(0), [V(1)], 10))).toEqual(['mine']);
      expect(ids(await index.searchText('VM0007 deforestation', [V(1)], 10))).toEqual(['mine']);
      expect(ids(await index.searchVector(axis(0), [V(3)], 10))).toEqual([]);
      expect(await index.searchText('VM0007', [V(3)], 10)).toEqual([]);
    });

    it('keeps the same project id under two registries apart', async () => {
      const gs = { registry: 'Gold Standard', projectId: 7 };
      await index.upsert([
        chunk({ id: 'verra-7', projectId: 7, text: 'cookstove project', vector: axis(0) }),
        chunk({ id: 'gs-7', projectId: 7, registry: 'Gold Standard', text: 'cookstove project', vector: axis(0) }),
        chunk({ id: 'gs-7b', projectId: 7, registry: 'Gold Standard', text: 'second page', vector: axis(1) }),
      ]);
      expect(ids(await index.searchVector(axis(0), [V(7)], 10))).toEqual(['verra-7']);
      expect(ids(await index.searchText('cookstove', [gs], 10))).toEqual(['gs-7']);
      expect((await index.searchVector(axis(0), [V(7), gs], 10)).map((r) => r.id).sort()).toEqual(['gs-7', 'gs-7b', 'verra-7']);
      const counts = await index.countChunks([V(7), gs]);
      expect(counts.get('Verra:7')).toBe(1);
      expect(counts.get('Gold Standard:7')).toBe(2);
      expect(await index.documentChunkIds(gs, 'doc-1')).toEqual(['gs-7', 'gs-7b']);
    });

    it('scores exactly: top-k over the requested projects equals brute force on random unit vectors', async () => {
      const rand = rng(20261122);
      const all: ChunkWithVector[] = [];
      for (let p = 1; p <= 12; p++) {
        for (let i = 0; i < 40; i++) {
          all.push(chunk({ id: `p${p}-c${i}`, projectId: p, documentId: `d${i % 3}`, vector: randomUnitVector(rand) }));
        }
      }
      await index.upsert(all);
      const wanted = [V(2), V(5), V(11)];
      const keys = new Set(wanted.map(projectKey));
      for (let q = 0; q < 5; q++) {
        const query = randomUnitVector(rand);
        const expected = all
          .filter((c) => keys.has(projectKey(c)))
          .map((c) => ({ id: c.id, score: c.vector.reduce((s, x, i) => s + x * (query[i] ?? 0), 0) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        const got = await index.searchVector(query, wanted, 10);
        expect(ids(got)).toEqual(expected.map((e) => e.id));
        got.forEach((g, i) => expect(g.score).toBeCloseTo(expected[i]?.score ?? NaN, 4));
      }
    });

    it("scores a chunk with sentence vectors by the mean of its own and its best sentence's cosine, exactly", async () => {
      const rand = rng(20261123);
      const cos = (a: Float32Array, b: Float32Array): number => {
        const n = Math.hypot(...a) * Math.hypot(...b);
        return n === 0 ? 0 : a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0) / n;
      };
      const all: ChunkWithVector[] = [];
      for (let p = 1; p <= 6; p++) {
        for (let i = 0; i < 40; i++) {
          const sentences = Array.from({ length: i % 4 }, () => randomUnitVector(rand));
          // A zero sentence vector has cosine 0, like a zero chunk vector.
          if (i % 13 === 5) sentences.push(new Float32Array(DIMS));
          all.push(chunk({ id: `p${p}-c${i}`, projectId: p, vector: randomUnitVector(rand), sentenceVectors: sentences }));
        }
      }
      await index.upsert(all);
      const wanted = [V(1), V(4), V(6)];
      const keys = new Set(wanted.map(projectKey));
      for (let q = 0; q < 5; q++) {
        const query = randomUnitVector(rand);
        const expected = all
          .filter((c) => keys.has(projectKey(c)))
          .map((c) => {
            const own = cos(c.vector, query);
            const s = c.sentenceVectors ?? [];
            return { id: c.id, score: s.length === 0 ? own : (own + Math.max(...s.map((v) => cos(v, query)))) / 2 };
          })
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        for (const given of [query, Promise.resolve(query)]) {
          const got = await index.searchVector(given, wanted, 10);
          expect(ids(got)).toEqual(expected.map((e) => e.id));
          got.forEach((g, i) => expect(g.score).toBeCloseTo(expected[i]?.score ?? NaN, 4));
        }
      }
    });

    it('ranks a passage by the sentence that answers, and replaces sentence vectors with their chunk', async () => {
      const mix = (a: number, b: number, i: number, j: number): Float32Array => {
        const v = new Float32Array(DIMS);
        v[i] = a;
        v[j] = b;
        return v;
      };
      // "answer": its own cosine is 0.6, but one of its sentences is the query (score (0.6 + 1) / 2 = 0.8);
      // "loose": 0.7 by its own vector, no sentences.
      await index.upsert([
        chunk({ id: 'answer', projectId: 1, vector: mix(0.6, 0.8, 1, 2), sentenceVectors: [axis(3), axis(1)] }),
        chunk({ id: 'loose', projectId: 1, vector: mix(0.7, Math.sqrt(1 - 0.49), 1, 4) }),
      ]);
      for (const query of [axis(1), Promise.resolve(axis(1))]) {
        const got = await index.searchVector(query, [V(1)], 2);
        expect(ids(got)).toEqual(['answer', 'loose']);
        expect(got[0]?.score).toBeCloseTo(0.8, 5);
        expect(got[1]?.score).toBeCloseTo(0.7, 5);
      }
      // Written again without sentences, it is scored by its own vector alone.
      await index.upsert([chunk({ id: 'answer', projectId: 1, vector: mix(0.6, 0.8, 1, 2) })]);
      for (const query of [axis(1), Promise.resolve(axis(1))]) {
        const got = await index.searchVector(query, [V(1)], 2);
        expect(ids(got)).toEqual(['loose', 'answer']);
        expect(got[1]?.score).toBeCloseTo(0.6, 5);
      }
    });

    it('takes a query vector that is still being computed, and fails with its error', async () => {
      await index.upsert([chunk({ id: 'near', projectId: 1, vector: axis(1) }), chunk({ id: 'far', projectId: 1, vector: axis(2) })]);
      let resolve: (v: Float32Array) => void = () => undefined;
      const pending = new Promise<Float32Array>((r) => (resolve = r));
      const search = index.searchVector(pending, [V(1)], 1);
      setTimeout(() => resolve(axis(1)), 5);
      expect(ids(await search)).toEqual(['near']);
      const down = new Error('the embedder is down');
      await expect(index.searchVector(Promise.reject(down), [V(1)], 1)).rejects.toBe(down);
      await expect(index.searchVector(Promise.reject(down), [], 1)).rejects.toBe(down);
    });

    it('returns at most topK results, best first', async () => {
      const rand = rng(7);
      await index.upsert(
        Array.from({ length: 30 }, (_, i) =>
          chunk({ id: `c${i}`, projectId: 1, text: `carbon stock estimate ${i}`, vector: randomUnitVector(rand) }),
        ),
      );
      const byVector = await index.searchVector(randomUnitVector(rand), [V(1)], 7);
      expect(byVector).toHaveLength(7);
      const byText = await index.searchText('carbon stock', [V(1)], 4);
      expect(byText).toHaveLength(4);
      for (const rows of [byVector, byText]) {
        for (let i = 1; i < rows.length; i++) expect(rows[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(rows[i]?.score ?? 0);
      }
      expect(await index.searchVector(axis(0), [V(1)], 0)).toEqual([]);
    });

    it('matches methodology codes and grouped numbers exactly in full text', async () => {
      const texts: Record<string, string> = {
        vm7: 'The project applies VM0007 REDD+ Methodology Framework.',
        vm6: 'The project applies VM0006 for mosaic deforestation.',
        aram: 'Afforestation under AR-AM0001 version 3 on degraded land.',
        amsau: 'Small-scale methodology AMS-III.AU for rice cultivation.',
        amsav: 'Small-scale methodology AMS-III.AV for water purification.',
        n1: 'Estimated annual reductions are 256,109 tCO2e.',
        n2: 'The area covers 256 hectares and 109 households.',
        n3: 'Total of 5,35,052 credits over the crediting period.',
      };
      await index.upsert(Object.entries(texts).map(([id, text], i) => chunk({ id, projectId: 1, text, vector: axis(i % DIMS) })));
      const top = async (q: string) => ids(await index.searchText(q, [V(1)], 10));
      expect(await top('VM0007')).toEqual(['vm7']);
      expect(await top('vm0006')).toEqual(['vm6']);
      expect((await top('AR-AM0001'))[0]).toBe('aram');
      expect((await top('AMS-III.AU'))[0]).toBe('amsau');
      expect((await top('which methodology, AMS-III.AV?'))[0]).toBe('amsav');
      expect((await top('256,109'))[0]).toBe('n1');
      expect((await top('5,35,052'))[0]).toBe('n3');
      expect(await top('VM0008')).toEqual([]);
    });

    it('ranks by BM25: rarer and more query terms score higher, scores are positive', async () => {
      const filler = 'the project area is located in the district and the community participates in monitoring';
      await index.upsert([
        chunk({ id: 'both', projectId: 1, text: `mangrove restoration in the delta. ${filler}`, vector: axis(0) }),
        chunk({ id: 'rare', projectId: 1, text: `mangrove planting. ${filler}`, vector: axis(1) }),
        chunk({ id: 'common', projectId: 1, text: `restoration of soils. ${filler}`, vector: axis(2) }),
        chunk({ id: 'common2', projectId: 1, text: `restoration of grassland. ${filler}`, vector: axis(3) }),
        chunk({ id: 'common3', projectId: 1, text: `restoration of wetlands. ${filler}`, vector: axis(4) }),
        // Chunks without either term: "restoration" must be in fewer than half the chunks for FTS5's BM25 to
        // give it a positive weight (it clamps the IDF of terms in most documents to almost nothing).
        ...Array.from({ length: 5 }, (_, i) => chunk({ id: `none${i}`, projectId: 1, text: filler, vector: axis(5) })),
      ]);
      const rows = await index.searchText('mangrove restoration', [V(1)], 10);
      expect(rows[0]?.id).toBe('both');
      // "mangrove" is in 2 of 10 chunks, "restoration" in 4: a chunk with the rare term outranks one with the common.
      expect(ids(rows).indexOf('rare')).toBeLessThan(ids(rows).indexOf('common'));
      expect(ids(rows).some((id) => id.startsWith('none'))).toBe(false);
      for (const r of rows) expect(r.score).toBeGreaterThan(0);
    });

    it('finds a chunk by its document title, type and context in full text, but returns its text alone', async () => {
      const text = 'The permanence period is 40 years from the project start date.';
      await index.upsert([
        chunk({
          id: 'fonthill',
          projectId: 1,
          documentTitle: 'REGEN_fonthill_farms_plan.pdf',
          text,
          context: 'Section 1.10 Permanence',
          vector: axis(0),
        }),
        chunk({
          id: 'botany',
          projectId: 1,
          documentTitle: 'REGEN_botany_farm_plan.pdf',
          documentType: 'Monitoring Report',
          text,
          vector: axis(1),
        }),
        ...Array.from({ length: 4 }, (_, i) => chunk({ id: `filler${i}`, projectId: 1, text: 'soil sampling protocol', vector: axis(2) })),
      ]);
      const rows = await index.searchText('permanence period of Fonthill Farms', [V(1)], 10);
      expect(ids(rows)).toEqual(['fonthill', 'botany']);
      expect(rows[0]?.text).toBe(text);
      expect(rows[0]?.documentTitle).toBe('REGEN_fonthill_farms_plan.pdf');
      expect(ids(await index.searchText('botany', [V(1)], 10))).toEqual(['botany']);
      expect(ids(await index.searchText('monitoring report', [V(1)], 10))).toEqual(['botany']);
      expect(ids(await index.searchText('section', [V(1)], 10))).toEqual(['fonthill']);
      // The vector side is untouched: context only feeds full text.
      expect(ids(await index.searchVector(axis(1), [V(1)], 1))).toEqual(['botany']);
    });

    it('never fails on hostile or empty text queries', async () => {
      await index.upsert([chunk({ id: 'c', projectId: 1, text: 'NEAR the AND gate OR not "quoted" text*', vector: axis(0) })]);
      for (const q of [
        '"',
        '""',
        'AND',
        'OR OR',
        'NOT',
        'NEAR(a b)',
        '*',
        'text*',
        '(',
        ')',
        ':',
        'a:b',
        '^x',
        '-',
        '+',
        '{x}',
        'col : x',
        "it's",
        '🌳🌳',
        '   ',
        '',
        'the of and',
        '\u0000',
      ]) {
        const rows = await index.searchText(q, [V(1)], 5);
        expect(Array.isArray(rows)).toBe(true);
      }
      expect(ids(await index.searchText('"quoted" AND gate', [V(1)], 5))).toEqual(['c']);
    });

    it('deletes every chunk of one document and nothing else', async () => {
      await index.upsert([
        chunk({ id: 'a1', projectId: 1, documentId: 'A', text: 'alpha page one', vector: axis(0) }),
        chunk({ id: 'a2', projectId: 1, documentId: 'A', page: 2, text: 'alpha page two', vector: axis(1) }),
        chunk({ id: 'b1', projectId: 1, documentId: 'B', text: 'alpha other document', vector: axis(2) }),
        chunk({ id: 'x1', projectId: 2, documentId: 'A', text: 'alpha same document id, other project', vector: axis(0) }),
      ]);
      await index.deleteDocument(V(1), 'A');
      expect(await index.documentChunkIds(V(1), 'A')).toEqual([]);
      expect(await index.documentChunkIds(V(1), 'B')).toEqual(['b1']);
      expect(await index.documentChunkIds(V(2), 'A')).toEqual(['x1']);
      expect(ids(await index.searchVector(axis(0), [V(1)], 10))).toEqual(['b1']);
      expect(ids(await index.searchText('alpha', [V(1)], 10))).toEqual(['b1']);
      expect((await index.countChunks([V(1), V(2)])).get('Verra:1')).toBe(1);
      // Deleting what is not there is not an error (re-ingestion deletes before writing).
      await index.deleteDocument(V(9), 'none');
    });

    it("replaces one document's chunks with a new set, leaving other documents alone", async () => {
      await index.upsert([
        chunk({ id: 'a1', projectId: 1, documentId: 'A', text: 'old alpha one', vector: axis(0) }),
        chunk({ id: 'a2', projectId: 1, documentId: 'A', page: 2, text: 'old alpha two', vector: axis(1) }),
        chunk({ id: 'b1', projectId: 1, documentId: 'B', text: 'old beta', vector: axis(2) }),
      ]);
      // a1 again (same id, new text), a3 new, a2 gone.
      await index.replaceDocument(V(1), 'A', [
        chunk({ id: 'a1', projectId: 1, documentId: 'A', text: 'new alpha one', vector: axis(3) }),
        chunk({ id: 'a3', projectId: 1, documentId: 'A', page: 3, text: 'new alpha three', vector: axis(4) }),
      ]);
      expect(await index.documentChunkIds(V(1), 'A')).toEqual(['a1', 'a3']);
      expect(await index.documentChunkIds(V(1), 'B')).toEqual(['b1']);
      expect(ids(await index.searchText('alpha', [V(1)], 10)).sort()).toEqual(['a1', 'a3']);
      expect((await index.searchText('new alpha one', [V(1)], 1))[0]).toMatchObject({ id: 'a1', text: 'new alpha one' });
      expect(ids(await index.searchVector(axis(3), [V(1)], 1))).toEqual(['a1']);
      expect((await index.countChunks([V(1)])).get('Verra:1')).toBe(3);
      // Twice in a row, and with no chunks (the document emptied).
      await index.replaceDocument(V(1), 'A', [chunk({ id: 'a4', projectId: 1, documentId: 'A', text: 'newer alpha', vector: axis(5) })]);
      expect(await index.documentChunkIds(V(1), 'A')).toEqual(['a4']);
      await index.replaceDocument(V(1), 'A', []);
      expect(await index.documentChunkIds(V(1), 'A')).toEqual([]);
      expect((await index.countChunks([V(1)])).get('Verra:1')).toBe(1);
    });

    it('refuses to replace a document with chunks of another document, writing nothing', async () => {
      await index.upsert([chunk({ id: 'a1', projectId: 1, documentId: 'A', text: 'old alpha' })]);
      await expect(
        index.replaceDocument(V(1), 'A', [
          chunk({ id: 'a2', projectId: 1, documentId: 'A' }),
          chunk({ id: 'b1', projectId: 1, documentId: 'B' }),
        ]),
      ).rejects.toThrow(/replaceDocument\(Verra:1, A\): chunk b1 belongs to document B of Verra:1/);
      expect(await index.documentChunkIds(V(1), 'A')).toEqual(['a1']);
      expect(await index.documentChunkIds(V(1), 'B')).toEqual([]);
    });

    it('returns [] for an empty project list', async () => {
      await index.upsert([chunk({ id: 'c', projectId: 1, text: 'anything', vector: axis(0) })]);
      expect(await index.searchVector(axis(0), [], 10)).toEqual([]);
      expect(await index.searchText('anything', [], 10)).toEqual([]);
      expect((await index.countChunks([])).size).toBe(0);
    });

    it('counts chunks per project, 0 for a project with none', async () => {
      await index.upsert([
        chunk({ id: 'a', projectId: 1 }),
        chunk({ id: 'b', projectId: 1, documentId: 'doc-2' }),
        chunk({ id: 'c', projectId: 2 }),
      ]);
      const counts = await index.countChunks([V(1), V(2), V(3)]);
      expect(Object.fromEntries(counts)).toEqual({ 'Verra:1': 2, 'Verra:2': 1, 'Verra:3': 0 });
    });

    it("lists a document's chunk ids, sorted", async () => {
      await index.upsert([
        chunk({ id: 'z', projectId: 1, page: 1 }),
        chunk({ id: 'a', projectId: 1, page: 3 }),
        chunk({ id: 'm', projectId: 1, page: 2 }),
        chunk({ id: 'other', projectId: 1, documentId: 'doc-2' }),
      ]);
      expect(await index.documentChunkIds(V(1), 'doc-1')).toEqual(['a', 'm', 'z']);
      expect(await index.documentChunkIds(V(1), 'missing')).toEqual([]);
    });

    it('refuses another embedder, with an error telling the operator to re-index', async () => {
      await index.upsert([chunk({ id: 'kept', projectId: 1, vector: axis(0) })]);
      const other = await store.connect();
      await expect(other.open({ embedderId: 'another-model', dimensions: DIMS })).rejects.toThrow(EmbedderMismatchError);
      await expect(other.open({ embedderId: 'another-model', dimensions: DIMS })).rejects.toThrow(/re-index/);
      await expect(other.open({ embedderId: EMBEDDER.embedderId, dimensions: DIMS * 2 })).rejects.toThrow(EmbedderMismatchError);
      // Refused: nothing can be written or searched through it.
      await expect(other.upsert([chunk({ id: 'new', projectId: 1 })])).rejects.toThrow(/not open/);
      await expect(other.searchVector(axis(0), [V(1)], 1)).rejects.toThrow(/not open/);
      await other.close();

      const same = await store.connect();
      await same.open(EMBEDDER);
      expect(ids(await same.searchVector(axis(0), [V(1)], 5))).toEqual(['kept']);
      await same.close();
    });

    it('re-indexing with another embedder starts empty when asked to', async () => {
      await index.upsert([chunk({ id: 'old', projectId: 1, vector: axis(0) })]);
      const re = await store.connect({ reindex: true });
      await re.open({ embedderId: 'new-model', dimensions: 8 });
      expect((await re.countChunks([V(1)])).get('Verra:1')).toBe(0);
      await re.upsert([chunk({ id: 'new', projectId: 1, vector: axis(0, 8) })]);
      expect(ids(await re.searchVector(axis(0, 8), [V(1)], 5))).toEqual(['new']);
      await re.close();
      const old = await store.connect();
      await expect(old.open(EMBEDDER)).rejects.toThrow(EmbedderMismatchError);
      await old.close();
    });

    it('rejects vectors of the wrong size with a clear error', async () => {
      await expect(index.upsert([chunk({ id: 'bad', projectId: 1, vector: axis(0, DIMS + 1) })])).rejects.toThrow(
        new RegExp(`${DIMS} dimensions, got ${DIMS + 1}`),
      );
      await expect(index.upsert([chunk({ id: 'bad', projectId: 1, sentenceVectors: [axis(1), new Float32Array(3)] })])).rejects.toThrow(
        /sentenceVectors\[1\] must be a Float32Array of 16 dimensions, got 3 dimensions/,
      );
      await expect(index.searchVector(new Float32Array(3), [V(1)], 5)).rejects.toThrow(/dimensions, got 3/);
      expect((await index.countChunks([V(1)])).get('Verra:1')).toBe(0);
    });

    it('answers ping', async () => {
      await expect(index.ping()).resolves.toBeUndefined();
    });
  });
}
