import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpReranker } from '../../../src/adapters/rerankers/http.js';
import { DependencyError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import type { Reranker } from '../../../src/ports/reranker.js';
import type { ScoredChunk, VectorIndex } from '../../../src/ports/vector-index.js';
import { rankPassages, toCitations } from '../../../src/services/search/retrieve.js';
import { resolveSettings, type SearchContext, type SearchSettings } from '../../../src/services/search/settings.js';
import type { SearchServiceOptions } from '../../../src/services/search/types.js';
import { startRerankReplayServer } from '../../support/rerank-replay-server.js';
import { createSearchFixture, searchOptions, type SearchFixture } from '../support/fixtures.js';
import { asRequested, capturingLogger, contextFor } from './support/context.js';

/** Retrieval alone (rankPassages, toCitations) over the SQLite index: fusion, page ranking, reranking, project scope. */
const A = { registry: 'Verra', projectId: 5533 };
const B = { registry: 'CDM', projectId: 9199 };
const OTHER = { registry: 'Verra', projectId: 4086 };
const D = { registry: 'Regen', projectId: 6007 };
const E = { registry: 'Regen', projectId: 6006 };
const BOILERPLATE =
  'Standard boilerplate: this document was prepared with the VCS project description template version 4.4 and ' +
  'all information is accurate to the best knowledge of the project proponent at the time of submission.';

let fx: SearchFixture;
beforeAll(async () => {
  fx = await createSearchFixture();
  await fx.addDocument(A, 'pd', [
    'Project to afforest degraded and fallow indigenously owned lands in West Bengal, India, under methodology VM0047.',
    'The crediting period of the project is 20 years, from 15/07/2022 to 14/07/2042. The first instance is in Purulia.',
    'The non-permanence risk rating assigned for the buffer calculation is 12 percent.',
    BOILERPLATE,
  ]);
  await fx.addDocument(
    A,
    'val',
    [BOILERPLATE, 'The validation body confirms the planting density of 1,111 trees per hectare with spacing of 3 m x 3 m.'],
    { title: 'VCS5533_validation.pdf', type: 'Validation Report' },
  );
  await fx.addDocument(B, 'mr', [
    'The second monitoring period covers 17/02/2016 to 01/10/2020 for the Eastern Plains forestry restoration project.',
    'Planting density of 1,111 trees per hectare with a spacing of 3 x 3 m is used in the Eastern Plains plantations.',
  ]);
  // The best match for several questions below, but never requested: it must never be returned.
  await fx.addDocument(OTHER, 'decoy', [
    'The crediting period of the project is 20 years from 15/07/2022 to 14/07/2042, crediting period crediting period.',
    'Planting density of 1,111 trees per hectare spacing 3 x 3 m planting density trees per hectare.',
  ]);
  await fx.addDocument(
    D,
    'fonthill-plan',
    [
      [
        '1.9. Project Crediting Period .............................................. 5',
        '1.10. Permanence Period ................................................... 5',
        '1.11. Project Area and Farm Boundaries .................................... 6',
      ].join('\n'),
      'The permanence period of this project is 40 years, from 01/01/2023 to 31/12/2062.',
    ],
    { title: 'REGEN_fonthill_farms_project_plan.pdf', type: 'Project Description' },
  );
  await fx.addDocument(E, 'botany-plan', ['Botany Farm: the permanence period of the Botany Farm project is 25 years for this farm.'], {
    title: 'REGEN_botany_farm_project_plan.pdf',
    type: 'Project Description',
  });
});
afterAll(async () => {
  await fx.close();
});

const settings = (over: Partial<SearchServiceOptions> = {}) => resolveSettings(searchOptions(fx, over));

/** The query's vector as search.ts starts it (null in text mode). */
function vectorOf(s: SearchSettings, ctx: SearchContext): Promise<Float32Array> | null {
  if (ctx.mode === 'text') return null;
  return s.opts.embedder.embed([ctx.query], 'query').then(([v]) => v ?? new Float32Array(s.opts.embedder.dimensions));
}

async function rank(s: SearchSettings, ctx: SearchContext): Promise<ScoredChunk[]> {
  return rankPassages(s, ctx, vectorOf(s, ctx));
}

const where = (c: { documentTitle: string; page: number }) => `${c.documentTitle}#${c.page}`;

describe('rankPassages', () => {
  it('never returns a chunk of an unrequested project, even when it is the best match, in every mode', async () => {
    const s = settings();
    for (const mode of ['hybrid', 'text', 'vector'] as const) {
      for (const query of ['crediting period 15/07/2022', 'planting density 1,111 trees per hectare spacing']) {
        const ranked = await rank(s, contextFor(s, query, [asRequested(A), asRequested(B)], { mode, topK: 50 }));
        expect(ranked.length, `${mode}: ${query}`).toBeGreaterThan(0);
        for (const c of ranked) expect([5533, 9199]).toContain(c.projectId);
      }
    }
    const onlyB = await rank(s, contextFor(s, 'crediting period 15/07/2022', [asRequested(B)], { topK: 50 }));
    for (const c of onlyB) expect(c.projectId).toBe(9199);
  });

  it('drops, and logs, chunks of unrequested projects that an index returns anyway', async () => {
    const { lines, logger } = capturingLogger();
    const decoy = (await fx.index.searchText('crediting period', [OTHER], 1))[0];
    if (!decoy) throw new Error('fixture decoy missing');
    // An index that ignores the project filter (as one might under concurrent writes): the decoy ranks first.
    const leaky: VectorIndex = {
      ...fx.index,
      searchText: async (query, projects, topK, filter) => [
        { ...decoy, score: 99 },
        ...(await fx.index.searchText(query, projects, topK, filter)),
      ],
    };
    const s = settings({ index: leaky, logger });
    const ranked = await rank(s, contextFor(s, 'crediting period', [asRequested(A)], { mode: 'text' }));
    expect(ranked.length).toBeGreaterThan(0);
    expect(ranked.map((c) => c.projectId)).not.toContain(4086);
    expect(lines.find((l) => l.msg === 'vector index returned chunks of unrequested projects')?.dropped).toBe(1);
  });

  it('collapses identical boilerplate across documents into one passage', async () => {
    const s = settings();
    const ranked = await rank(s, contextFor(s, 'boilerplate VCS project description template version 4.4', [asRequested(A)], { topK: 10 }));
    expect(ranked.filter((c) => c.text === BOILERPLATE)).toHaveLength(1);
  });

  it('matches methodology codes and numbers exactly in text mode, without a query vector', async () => {
    const s = settings();
    const projects = [asRequested(A), asRequested(B)];
    expect((await rankPassages(s, contextFor(s, 'VM0047', projects, { mode: 'text' }), null))[0]?.text).toContain('VM0047');
    expect((await rankPassages(s, contextFor(s, '17/02/2016', projects, { mode: 'text' }), null))[0]?.projectId).toBe(9199);
  });

  it('returns results in each mode, and hybrid holds the best of both', async () => {
    const s = settings();
    const q = 'Which planting density is used in the plantations?';
    const projects = [asRequested(A), asRequested(B)];
    const [h, t, v] = await Promise.all(
      (['hybrid', 'text', 'vector'] as const).map((mode) => rank(s, contextFor(s, q, projects, { mode, topK: 5 }))),
    );
    for (const r of [h, t, v]) expect(r?.length).toBeGreaterThan(0);
    const hybrid = new Set(h?.map((c) => `${c.projectId}:${where(c)}`));
    for (const best of [t?.[0], v?.[0]]) expect(hybrid.has(`${best?.projectId}:${best ? where(best) : ''}`)).toBe(true);
  });

  it('ranks a table of contents below the page it points to, and ignores the words of an exclusion clause', async () => {
    const s = settings();
    const ask = (query: string) => rank(s, contextFor(s, query, [asRequested(D), asRequested(E)], { topK: 3, mode: 'text' }));
    const res = await ask('What is the permanence period of the Fonthill Farms project (not Botany Farm)?');
    expect(res.map(where)).toEqual([
      'REGEN_fonthill_farms_project_plan.pdf#2',
      'REGEN_botany_farm_project_plan.pdf#1',
      'REGEN_fonthill_farms_project_plan.pdf#1',
    ]);
    // Without the clause the excluded project's words count, and its page comes first.
    const plain = await ask('What is the permanence period of the Fonthill Farms project or Botany Farm?');
    expect(plain[0]?.documentTitle).toBe('REGEN_botany_farm_project_plan.pdf');
  });

  it('hands the reranker as many distinct candidates as its window asks (topK when it keeps the order)', async () => {
    const seen: number[] = [];
    const recording = (window: number): Reranker => ({
      id: `recording-${window}`,
      window,
      async rerank(_query, candidates, topK) {
        seen.push(candidates.length);
        return [...candidates].reverse().slice(0, topK);
      },
    });
    const query = 'planting density trees per hectare crediting period';
    const ranked = async (window: number) => {
      const s = settings({ reranker: recording(window) });
      return rank(s, contextFor(s, query, [asRequested(A), asRequested(B)], { topK: 2 }));
    };
    const wide = await ranked(6);
    const narrow = await ranked(0);
    expect(seen).toEqual([6, 2]);
    // What it returns is what is kept: the reversed window of six differs from the reversed top two.
    expect(wide.map((c) => c.text)).not.toEqual(narrow.map((c) => c.text));
  });

  it('keeps the order and scores of a cross-encoder behind a rerank server (RERANKER=http)', async () => {
    const rerankServer = await startRerankReplayServer();
    try {
      const query = 'What non-permanence risk rating was assigned for the buffer?';
      // The "model" puts the second candidate first whatever the question (a scripted reply).
      rerankServer.enqueue('/rerank', {
        status: 200,
        body: [
          { index: 1, score: 0.97 },
          { index: 0, score: 0.41 },
        ],
      });
      const reranker = createHttpReranker({
        url: `${rerankServer.baseUrl}/rerank`,
        api: 'tei',
        window: 2,
        logger: createLogger({ level: 'silent', name: 't' }),
      });
      const projects = [asRequested(A), asRequested(B)];
      const fusedSettings = settings();
      const fused = await rank(fusedSettings, contextFor(fusedSettings, query, projects, { topK: 3 }));
      const s = settings({ reranker });
      const res = await rank(s, contextFor(s, query, projects, { topK: 3 }));
      const sent = rerankServer.requests[0]?.body as { query: string; texts: string[] };
      expect(sent.query).toBe(query);
      expect(sent.texts).toHaveLength(2);
      expect(res[0]?.text).toContain(sent.texts[1] ?? '\u0000');
      expect(res.slice(0, 2).map((c) => c.score)).toEqual([0.97, 0.41]);
      expect(res.map((c) => c.text)).not.toEqual(fused.map((c) => c.text));
    } finally {
      await rerankServer.close();
    }
  });

  it('gives each project its own share with perProject, merged best head first', async () => {
    const s = settings();
    const query = 'What planting density in trees per hectare is used?';
    const projects = [asRequested(A), asRequested(B)];
    const alone = await Promise.all(projects.map((p) => rank(s, contextFor(s, query, [p], { topK: 4 }))));
    const shared = await rank(s, contextFor(s, query, projects, { topK: 4 }));
    const perProject = await rank(s, contextFor(s, query, projects, { topK: 4, perProject: true }));
    // Each project ranked alone, up to 4 citations each (PER_PROJECT_CITATIONS), more than topK 4 over 2 projects.
    const ownA = perProject.filter((c) => c.projectId === 5533);
    const ownB = perProject.filter((c) => c.projectId === 9199);
    expect(ownA.map((c) => c.id)).toEqual(alone[0]?.map((c) => c.id));
    expect(ownB.map((c) => c.id)).toEqual(alone[1]?.map((c) => c.id));
    expect(ownA.length).toBeGreaterThan(2);
    expect(perProject.length).toBeGreaterThan(shared.length);
    // Merged by score: each next passage is the better of the two projects' next ones.
    const scores = perProject.map((c) => c.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('searches only the requested document types, matched case-insensitively', async () => {
    const s = settings();
    const query = 'planting density trees per hectare boilerplate template';
    const validation = await rank(s, contextFor(s, query, [asRequested(A)], { documentTypes: [' validation REPORT'] }));
    expect(validation.length).toBeGreaterThan(0);
    expect(new Set(validation.map((c) => c.documentType))).toEqual(new Set(['Validation Report']));
    expect(await rank(s, contextFor(s, query, [asRequested(A)], { documentTypes: ['Monitoring Report'] }))).toEqual([]);
  });

  it('ranks by full text alone when the query embedding fails as a dependency in hybrid mode, and fails otherwise', async () => {
    const { lines, logger } = capturingLogger();
    const s = settings({ logger });
    const ctx = contextFor(s, 'crediting period 15/07/2022', [asRequested(A)]);
    const down = () => Promise.reject(new DependencyError('embedder', 'embedder unavailable'));
    const ranked = await rankPassages(s, ctx, down());
    expect(ranked[0]?.text).toContain('15/07/2022');
    expect(lines.find((l) => l.msg === 'query embedding failed; full-text results only')).toMatchObject({ dependency: 'embedder' });
    // Dense retrieval alone has nothing to fall back on; a bug (not a dependency failure) is never hidden.
    await expect(rankPassages(s, { ...ctx, mode: 'vector' }, down())).rejects.toBeInstanceOf(DependencyError);
    await expect(rankPassages(s, ctx, Promise.reject(new TypeError('bad vector')))).rejects.toThrow('bad vector');
  });
});

describe('toCitations', () => {
  const chunk = (over: Partial<ScoredChunk>): ScoredChunk => ({
    id: 'c',
    registry: 'Verra',
    projectId: 5533,
    documentId: 'pd',
    documentTitle: 'pd.pdf',
    documentType: 'Project Description',
    uri: 'https://docs.example.org/5533/pd.pdf',
    page: 2,
    offset: 0,
    text: 'The crediting period is 20 years.',
    score: 0.123456,
    ...over,
  });

  it('numbers the passages from 1, names each project as requested, rounds scores to 4 places, flags OCR pages', () => {
    const citations = toCitations(
      [chunk({}), chunk({ registry: 'CDM', projectId: 9199, page: 5, score: 0.5, ocr: true }), chunk({ projectId: 1, score: 1 / 3 })],
      [asRequested(A, 'VCS'), asRequested(B)],
    );
    expect(citations).toEqual([
      {
        id: 1,
        projectId: 5533,
        registry: 'VCS',
        documentTitle: 'pd.pdf',
        documentType: 'Project Description',
        uri: 'https://docs.example.org/5533/pd.pdf',
        page: 2,
        text: 'The crediting period is 20 years.',
        quote: '',
        score: 0.1235,
      },
      expect.objectContaining({ id: 2, registry: 'CDM', projectId: 9199, page: 5, score: 0.5, ocr: true }),
      // A project the request did not name keeps its stored registry.
      expect.objectContaining({ id: 3, registry: 'Verra', projectId: 1, score: 0.3333 }),
    ]);
    expect('ocr' in (citations[0] ?? {})).toBe(false);
    expect(toCitations([], [asRequested(A)])).toEqual([]);
  });
});
