import { afterEach, describe, expect, it } from 'vitest';
import { createExtractiveReader } from '../../../src/adapters/readers/extractive.js';
import { createHttpReader } from '../../../src/adapters/readers/http.js';
import { createLlmReader } from '../../../src/adapters/readers/llm.js';
import { createRerankClient } from '../../../src/adapters/rerankers/http.js';
import { createOpenAIChatModel } from '../../../src/adapters/summarizers/openai.js';
import { buildReader } from '../../../src/deps.js';
import { createLogger } from '../../../src/logger.js';
import type { ReadRequest } from '../../../src/ports/reader.js';
import { openaiError, startOpenAIReplayServer, type OpenAIReplayServer } from '../../support/openai-replay-server.js';
import { startRerankReplayServer, type RerankReplayServer } from '../../support/rerank-replay-server.js';

const logger = createLogger({ level: 'silent', name: 'test' });

// Two passages as a validation report and a project description state them.
const request: ReadRequest = {
  question: 'Which laboratory analysed the soil samples?',
  passages: [
    {
      id: 1,
      text: 'Soil samples were taken at 30 cm depth in every stratum. The samples were analysed by the Eurofins laboratory in Wolverhampton.',
      score: 0.9,
    },
    {
      id: 2,
      text: 'The project area covers 1,433 ha of former grazing land. Rubber trees were planted between 2006 and 2010.',
      score: 0.4,
    },
  ],
  scope: ['Lowick Manor soil carbon project'],
};
const ANSWER = 'The samples were analysed by the Eurofins laboratory in Wolverhampton.';

let rerank: RerankReplayServer | undefined;
let openai: OpenAIReplayServer | undefined;
afterEach(async () => {
  await rerank?.close();
  await openai?.close();
  rerank = undefined;
  openai = undefined;
});

describe('the extractive reader', () => {
  it('quotes the sentence that answers, verbatim, and answers', async () => {
    const r = await createExtractiveReader().read(request);
    expect(r.answered).toBe(true);
    expect(r.quotes.find((q) => q.passageId === 1)?.text).toContain(ANSWER);
  });
});

describe('the cross-encoder reader (READER=http) over a real HTTP exchange', () => {
  it("sends the passages' sentences to /rerank and quotes the one it finds most relevant", async () => {
    rerank = await startRerankReplayServer();
    const client = createRerankClient({ url: `${rerank.baseUrl}/rerank`, api: 'tei', logger });
    const reader = createHttpReader({ client, logger, minRelevance: 0.3 });
    const r = await reader.read(request);
    const sent = rerank.requests[0]?.body as { query: string; texts: string[] };
    expect(sent.query).toBe(request.question);
    expect(sent.texts).toContain(ANSWER);
    expect(r.quotes.find((q) => q.passageId === 1)?.text).toBe(ANSWER);
    expect(r.answered).toBe(true);
  });

  it('refuses when no sentence is relevant enough, and reads extractively when the server fails', async () => {
    rerank = await startRerankReplayServer();
    const client = createRerankClient({ url: `${rerank.baseUrl}/rerank`, api: 'tei', logger, retries: 0 });
    rerank.enqueue('/rerank', { status: 200, body: [0, 1, 2, 3].map((index) => ({ index, score: 0.01 })) });
    const low = await createHttpReader({ client, logger }).read(request);
    expect(low.answered).toBe(false);
    rerank.enqueue('/rerank', { status: 500, body: { error: 'down' } });
    const fallback = await createHttpReader({ client, logger }).read(request);
    expect(fallback.answered).toBe(true);
    expect(fallback.quotes.find((q) => q.passageId === 1)?.text).toContain(ANSWER);
  });
});

describe('the LLM reader (READER=llm) over a real HTTP exchange', () => {
  it('shows numbered sentences and quotes the ones the model names, verbatim', async () => {
    openai = await startOpenAIReplayServer({
      chatReply: (messages) => {
        const user = String(messages[1]?.content ?? '');
        const line = user.split('\n').find((l) => l.includes('Eurofins'));
        return line?.match(/^\[(\d+)\]/u)?.[1] ?? 'none';
      },
    });
    const chat = createOpenAIChatModel({ model: 'gpt-read', baseURL: openai.baseURL, apiKey: 'k' });
    const r = await createLlmReader({ chat, logger }).read(request);
    expect(r.answered).toBe(true);
    expect(r.quotes).toEqual([expect.objectContaining({ passageId: 1, text: ANSWER })]);
  });

  it('refuses when the model names none, and reads extractively when it fails', async () => {
    openai = await startOpenAIReplayServer({ chatReply: 'none' });
    const chat = createOpenAIChatModel({ model: 'gpt-read', baseURL: openai.baseURL, apiKey: 'k', maxRetries: 0 });
    expect((await createLlmReader({ chat, logger }).read(request)).answered).toBe(false);
    openai.enqueue('/v1/chat/completions', { status: 400, body: openaiError('bad request') });
    const fallback = await createLlmReader({ chat, logger }).read(request);
    expect(fallback.answered).toBe(true);
  });
});

describe('buildReader', () => {
  it('builds the reader the configuration names, and says what each needs', () => {
    expect(buildReader({ READER: 'extractive', READER_MIN_RELEVANCE: 0.5 }, logger, null).id).toBe('extractive');
    expect(() => buildReader({ READER: 'http', READER_MIN_RELEVANCE: 0.5 }, logger, null)).toThrow(/RERANKER_URL/);
    expect(() => buildReader({ READER: 'llm', READER_MIN_RELEVANCE: 0.5 }, logger, null)).toThrow(/chat model/);
    expect(buildReader({ READER: 'http', READER_MIN_RELEVANCE: 0.5, RERANKER_URL: 'http://127.0.0.1:9/rerank' }, logger, null).id).toBe(
      'reader-http:tei',
    );
  });
});
