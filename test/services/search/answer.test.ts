import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLlmSummarizer } from '../../../src/adapters/summarizers/llm.js';
import { createOpenAIChatModel } from '../../../src/adapters/summarizers/openai.js';
import { extractMarkers } from '../../../src/domain/markers.js';
import type { RequestedProject } from '../../../src/domain/project-ref.js';
import type { ReadResult } from '../../../src/ports/reader.js';
import type { Summarizer } from '../../../src/ports/summarizer.js';
import { ANSWER_HEDGE, nothingIndexed, writeAnswer } from '../../../src/services/search/answer.js';
import { passageReader, placeQuotes, readWindows, type ReadPassage } from '../../../src/services/search/read.js';
import { rankPassages, toCitations } from '../../../src/services/search/retrieve.js';
import { resolveSettings, type SearchContext, type SearchSettings } from '../../../src/services/search/settings.js';
import type { SearchServiceOptions } from '../../../src/services/search/types.js';
import { openaiError, startOpenAIReplayServer, type OpenAIReplayServer } from '../../support/openai-replay-server.js';
import { createSearchFixture, searchOptions, type SearchFixture } from '../support/fixtures.js';
import { asRequested, capturingLogger, contextFor } from './support/context.js';

/**
 * The answer stage over passages read by the earlier stages (SQLite index, extractive reader): the answer when
 * nothing is indexed, when nothing matches, when the passages do not answer, the hedge, per-project answers, and an
 * LLM summariser's failures.
 */
const A = { registry: 'Verra', projectId: 5533 };
const B = { registry: 'CDM', projectId: 9199 };
const EMPTY = { registry: 'Verra', projectId: 777 };
const PERIOD = 'The crediting period of the project is 20 years, from 15/07/2022 to 14/07/2042.';

let fx: SearchFixture;
beforeAll(async () => {
  fx = await createSearchFixture();
  await fx.addDocument(A, 'pd', [
    'Project to afforest degraded and fallow indigenously owned lands in West Bengal, India, under methodology VM0047.',
    `${PERIOD} The first instance is in Purulia.`,
    'The non-permanence risk rating assigned for the buffer calculation is 12 percent.',
  ]);
  await fx.addDocument(B, 'mr', [
    'The second monitoring period covers 17/02/2016 to 01/10/2020 for the Eastern Plains forestry restoration project.',
    'Planting density of 1,111 trees per hectare with a spacing of 3 x 3 m is used in the Eastern Plains plantations.',
  ]);
});
afterAll(async () => {
  await fx.close();
});

const settings = (over: Partial<SearchServiceOptions> = {}) => resolveSettings(searchOptions(fx, over));

/** The passages the earlier stages hand the answer stage, as search.ts chains them. */
async function readFor(
  s: SearchSettings,
  ctx: SearchContext,
): Promise<{ read: ReadPassage[]; reading: ReadResult; readOf: (rs: readonly ReadPassage[]) => Promise<ReadResult> }> {
  const ranked = await rankPassages(s, ctx, null);
  const read = await readWindows(s, toCitations(ranked, ctx.projects), ranked);
  const readOf = passageReader(s, ctx);
  const reading = await readOf(read);
  placeQuotes(read, reading.quotes);
  return { read, reading, readOf };
}

async function answer(s: SearchSettings, ctx: SearchContext) {
  const { read, reading, readOf } = await readFor(s, ctx);
  return { reading, read, written: await writeAnswer(s, ctx, read, reading, readOf) };
}

const text = (query: string, projects: RequestedProject[], over: Parameters<typeof contextFor>[3] = {}) => {
  const s = settings();
  return { s, ctx: contextFor(s, query, projects, { mode: 'text', ...over }) };
};

