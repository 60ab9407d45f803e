import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbedderInputError } from '../../../src/adapters/embedders/common.js';
import { createOpenAIEmbedder } from '../../../src/adapters/embedders/openai.js';
import { DependencyError } from '../../../src/errors.js';
import { embeddingsResponse, openaiError, startOpenAIReplayServer, type OpenAIReplayServer } from '../../support/openai-replay-server.js';
import { cosine, norm } from './helpers.js';

const EMB = '/v1/embeddings';
const MODEL = 'text-embedding-3-small';

describe('OpenAI-compatible embedder against a replaying HTTP server', () => {
  let server: OpenAIReplayServer;

  beforeEach(async () => {
    server = await startOpenAIReplayServer({ embeddingDimensions: 8 });
  });
  afterEach(async () => {
    await server.close();
  });

  it('learns its dimensions from one probe request and records them in its id', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, apiKey: 'sk-test' });
    expect(e.dimensions).toBe(8);
    expect(e.id).toBe('openai:text-embedding-3-small@8');
    expect(e.maxInputTokens).toBe(8191);
    expect(server.requests).toHaveLength(1);
    const probe = server.requests[0];
    expect(probe?.path).toBe(EMB);
    expect(probe?.headers.authorization).toBe('Bearer sk-test');
    expect(probe?.body).toMatchObject({ model: MODEL, encoding_format: 'float' });
  });

  it('asks for configured dimensions and needs no probe', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 16 });
    expect(server.requests).toHaveLength(0);
    expect(e.id).toBe('openai:text-embedding-3-small@16');
    const [v] = await e.embed(['forest carbon']);
    expect(v).toHaveLength(16);
    expect(server.requests[0]?.body).toMatchObject({ dimensions: 16, input: ['forest carbon'] });
  });

  it('returns [] without a request, and rejects blank text before sending anything', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8 });
    expect(await e.embed([])).toEqual([]);
    await expect(e.embed(['fine', ''])).rejects.toThrow(EmbedderInputError);
    expect(server.requests).toHaveLength(0);
  });

  it('orders vectors by index and normalises them, whatever the server sends', async () => {
    const e = await createOpenAIEmbedder({ model: 'local-model', baseURL: server.baseURL, dimensions: 3 });
    const body = embeddingsResponse(
      [
        [0, 0, 2],
        [3, 4, 0],
      ],
      'local-model',
    ) as { data: Array<{ index: number }> };
    body.data.reverse(); // index 1 first
    server.enqueue(EMB, { status: 200, body });
    const [a, b] = await e.embed(['first', 'second']);
    expect(Array.from(a as Float32Array)).toEqual([0, 0, 1]);
    expect(Array.from(b as Float32Array).map((x) => Number(x.toFixed(6)))).toEqual([0.6, 0.8, 0]);
    expect(e.maxInputTokens).toBe(512);
  });

  it('splits work into requests of at most maxBatchSize inputs', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8, maxBatchSize: 3 });
    const texts = Array.from({ length: 7 }, (_, i) => `text ${i} about peat`);
    const v = await e.embed(texts);
    expect(v).toHaveLength(7);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([3, 3, 1]);
    for (const x of v) expect(norm(x)).toBeCloseTo(1, 5);
    // In order: the same text embeds the same wherever it sits.
    const [again] = await e.embed(['text 5 about peat']);
    expect(cosine(again as Float32Array, v[5] as Float32Array)).toBeCloseTo(1, 6);
  });

  it('closes a request at maxBatchTokens estimated tokens too, in order', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8, maxBatchSize: 100, maxBatchTokens: 60 });
    // About 25 estimated tokens each (100 letters in words of four): two fit a request, a third does not.
    const texts = Array.from({ length: 5 }, (_, i) => `${'peat '.repeat(20)}${i}`);
    const v = await e.embed(texts);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input.length)).toEqual([2, 2, 1]);
    const [again] = await e.embed([texts[4] as string]);
    expect(cosine(again as Float32Array, v[4] as Float32Array)).toBeCloseTo(1, 6);
  });

  it("sends one call's batches side by side, never more than maxInFlight over all calls, vectors in order", async () => {
    const slow = await startOpenAIReplayServer({ embeddingDimensions: 8, defaultDelayMs: 150 });
    try {
      const e = await createOpenAIEmbedder({ model: MODEL, baseURL: slow.baseURL, dimensions: 8, maxBatchSize: 2, maxInFlight: 2 });
      const texts = Array.from({ length: 12 }, (_, i) => `text ${i} about mangroves`);
      // Two embed() calls at once (a worker's document and an API query) share the cap.
      const [a, b] = await Promise.all([e.embed(texts), e.embed(texts.slice(0, 4))]);
      expect(slow.requests).toHaveLength(8);
      // Side by side (two requests were in flight together: one at a time would show 1), never more than the cap. The
      // server counts what it holds at once; a wall-clock bound would fail on a loaded machine, not on a regression.
      expect(slow.maxConcurrent()).toBe(2);
      for (const [i, t] of texts.entries()) {
        const [one] = await e.embed([t]);
        expect(cosine(one as Float32Array, a?.[i] as Float32Array)).toBeCloseTo(1, 6);
      }
      expect(cosine(b?.[3] as Float32Array, a?.[3] as Float32Array)).toBeCloseTo(1, 6);
    } finally {
      await slow.close();
    }
  });

  it('waits until the HTTP date a 429 names in Retry-After', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8 });
    server.enqueue(EMB, {
      status: 429,
      headers: { 'retry-after': new Date(Date.now() + 2000).toUTCString() },
      body: openaiError('Rate limit reached', 'rate_limit_exceeded', 'requests'),
    });
    await e.embed(['seagrass meadows']);
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
    // An HTTP date has whole seconds: the wait is 1-2 s.
    expect((server.requests[1]?.at ?? 0) - (server.requests[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('waits as retry-after says on 429, then succeeds', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8 });
    server.enqueue(EMB, {
      status: 429,
      headers: { 'retry-after': '1' },
      body: openaiError('Rate limit reached for text-embedding-3-small', 'rate_limit_exceeded', 'requests'),
    });
    const started = Date.now();
    const v = await e.embed(['mangrove restoration']);
    expect(v).toHaveLength(1);
    expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
    const gap = (server.requests[1]?.at ?? 0) - (server.requests[0]?.at ?? 0);
    expect(gap).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('retries a 500 and succeeds', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8 });
    server.enqueue(EMB, { status: 500, body: openaiError('The server had an error', null, 'server_error') });
    const v = await e.embed(['landfill gas']);
    expect(v).toHaveLength(1);
    expect(server.requests.map((r) => r.status)).toEqual([500, 200]);
  });

  it('gives up on a persistent 503 with a retryable DependencyError', async () => {
    const e = await createOpenAIEmbedder({
      model: MODEL,
      baseURL: server.baseURL,
      dimensions: 8,
      maxRetries: 1,
    });
    const down = { status: 503, headers: { 'retry-after-ms': '20' }, body: openaiError('overloaded', null, 'server_error') };
    server.enqueue(EMB, down, down);
    const err = await e.embed(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as DependencyError).retryable).toBe(true);
    expect((err as DependencyError).message).toMatch(/answered 503/);
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry a 401 and says a retry cannot help', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8 });
    server.enqueue(EMB, { status: 401, body: openaiError('Incorrect API key provided: sk-bad.', 'invalid_api_key') });
    const err = await e.embed(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as DependencyError).retryable).toBe(false);
    expect((err as Error).message).toContain('Incorrect API key');
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['a body that is not JSON', '<html>502 Bad Gateway</html>', /malformed response/],
    ['data of the wrong type', { object: 'list', data: 'nope' }, /malformed response .*data/],
    ['a vector with the wrong size', embeddingsResponse([[1, 0, 0]], MODEL), /has 3 dimensions, expected 8/],
    ['a missing index', embeddingsResponse([[1, 0, 0, 0, 0, 0, 0, 0]], MODEL), /no embedding for input 1/],
    ['a zero vector', embeddingsResponse([[0, 0, 0, 0, 0, 0, 0, 0]], MODEL), /zero vector/],
  ])('turns %s into a clear, non-retryable error', async (_name, body, message) => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8 });
    server.enqueue(EMB, { status: 200, body });
    const texts = _name === 'a missing index' ? ['one', 'two'] : ['one'];
    const err = await e.embed(texts).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as Error).message).toMatch(message);
    expect((err as DependencyError).retryable).toBe(false);
  });

  it('reports an unreachable server as retryable', async () => {
    const e = await createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8, maxRetries: 0 });
    await server.close();
    const err = await e.embed(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(DependencyError);
    expect((err as DependencyError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings/);
    server = await startOpenAIReplayServer(); // for afterEach
  });

  it('fails at start when the probe fails', async () => {
    server.enqueue(EMB, { status: 404, body: openaiError('The model `nope` does not exist', 'model_not_found') });
    await expect(createOpenAIEmbedder({ model: 'nope', baseURL: server.baseURL })).rejects.toThrow(/does not exist/);
  });

  it('validates its options', async () => {
    await expect(createOpenAIEmbedder({ model: ' ', baseURL: server.baseURL })).rejects.toThrow(/model/);
    await expect(createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 0 })).rejects.toThrow(/dimensions/);
    await expect(createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8, maxBatchSize: 1.5 })).rejects.toThrow(
      /maxBatchSize/,
    );
    await expect(createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8, maxInFlight: 0 })).rejects.toThrow(
      /maxInFlight/,
    );
    await expect(createOpenAIEmbedder({ model: MODEL, baseURL: server.baseURL, dimensions: 8, maxBatchTokens: -1 })).rejects.toThrow(
      /maxBatchTokens/,
    );
  });
});

