import { afterEach, describe, expect, it } from 'vitest';
import { createLlmReranker, parseRanking } from '../../../src/adapters/rerankers/llm.js';
import { createPassThroughReranker } from '../../../src/adapters/rerankers/none.js';
import { buildReranker } from '../../../src/deps.js';
import { createOpenAIChatModel } from '../../../src/adapters/summarizers/openai.js';
import { createLogger } from '../../../src/logger.js';
import type { ScoredChunk } from '../../../src/ports/vector-index.js';
import {
  chatCompletionResponse,
  openaiError,
  startOpenAIReplayServer,
  type OpenAIReplayServer,
} from '../../support/openai-replay-server.js';

const logger = createLogger({ level: 'silent', name: 'test' });
const CHAT = '/v1/chat/completions';

function chunk(id: string): ScoredChunk {
  return {
    id,
    registry: 'Verra',
    projectId: 1,
    documentId: 'd',
    documentTitle: 't',
    documentType: 'Other',
    uri: 'u',
    page: 1,
    offset: 0,
    text: `passage ${id}`,
    score: 0.5,
  };
}
const candidates = ['a', 'b', 'c', 'd'].map(chunk);

let server: OpenAIReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('rerankers', () => {
  it('pass-through keeps the fused order and cuts to topK', async () => {
    const r = createPassThroughReranker();
    expect(r.id).toBe('none');
    expect((await r.rerank('q', candidates, 2)).map((c) => c.id)).toEqual(['a', 'b']);
    expect(await r.rerank('q', candidates, 0)).toEqual([]);
  });

  it('parseRanking keeps valid passage numbers once, in order', () => {
    expect(parseRanking('3, 1, 3, 9, 0, 2', 4)).toEqual([3, 1, 2]);
    expect(parseRanking('none of them', 4)).toEqual([]);
  });

  it('reorders by the model and appends the candidates it left out', async () => {
    server = await startOpenAIReplayServer({ chatReply: 'Ranking: 3, 1' });
    const chat = createOpenAIChatModel({ model: 'gpt-rank', baseURL: server.baseURL, apiKey: 'k' });
    const r = createLlmReranker({ chat, logger, window: 3 });
    expect(r.id).toBe('llm:gpt-rank');
    expect((await r.rerank('question?', candidates, 4)).map((c) => c.id)).toEqual(['c', 'a', 'b', 'd']);
    const body = server.requests[0]?.body as { messages: { content: string }[] };
    expect(body.messages[1]?.content).toContain('[3] passage c');
    expect(body.messages[1]?.content).not.toContain('passage d');
    expect(body.messages[1]?.content).toContain('Question: question?');
  });

  it('keeps the fused order when the model fails or names nothing', async () => {
    server = await startOpenAIReplayServer({
      script: {
        [CHAT]: [
          { status: 400, body: openaiError('bad request') },
          { status: 200, body: chatCompletionResponse('I cannot rank these.', 'gpt-rank') },
        ],
      },
    });
    const chat = createOpenAIChatModel({ model: 'gpt-rank', baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    const r = createLlmReranker({ chat, logger });
    expect((await r.rerank('q', candidates, 3)).map((c) => c.id)).toEqual(['a', 'b', 'c']);
    expect((await r.rerank('q', candidates, 3)).map((c) => c.id)).toEqual(['a', 'b', 'c']);
    expect(server.requests).toHaveLength(2);
  });

  it('buildReranker needs a chat model for RERANKER=llm', () => {
    expect(buildReranker({ RERANKER: 'none' }, logger, null).id).toBe('none');
    expect(() => buildReranker({ RERANKER: 'llm' }, logger, null)).toThrow(/RERANKER=llm needs a chat model/);
  });
});
