import type { DocumentTextStore } from '../../src/ports/document-text-store.js';
import type { Embedder } from '../../src/ports/embedder.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLlmSummarizer } from '../../src/adapters/summarizers/llm.js';
import { createOpenAIChatModel } from '../../src/adapters/summarizers/openai.js';
import { extractMarkers } from '../../src/domain/markers.js';
import { MAX_QUERY_CHARS } from '../../src/domain/search-limits.js';
import { AppError, DependencyError } from '../../src/errors.js';
import { createOpenAIEmbedder } from '../../src/adapters/embedders/openai.js';
import type { VectorIndex } from '../../src/ports/vector-index.js';
import type { RequestedProject } from '../../src/domain/project-ref.js';
import { ANSWER_HEDGE, createSearchService, WINDOW_CHARS, type SearchServiceOptions } from '../../src/services/search.js';
import { startOpenAIReplayServer, openaiError, type OpenAIReplayServer } from '../support/openai-replay-server.js';
import { createSearchFixture, searchOptions, type SearchFixture } from './support/fixtures.js';

const A = { registry: 'Verra', projectId: 5533 };
const B = { registry: 'CDM', projectId: 9199 };
const OTHER = { registry: 'Verra', projectId: 4086 };
const EMPTY = { registry: 'Verra', projectId: 777 };
const asRequested = (ref: { registry: string; projectId: number }, spelling = ref.registry): RequestedProject => ({
  ref,
  requestedRegistry: spelling,
});

let fx: SearchFixture;
beforeAll(async () => {
  fx = await createSearchFixture();
  await fx.addRecord(A);
  await fx.addRecord(B);
  await fx.addRecord(OTHER);
  await fx.addRecord(EMPTY);
  await fx.addDocument(A, 'pd', [
    'Project to afforest degraded and fallow indigenously owned lands in West Bengal, India, under methodology VM0047.',
    'The crediting period of the project is 20 years, from 15/07/2022 to 14/07/2042. The first instance is in Purulia.',
    'The non-permanence risk rating assigned for the buffer calculation is 12 percent.',
    'Standard boilerplate: this document was prepared with the VCS project description template version 4.4 and ' +
      'all information is accurate to the best knowledge of the project proponent at the time of submission.',
  ]);
  await fx.addDocument(
    A,
    'val',
    [
      'Standard boilerplate: this document was prepared with the VCS project description template version 4.4 and ' +
        'all information is accurate to the best knowledge of the project proponent at the time of submission.',
      'The validation body confirms the planting density of 1,111 trees per hectare with spacing of 3 m x 3 m.',
    ],
    { title: 'VCS5533_validation.pdf', type: 'Validation Report' },
  );
  await fx.addDocument(B, 'mr', [
    'The second monitoring period covers 17/02/2016 to 01/10/2020 for the Eastern Plains forestry restoration project.',
    'Planting density of 1,111 trees per hectare with a spacing of 3 x 3 m is used in the Eastern Plains plantations.',
  ]);
  // The best match for several questions below, but never requested: it must never be cited.
  await fx.addDocument(OTHER, 'decoy', [
    'The crediting period of the project is 20 years from 15/07/2022 to 14/07/2042, crediting period crediting period.',
    'Planting density of 1,111 trees per hectare spacing 3 x 3 m planting density trees per hectare.',
  ]);
});
afterAll(async () => {
  await fx.close();
});

function service(over: Partial<SearchServiceOptions> = {}) {
  return createSearchService(searchOptions(fx, { records: fx.records, ...over }));
}

/** The fixture's page text store (SQLite, the fixture's database): the answer step reads page windows from it. */
async function pageTextStore(): Promise<DocumentTextStore> {
  const { createSqliteDocumentTextStore } = await import('../../src/adapters/sqlite/document-text-store.js');
  return createSqliteDocumentTextStore({ db: fx.db });
}

