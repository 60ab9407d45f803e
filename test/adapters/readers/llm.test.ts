import { afterEach, describe, expect, it } from 'vitest';
import { createLlmReader } from '../../../src/adapters/readers/llm.js';
import { createOpenAIChatModel } from '../../../src/adapters/summarizers/openai.js';
import { createLogger } from '../../../src/logger.js';
import { openaiError, startOpenAIReplayServer, type OpenAIReplayServer } from '../../support/openai-replay-server.js';
import { ANSWER, request } from './request.js';

const logger = createLogger({ level: 'silent', name: 'test' });

let openai: OpenAIReplayServer | undefined;
afterEach(async () => {
  await openai?.close();
  openai = undefined;
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
