import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIChatModel } from '../../../src/adapters/summarizers/openai.js';
import { createLlmSummarizer, UngroundedAnswerError } from '../../../src/adapters/summarizers/llm.js';
import type { CitedPassage } from '../../../src/ports/summarizer.js';
import { chatCompletionResponse, startOpenAIReplayServer, type OpenAIReplayServer } from '../../support/openai-replay-server.js';

const CHAT = '/v1/chat/completions';
const passages: CitedPassage[] = [
  { id: 1, documentTitle: 'PD.pdf', page: 9, text: 'The crediting period is 20 years, from 15/07/2022 to 14/07/2042.' },
  { id: 2, documentTitle: 'PD.pdf', page: 47, text: 'The non-permanence risk rating is 12 percent.' },
];

let server: OpenAIReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The summariser's checks over a real chat model: the OpenAI-compatible client against a replay server. */
function summarizer(s: OpenAIReplayServer, over: { timeoutMs?: number; maxRetries?: number } = {}) {
  return createLlmSummarizer(
    createOpenAIChatModel({ model: 'gpt-test', baseURL: s.baseURL, apiKey: 'sk-test', timeoutMs: 5_000, ...over }),
  );
}

describe('the LLM summariser', () => {
  it('removes markers that cite no passage', async () => {
    server = await startOpenAIReplayServer({ chatReply: 'It is 20 years [1] and rated 12% [2][5].' });
    const answer = await summarizer(server).summarize({ question: 'q', passages });
    expect(answer).toBe('It is 20 years [1] and rated 12% [2].');
  });

  it('adds markers to a marker-less answer when a passage clearly supports it', async () => {
    server = await startOpenAIReplayServer({ chatReply: 'The non-permanence risk rating is 12 percent.' });
    const answer = await summarizer(server).summarize({ question: 'risk?', passages });
    expect(answer).toBe('The non-permanence risk rating is 12 percent [2].');
  });

  it('gives the model each passage as its quote in context, and asks for cited sentences or "not found"', async () => {
    server = await startOpenAIReplayServer({ chatReply: 'The non-permanence risk rating is 12 percent [1].' });
    const filler = 'Section 4.2 describes the monitoring plan and the data to be collected by the field teams each year. '.repeat(6);
    const quote = 'The non-permanence risk rating is 12 percent.';
    const long: CitedPassage = { id: 1, documentTitle: 'PD.pdf', page: 47, text: `${filler}${quote} ${filler}`, quote };
    await summarizer(server).summarize({ question: 'What is the risk rating?', passages: [long], maxChars: 300 });
    const body = server.requests[0]?.body as { messages: { content: string }[] };
    const [system, user] = body.messages.map((m) => m.content);
    expect(user).toContain(quote);
    // About 160 characters of context on each side, cut at a word, instead of the whole 1,200-character passage.
    const block = user?.slice(user.indexOf('[1] PD.pdf, page 47:\n'), user.indexOf('\n\nAnswer the question')) ?? '';
    expect(block.length).toBeLessThan(500);
    expect(block).toMatch(/:\n\u2026\w.*\u2026$/s);
    expect(system).toMatch(/whole sentences/);
    expect(system).toMatch(/Not found in the documents\./);
    // The question comes last: small models attend most to the end of the prompt.
    expect(user).toMatch(/reply: Not found in the documents\.\nQuestion: What is the risk rating\?$/);
  });

  it('drops a sentence that the passage it cites does not support, and logs it', async () => {
    server = await startOpenAIReplayServer({
      chatReply:
        'The crediting period is 20 years [1]. Lead validator Mariana Ospina signed the report [1]. The risk rating is 15 percent [2].',
    });
    const lines: Record<string, unknown>[] = [];
    const { pino } = await import('pino');
    const log = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) });
    const s = createLlmSummarizer(createOpenAIChatModel({ model: 'gpt-test', baseURL: server.baseURL, apiKey: 'k' }), { logger: log });
    expect(await s.summarize({ question: 'q', passages })).toBe('The crediting period is 20 years [1].');
    const warn = lines.find((l) => /not supported/.test(String(l.msg)));
    expect(warn?.model).toBe('gpt-test');
    expect(warn?.dropped).toEqual([
      { sentence: 'Lead validator Mariana Ospina signed the report [1].', cites: [1], share: 0, missing: [] },
      { sentence: 'The risk rating is 15 percent [2].', cites: [2], share: 0.75, missing: ['15'] },
    ]);
  });

  it('falls back (UngroundedAnswerError) when no sentence is supported, or when the model says the passages do not answer', async () => {
    server = await startOpenAIReplayServer({
      script: {
        [CHAT]: [
          { status: 200, body: chatCompletionResponse('The project was validated by DNV in 2019 [1]. It plants teak [2].', 'gpt-test') },
          { status: 200, body: chatCompletionResponse('Not found in the documents.', 'gpt-test') },
        ],
      },
    });
    const s = summarizer(server);
    const unsupported = await s.summarize({ question: 'q', passages }).catch((e: unknown) => e);
    expect(unsupported).toBeInstanceOf(UngroundedAnswerError);
    expect((unsupported as UngroundedAnswerError).reason).toBe('unsupported');
    const notFound = await s.summarize({ question: 'q', passages }).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(UngroundedAnswerError);
    expect((notFound as UngroundedAnswerError).reason).toBe('not_found');
  });

  it('cuts a reply that loops on a sentence', async () => {
    const looped = `${'The crediting period is 20 years [1]. '.repeat(12)}The crediting`;
    server = await startOpenAIReplayServer({ chatReply: looped });
    expect(await summarizer(server).summarize({ question: 'q', passages })).toBe('The crediting period is 20 years [1].');
  });

  it('rejects an ungrounded marker-less answer and an empty one', async () => {
    server = await startOpenAIReplayServer({
      script: {
        [CHAT]: [
          { status: 200, body: chatCompletionResponse('Bananas grow in tropical climates.', 'gpt-test') },
          { status: 200, body: chatCompletionResponse('  ', 'gpt-test') },
        ],
      },
    });
    const s = summarizer(server);
    await expect(s.summarize({ question: 'q', passages })).rejects.toBeInstanceOf(UngroundedAnswerError);
    await expect(s.summarize({ question: 'q', passages })).rejects.toThrow(/empty answer/);
  });
});