describe('nothingIndexed', () => {
  it('answers, citing nothing, that there is nothing to answer from', () => {
    const s = settings();
    const ctx = contextFor(s, 'crediting period', [], { unindexed: [asRequested(EMPTY)] });
    expect(nothingIndexed(s, ctx)).toEqual({
      answer: 'No documents are indexed for Verra 777, so there is nothing to answer from.',
      answered: false,
      citations: [],
      answerModel: 'extractive',
      projects: [{ projectId: 777, registry: 'Verra', indexedDocuments: 0 }],
    });
  });

  it('names up to five projects one by one, and a longer list by its first three and a count', () => {
    const s = settings();
    const projects = (n: number) => Array.from({ length: n }, (_, i) => asRequested({ registry: 'Verra', projectId: 90_001 + i }));
    const answerFor = (n: number) => nothingIndexed(s, contextFor(s, 'q', [], { unindexed: projects(n) })).answer;
    expect(answerFor(2)).toBe(
      'None of the requested projects (Verra 90001 and Verra 90002) has indexed documents, so there is nothing to answer from.',
    );
    expect(answerFor(5)).toMatch(/^None of the requested projects \(Verra 90001, Verra 90002, Verra 90003, Verra 90004 and Verra 90005\)/);
    expect(answerFor(12)).toBe(
      'None of the requested projects (Verra 90001, Verra 90002, Verra 90003 and 9 other projects) has indexed documents, ' +
        'so there is nothing to answer from.',
    );
  });

  it("with perProject, writes each project's own answer onto its state, without citations", () => {
    const s = settings();
    const ctx = contextFor(s, 'q', [], { unindexed: [asRequested(EMPTY, 'verra')], perProject: true });
    const res = nothingIndexed(s, ctx);
    expect(res.projects).toEqual([
      {
        projectId: 777,
        registry: 'verra',
        indexedDocuments: 0,
        answer: 'No documents are indexed for verra 777.',
        answered: false,
        citationIds: [],
      },
    ]);
    expect(res.answered).toBe(false);
  });
});

describe('writeAnswer', () => {
  it('answers from the quotes with markers of existing citations, and names the unindexed projects after it', async () => {
    const { s, ctx } = text('What is the crediting period of the project?', [asRequested(A)], { unindexed: [asRequested(EMPTY)] });
    const { written, read } = await answer(s, ctx);
    expect(written.answered).toBe(true);
    expect(written.model).toBe('extractive');
    expect(written.text).toBe(`${PERIOD.slice(0, -1)} [1].\n\nNo documents are indexed for Verra 777.`);
    const ids = read.map((r) => r.citation.id);
    for (const m of extractMarkers(written.text)) expect(ids).toContain(m);
  });

  it('says that nothing matched when there is no passage, naming the requested types when the request named some', async () => {
    const s = settings();
    const plain = await writeAnswer(s, contextFor(s, 'q', [asRequested(A)]), [], { quotes: [], support: 0, answered: false }, async () => {
      throw new Error('not read');
    });
    expect(plain).toEqual({
      text: 'The indexed documents of the requested projects contain no passage that matches the question.',
      model: 'extractive',
      answered: false,
    });
    const typed = await writeAnswer(
      s,
      contextFor(s, 'q', [asRequested(A)], { documentTypes: ['Monitoring Report'], unindexed: [asRequested(EMPTY)] }),
      [],
      { quotes: [], support: 0, answered: false },
      async () => ({ quotes: [], support: 0, answered: false }),
    );
    expect(typed.text).toBe(
      'The indexed documents of the requested types contain no passage that matches the question.\n\nNo documents are indexed for Verra 777.',
    );
  });

  it('says plainly that the documents do not answer when the reader finds no answer, naming the searched projects', async () => {
    const question = 'At what price per credit, and to which buyer, were offtake agreements signed?';
    const one = text(question, [asRequested(A)]);
    const { written, reading } = await answer(one.s, one.ctx);
    expect(reading.answered).toBe(false);
    expect(written).toEqual({
      text: 'The indexed documents of Verra 5533 do not appear to answer this question; the closest passages found are cited for checking.',
      model: 'extractive',
      answered: false,
    });
    const two = text(question, [asRequested(A), asRequested(B, 'cdm')]);
    expect((await answer(two.s, two.ctx)).written.text).toMatch(
      /^The indexed documents of Verra 5533 and cdm 9199 do not appear to answer/,
    );
  });

  it('puts the hedge first exactly when the support is below hedgedSupport', async () => {
    const s0 = settings();
    const ctx = contextFor(s0, 'What is the crediting period of the project?', [asRequested(A)], { mode: 'text' });
    const { read, reading, readOf } = await readFor(s0, ctx);
    expect(reading.answered).toBe(true);
    const plain = `${PERIOD.slice(0, -1)} [1].`;
    const at = (hedgedSupport: number) => {
      const s = settings({ tuning: { hedgedSupport } });
      return writeAnswer(s, { ...ctx, summarizer: s.opts.summarizer }, read, reading, readOf);
    };
    expect((await at(reading.support)).text).toBe(plain);
    expect((await at(reading.support + 1e-9)).text).toBe(`${ANSWER_HEDGE} ${plain}`);
    // An unanswered question is not hedged: it says it is not answered.
    const notAnswered = await writeAnswer(settings({ tuning: { hedgedSupport: 1 } }), ctx, read, { ...reading, answered: false }, readOf);
    expect(notAnswered.text.startsWith(ANSWER_HEDGE)).toBe(false);
  });

  it("with perProject, answers each project on its own citations, and the overall answer names each project's", async () => {
    const { s, ctx } = text('What planting density in trees per hectare is used?', [asRequested(A), asRequested(B, 'cdm')], {
      perProject: true,
      topK: 4,
      unindexed: [asRequested(EMPTY)],
    });
    const { written, read } = await answer(s, ctx);
    const [a, b, empty] = ctx.states;
    expect(b).toMatchObject({ answered: true });
    expect(b?.answer).toContain('1,111 trees per hectare');
    // Verra 5533's documents do not say: its answer says so, judged on its own passages.
    expect(a?.answered).toBe(false);
    expect(a?.answer).toMatch(/^The indexed documents of Verra 5533 do not appear to answer/);
    for (const state of [a, b]) {
      for (const id of state?.citationIds ?? []) expect(read.find((r) => r.citation.id === id)?.citation.projectId).toBe(state?.projectId);
      for (const id of extractMarkers(state?.answer ?? '')) expect(state?.citationIds).toContain(id);
    }
    expect((a?.citationIds?.length ?? 0) + (b?.citationIds?.length ?? 0)).toBe(read.length);
    expect(empty).toMatchObject({ answer: 'No documents are indexed for Verra 777.', answered: false, citationIds: [] });
    expect(written.answered).toBe(true);
    expect(written.model).toBe('extractive');
    expect(written.text).toMatch(
      /^Verra 5533: The indexed documents [\s\S]*\n\ncdm 9199: [\s\S]*\n\nNo documents are indexed for Verra 777\.$/,
    );
  });
});