describe('search service', () => {
  it('answers with cited passages of the requested projects, with the CONTRACT response shape', async () => {
    const res = await service().search({ projects: [asRequested(A, 'verra'), asRequested(B)], query: 'What is the crediting period?' });
    expect(res.answerModel).toBe('extractive');
    expect(res.projects).toEqual([
      { projectId: 5533, registry: 'verra', indexedDocuments: 2 },
      { projectId: 9199, registry: 'CDM', indexedDocuments: 1 },
    ]);
    expect(res.citations.length).toBeGreaterThan(0);
    const first = res.citations[0];
    expect(first).toMatchObject({
      id: 1,
      projectId: 5533,
      registry: 'verra',
      documentTitle: 'pd.pdf',
      documentType: 'Project Description',
      page: 2,
    });
    expect(first?.uri).toBe('https://docs.example.org/5533/pd.pdf');
    expect(first?.text).toContain('15/07/2022');
    expect(first?.score).toBeGreaterThan(0);
    expect(first?.score).toBeLessThanOrEqual(1);
    res.citations.forEach((c, i) => expect(c.id).toBe(i + 1));
    for (let i = 1; i < res.citations.length; i++) {
      expect(res.citations[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(res.citations[i]?.score ?? 0);
    }
    expect(res.answer).toContain('15/07/2022');
    const ids = new Set(res.citations.map((c) => c.id));
    expect(extractMarkers(res.answer).length).toBeGreaterThan(0);
    for (const m of extractMarkers(res.answer)) expect(ids.has(m)).toBe(true);
  });

  it('reports projects without indexed documents, and unknown projects, with 0 and says so', async () => {
    const unknown = { registry: 'Verra', projectId: 999_999 };
    const res = await service().search({
      projects: [asRequested(A), asRequested(EMPTY), asRequested(unknown, 'VCS')],
      query: 'crediting period',
    });
    expect(res.projects).toEqual([
      { projectId: 5533, registry: 'Verra', indexedDocuments: 2 },
      { projectId: 777, registry: 'Verra', indexedDocuments: 0 },
      { projectId: 999999, registry: 'VCS', indexedDocuments: 0 },
    ]);
    expect(res.citations.length).toBeGreaterThan(0);
    expect(res.answer).toMatch(/No documents are indexed for Verra 777 and VCS 999999\.$/);
  });

  it('reports a project unknown to the record store as unindexed even if chunks exist for it', async () => {
    const ghost = { registry: 'Verra', projectId: 31337 };
    await fx.addDocument(ghost, 'g', ['crediting period of the ghost project']);
    const res = await service().search({ projects: [asRequested(ghost)], query: 'crediting period' });
    expect(res.projects).toEqual([{ projectId: 31337, registry: 'Verra', indexedDocuments: 0 }]);
    expect(res.citations).toEqual([]);
    const withoutRecords = await service({ records: undefined }).search({ projects: [asRequested(ghost)], query: 'crediting period' });
    expect(withoutRecords.projects[0]?.indexedDocuments).toBe(1);
  });

  it('returns topK citations (default 8) and counts a project requested twice once', async () => {
    const many = { registry: 'Verra', projectId: 1234 };
    await fx.addRecord(many);
    await fx.addDocument(
      many,
      'big',
      Array.from({ length: 30 }, (_, i) => `Page ${i + 1} reports forest carbon stock measurement number ${i * 7} in stratum ${i}.`),
    );
    const def = await service().search({
      projects: [asRequested(many), asRequested(many)],
      query: 'forest carbon stock measurement stratum',
    });
    expect(def.citations).toHaveLength(8);
    expect(def.projects).toHaveLength(1);
    const three = await service().search({ projects: [asRequested(many)], query: 'forest carbon stock', topK: 3 });
    expect(three.citations).toHaveLength(3);
    const fifty = await service().search({ projects: [asRequested(many)], query: 'forest carbon stock', topK: 50 });
    expect(fifty.citations).toHaveLength(30);
    const custom = await service({ defaultTopK: 2, maxTopK: 4 }).search({ projects: [asRequested(many)], query: 'forest' });
    expect(custom.citations).toHaveLength(2);
  });

  it('rejects an empty, wordless or overlong query and a topK outside 1..max with invalid_request naming the field', async () => {
    const s = service({ maxTopK: 50 });
    const cases: [Parameters<typeof s.search>[0], string][] = [
      [{ projects: [asRequested(A)], query: '   ' }, 'query'],
      [{ projects: [asRequested(A)], query: '?! ... --' }, 'query'],
      [{ projects: [asRequested(A)], query: 'x'.repeat(MAX_QUERY_CHARS + 1) }, 'query'],
      [{ projects: [asRequested(A)], query: 'q', topK: 0 }, 'topK'],
      [{ projects: [asRequested(A)], query: 'q', topK: 51 }, 'topK'],
      [{ projects: [asRequested(A)], query: 'q', topK: 2.5 }, 'topK'],
    ];
    for (const [req, field] of cases) {
      const err = await s.search(req).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('invalid_request');
      expect((err as AppError).message).toContain(field);
      expect((err as AppError).details[0]?.path).toBe(field);
    }
  });
});

describe('search service with an LLM summariser', () => {
  let server: OpenAIReplayServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('uses the embedding prepare() started for its question, and only for that question', async () => {
    const embedded: string[] = [];
    const counting: Embedder = { ...fx.embedder, embed: (texts, kind) => (embedded.push(...texts), fx.embedder.embed(texts, kind)) };
    const s = service({ embedder: counting });
    const projects = [asRequested(A)];
    const prepared = s.prepare?.('  What is the crediting period?  ');
    expect(prepared?.query).toBe('What is the crediting period?');
    const withPrepared = await s.search({ projects, query: 'What is the crediting period?', prepared });
    expect(embedded).toEqual(['What is the crediting period?']);
    expect(withPrepared.citations).toEqual((await service().search({ projects, query: 'What is the crediting period?' })).citations);
    // Handed to a search for another question, it is not used.
    await s.search({ projects, query: 'Where is the project?', prepared });
    expect(embedded).toEqual(['What is the crediting period?', 'Where is the project?']);
    // Questions search() refuses, and text-only searches, are not embedded.
    for (const q of ['', '   ', '?!', 'x'.repeat(2001)]) expect(s.prepare?.(q)).toBeUndefined();
    expect(s.prepare?.('What is the crediting period?', 'text')).toBeUndefined();
    expect(embedded).toHaveLength(2);
    // An embedder that throws at once (rather than rejecting) does not make prepare() throw.
    const throwing: Embedder = {
      ...fx.embedder,
      embed: () => {
        throw new Error('model not loaded');
      },
    };
    expect(service({ embedder: throwing }).prepare?.('What is the crediting period?')).toBeUndefined();
  });

  it('hands the index the query embedding while it is still being computed, so candidates are read meanwhile', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const slow: Embedder = { ...fx.embedder, embed: async (texts, kind) => (await gate, fx.embedder.embed(texts, kind)) };
    const calls: string[] = [];
    const watching: VectorIndex = {
      ...fx.index,
      searchVector(query, projects, topK) {
        calls.push(query instanceof Float32Array ? 'a vector' : 'a pending vector');
        return fx.index.searchVector(query, projects, topK);
      },
    };
    const search = service({ embedder: slow, index: watching }).search({
      projects: [asRequested(A)],
      query: 'What is the crediting period?',
    });
    await new Promise((r) => setTimeout(r, 20));
    // Called before the embedding is done.
    expect(calls).toEqual(['a pending vector']);
    release();
    expect((await search).citations.length).toBeGreaterThan(0);
  });

  it('writes the answer extractively, without calling the LLM, when the caller asks for an extractive answer', async () => {
    server = await startOpenAIReplayServer({ chatReply: 'The crediting period is 20 years [1].' });
    const chat = createOpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'k' });
    const request = { projects: [asRequested(A)], query: 'crediting period', topK: 3 };
    const res = await service({ summarizer: createLlmSummarizer(chat) }).search({ ...request, extractiveAnswer: true });
    expect(res.answerModel).toBe('extractive');
    expect(res.answer).toContain('15/07/2022');
    expect(server.requests.filter((r) => r.path.includes('chat'))).toEqual([]);
    // The same search answered by the LLM cites the same passages.
    const llm = await service({ summarizer: createLlmSummarizer(chat) }).search(request);
    expect(llm.answerModel).toBe('gpt-test');
    expect(llm.citations).toEqual(res.citations);
  });
});

