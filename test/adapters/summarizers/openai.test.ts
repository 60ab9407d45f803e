import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIChatModel } from '../../../src/adapters/summarizers/openai.js';
import { createLlmSummarizer } from '../../../src/adapters/summarizers/llm.js';
import { buildSummarizer } from '../../../src/deps.js';
import { DependencyError } from '../../../src/errors.js';
import { createLogger } from '../../../src/logger.js';
import type { CitedPassage } from '../../../src/ports/summarizer.js';
import {
  chatCompletionResponse,
  openaiError,
  startOpenAIReplayServer,
  type OpenAIReplayServer,
} from '../../support/openai-replay-server.js';

const CHAT = '/v1/chat/completions';
const logger = createLogger({ level: 'silent', name: 'test' });
const passages: CitedPassage[] = [
  { id: 1, documentTitle: 'PD.pdf', page: 9, text: 'The crediting period is 20 years, from 15/07/2022 to 14/07/2042.' },
  { id: 2, documentTitle: 'PD.pdf', page: 47, text: 'The non-permanence risk rating is 12 percent.' },
];

let server: OpenAIReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function summarizer(s: OpenAIReplayServer, over: { timeoutMs?: number; maxRetries?: number } = {}) {
  return createLlmSummarizer(
    createOpenAIChatModel({ model: 'gpt-test', baseURL: s.baseURL, apiKey: 'sk-test', timeoutMs: 5_000, ...over }),
  );
}

describe('OpenAI-compatible summariser', () => {
  it('sends a prompt restricted to the numbered passages and returns the cited answer', async () => {
    server = await startOpenAIReplayServer({ chatReply: 'The crediting period is 20 years [1].' });
    const s = summarizer(server);
    expect(s.model).toBe('gpt-test');
    const answer = await s.summarize({ question: 'How long is the crediting period?', passages, maxChars: 300 });
    expect(answer).toBe('The crediting period is 20 years [1].');

    expect(server.requests).toHaveLength(1);
    const req = server.requests[0];
    expect(req?.headers.authorization).toBe('Bearer sk-test');
    const body = req?.body as { model: string; temperature: number; max_tokens: number; messages: { role: string; content: string }[] };
    expect(body.model).toBe('gpt-test');
    expect(body.temperature).toBe(0);
    expect(body.max_tokens).toBeGreaterThan(50);
    const [system, user] = body.messages;
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/ONLY the numbered passages/);
    expect(system?.content).toMatch(/\[1\]/);
    expect(user?.content).toContain('[1] PD.pdf, page 9:\nThe crediting period is 20 years');
    expect(user?.content).toContain('[2] PD.pdf, page 47:');
    expect(user?.content).toMatch(/Question: How long is the crediting period\?/);
  });

  it('retries a 429 honouring retry-after and a 500, then succeeds', async () => {
    server = await startOpenAIReplayServer({
      script: {
        [CHAT]: [
          { status: 429, headers: { 'retry-after': '0' }, body: openaiError('Rate limit reached', 'rate_limit_exceeded', 'requests') },
          { status: 500, body: openaiError('The server had an error', null, 'server_error') },
          { status: 200, body: chatCompletionResponse('The crediting period is 20 years [1].', 'gpt-test') },
        ],
      },
    });
    const answer = await summarizer(server).summarize({ question: 'q', passages });
    expect(answer).toBe('The crediting period is 20 years [1].');
    expect(server.requests.map((r) => r.status)).toEqual([429, 500, 200]);
  });

  it('gives up after its retries with a DependencyError naming the model and status', async () => {
    server = await startOpenAIReplayServer({
      script: {
        [CHAT]: [1, 2, 3].map(() => ({
          status: 503,
          headers: { 'retry-after': '0' },
          body: openaiError('overloaded', null, 'server_error'),
        })),
      },
    });
    const err = await summarizer(server, { maxRetries: 2 })
      .summarize({ question: 'q', passages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as DependencyError).message).toMatch(/gpt-test: HTTP 503/);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400 and says so', async () => {
    server = await startOpenAIReplayServer({
      script: { [CHAT]: [{ status: 400, body: openaiError("'messages' is too long", 'context_length_exceeded') }] },
    });
    const err = await summarizer(server)
      .summarize({ question: 'q', passages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as DependencyError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('times out a server that does not answer in time, retries included', async () => {
    server = await startOpenAIReplayServer({
      script: { [CHAT]: [{ status: 200, delayMs: 3_000, body: chatCompletionResponse('late [1]', 'gpt-test') }] },
    });
    const started = Date.now();
    const err = await summarizer(server, { timeoutMs: 400, maxRetries: 3 })
      .summarize({ question: 'q', passages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as Error).message).toMatch(/no answer within 400 ms/);
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('reports a malformed body as a clear error', async () => {
    server = await startOpenAIReplayServer({ script: { [CHAT]: [{ status: 200, body: { id: 'x', choices: [] } }] } });
    await expect(summarizer(server).summarize({ question: 'q', passages })).rejects.toThrow(/unexpected chat completion body/);
  });

  it('is what buildSummarizer builds for LLM=openai, and extractive otherwise', async () => {
    server = await startOpenAIReplayServer({ chatReply: 'The crediting period is 20 years [1].' });
    const base = { OPENAI_API_KEY: 'k', LLM_TIMEOUT_MS: 5_000 } as const;
    const s = await buildSummarizer({ ...base, LLM: { kind: 'openai', model: 'gpt-x' }, OPENAI_BASE_URL: server.baseURL }, logger);
    expect(s.model).toBe('gpt-x');
    expect(await s.summarize({ question: 'q', passages })).toBe('The crediting period is 20 years [1].');
    const e = await buildSummarizer({ ...base, LLM: { kind: 'extractive' }, OPENAI_BASE_URL: undefined }, logger);
    expect(e.model).toBe('extractive');
    await expect(
      buildSummarizer({ ...base, LLM: { kind: 'local', modelPath: '/nonexistent/model.gguf' }, OPENAI_BASE_URL: undefined }, logger),
    ).rejects.toThrow(/model file not found: \/nonexistent\/model.gguf/);
  });
});