describe('writeAnswer with an LLM summariser', () => {
  let server: OpenAIReplayServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const llm = async (script: Parameters<typeof startOpenAIReplayServer>[0]): Promise<Summarizer> => {
    server = await startOpenAIReplayServer(script);
    return createLlmSummarizer(createOpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 }));
  };
  const ask = async (summarizer: Summarizer, query: string, over: Partial<SearchServiceOptions> = {}) => {
    const s = settings({ summarizer, ...over });
    return answer(s, contextFor(s, query, [asRequested(A)], { mode: 'text', topK: 3 }));
  };

  it('reports the model and removes markers that refer to no citation', async () => {
    const { written } = await ask(await llm({ chatReply: 'The crediting period is 20 years [1][42].' }), 'crediting period');
    expect(written).toEqual({ text: 'The crediting period is 20 years [1].', model: 'gpt-test', answered: true });
  });

  it('puts the hedge before an LLM answer given on little evidence too', async () => {
    const summarizer = await llm({ chatReply: 'The crediting period is 20 years [1].' });
    // Every answer here is on little evidence: the hedge threshold is above any support.
    const { written, reading } = await ask(summarizer, 'What is the crediting period?', { tuning: { hedgedSupport: 1.01 } });
    expect(reading.answered).toBe(true);
    expect(written).toEqual({ text: `${ANSWER_HEDGE} The crediting period is 20 years [1].`, model: 'gpt-test', answered: true });
  });

  it('falls back to the extractive answer when the LLM fails, and logs why', async () => {
    const summarizer = await llm({
      script: { '/v1/chat/completions': [{ status: 500, body: openaiError('boom', null, 'server_error') }] },
    });
    const { lines, logger } = capturingLogger();
    const { written } = await ask(summarizer, 'crediting period', { logger });
    expect(written.model).toBe('extractive');
    expect(written.text).toContain('15/07/2022');
    const warn = lines.find((l) => l.msg === 'summariser failed; answering extractively');
    expect(warn?.model).toBe('gpt-test');
    expect(String(warn?.err)).toMatch(/HTTP 500/);
  });

  it('falls back when a summariser answers without any valid marker', async () => {
    const broken: Summarizer = {
      model: 'broken',
      async summarize() {
        throw new Error('no grounded answer');
      },
      async close() {},
    };
    const { written } = await ask(broken, 'risk rating buffer');
    expect(written.model).toBe('extractive');
    expect(written.text).toContain('12 percent');
  });
});