describe('search service when the query embedder is down', () => {
  it('answers from full text in hybrid mode, and fails with a DependencyError in vector mode', async () => {
    const down = await startOpenAIReplayServer({
      script: {
        '/v1/embeddings': Array.from({ length: 4 }, () => ({ status: 503, body: openaiError('overloaded', null, 'server_error') })),
      },
    });
    try {
      const embedder = await createOpenAIEmbedder({ model: 'emb', baseURL: down.baseURL, apiKey: 'k', dimensions: 256, maxRetries: 0 });
      const s = service({ embedder });
      const hybrid = await s.search({ projects: [asRequested(A)], query: 'crediting period 15/07/2022' });
      expect(hybrid.citations[0]?.text).toContain('15/07/2022');
      const err = await s.search({ projects: [asRequested(A)], query: 'crediting period', mode: 'vector' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DependencyError);
      expect(down.requests.filter((r) => r.path === '/v1/embeddings').length).toBe(2);
    } finally {
      await down.close();
    }
  });
});

describe('evidence and abstention (CONTRACT 2)', () => {
  it('gives every citation a quote that is a verbatim substring of its text, and answers from the quotes', async () => {
    const res = await service().search({
      projects: [asRequested(A), asRequested(B)],
      query: 'What is the crediting period of the project?',
    });
    expect(res.answered).toBe(true);
    expect(res.citations.length).toBeGreaterThan(0);
    for (const c of res.citations) {
      expect(c.quote.length).toBeGreaterThan(0);
      expect(c.text).toContain(c.quote);
    }
    const first = res.citations.find((c) => c.text.includes('crediting period'));
    expect(first?.quote).toBe('The crediting period of the project is 20 years, from 15/07/2022 to 14/07/2042.');
    expect(res.answer).toContain('The crediting period of the project is 20 years, from 15/07/2022 to 14/07/2042 [');
    expect(res.answer.length).toBeLessThanOrEqual(600);
  });

  it('says first that an answer given on little evidence may answer the question only in part', async () => {
    const projects = [asRequested(A)];
    // The documents use every word of the question, but no sentence holds more than two of them: answered, on little
    // support.
    const weak = await service().search({
      projects,
      query: 'Which crediting period does the buffer calculation of the validation assume?',
    });
    expect(weak.answered).toBe(true);
    expect(weak.answer.startsWith(ANSWER_HEDGE)).toBe(true);
    expect(weak.answer).toContain('The crediting period of the project is 20 years, from 15/07/2022 to 14/07/2042 [');
    // The same passage, asked what it states, is the answer.
    const strong = await service().search({ projects, query: 'What is the crediting period of the project?' });
    expect(strong.answered).toBe(true);
    expect(strong.answer).toBe('The crediting period of the project is 20 years, from 15/07/2022 to 14/07/2042 [1].');
  });

  it('answers per project when asked, each project with its own citations', async () => {
    const res = await service().search({
      projects: [asRequested(A), asRequested(B, 'cdm')],
      query: 'What planting density in trees per hectare is used?',
      perProject: true,
      topK: 4,
    });
    const [a, b] = res.projects;
    // Each project is judged on up to 4 of its own passages (PER_PROJECT_CITATIONS), more than topK 4 over 2 gives.
    expect(a?.citationIds?.length).toBeGreaterThan(2);
    expect(a?.citationIds?.length).toBeLessThanOrEqual(4);
    expect(b?.citationIds?.length).toBeGreaterThan(0);
    for (const p of res.projects) {
      for (const id of p.citationIds ?? []) {
        expect(res.citations.find((c) => c.id === id)?.projectId).toBe(p.projectId);
      }
      expect(typeof p.answer).toBe('string');
      for (const id of extractMarkers(p.answer ?? '')) expect(p.citationIds).toContain(id);
    }
    expect(b?.answered).toBe(true);
    expect(b?.answer).toContain('1,111 trees per hectare');
    expect(res.answer).toMatch(/^Verra 5533: [\s\S]*\n\ncdm 9199: /);
    expect(res.answered).toBe(true);
  });

  it('reads the line a page window starts in whole, so the end of a running line is never a candidate', async () => {
    const texts = await pageTextStore();
    const NOTICE = { registry: 'CDM', projectId: 1 };
    await fx.addRecord(NOTICE);
    // Every page heads with a confidentiality notice over two lines (as GFL's PDD); then a table's lines without a
    // full stop, so that page 1's window, WINDOW_CHARS before its passage, starts at the notice's second sentence.
    const notice =
      'The information contained herein belongs exclusively to ACME. This information\nshall not be shared with any third party';
    const secondSentence = notice.indexOf('This information');
    const rowsLength = secondSentence + 10 + WINDOW_CHARS - (notice.length + 1);
    const row = (i: number): string => `Stream ${i + 1} flow rate and oxidation information recorded`;
    let rows = Array.from({ length: 8 }, (_, i) => row(i)).join('\n');
    for (let i = 8; rows.length + row(i).length + 1 <= rowsLength; i++) rows += `\n${row(i)}`;
    rows += ' and kept'.repeat(Math.ceil((rowsLength - rows.length) / 9)).slice(0, rowsLength - rows.length);
    const fact = 'Oxidation information is logged every hour by the plant operators.';
    const pages = [1, 2, 3, 4].map((n) => `${notice}\n${n === 1 ? `${rows}\n${fact}` : `Page ${n} describes the plant.`}`);
    const offset = pages[0]?.indexOf(fact) ?? -1;
    // (The window's start falls inside the notice's second sentence.)
    expect(offset - WINDOW_CHARS).toBeGreaterThan(secondSentence);
    expect(offset - WINDOW_CHARS).toBeLessThan(notice.length);
    await fx.addDocument(NOTICE, 'pdd', [fact, ...pages.slice(1)], { offsets: [offset, 0, 0, 0] });
    await texts.put(NOTICE, 'pdd', pages);
    const res = await service({ texts }).search({
      projects: [asRequested(NOTICE)],
      query: 'How often is the oxidation information logged?',
    });
    const cited = res.citations.find((c) => c.page === 1);
    expect(cited?.quote).toContain(fact);
    expect(cited?.quote).not.toContain('shall not be shared');
    // The window starts at "This information", the end of the notice's first line: judged with its line, it is furniture.
    expect(cited?.text.startsWith('This information\nshall not be shared')).toBe(false);
    expect(res.answer).not.toContain('shall not be shared');
    await texts.close();
  });
});