describe('OpenAI replay server (shared test support)', () => {
  it('serves non-streaming chat completions the SDK accepts, with a scripted failure first', async () => {
    const server = await startOpenAIReplayServer({
      chatReply: (messages) => `You asked: ${String(messages.at(-1)?.content)}`,
      script: { '/v1/chat/completions': [{ status: 500, body: openaiError('boom', null, 'server_error') }] },
    });
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL, maxRetries: 1 });
      const r = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: 'what is REDD+?' }],
      });
      expect(r.choices[0]?.message.content).toBe('You asked: what is REDD+?');
      expect(server.requests.map((q) => [q.path, q.status])).toEqual([
        ['/v1/chat/completions', 500],
        ['/v1/chat/completions', 200],
      ]);
    } finally {
      await server.close();
    }
  });

  it('answers base64 embeddings, as the SDK asks by default', async () => {
    const server = await startOpenAIReplayServer({ embeddingDimensions: 4 });
    try {
      const client = new OpenAI({ apiKey: 'sk-test', baseURL: server.baseURL });
      const r = await client.embeddings.create({ model: MODEL, input: ['a b c'] });
      expect(r.data[0]?.embedding).toHaveLength(4);
      expect((server.requests[0]?.body as { encoding_format?: string }).encoding_format).toBe('base64');
    } finally {
      await server.close();
    }
  });
});
