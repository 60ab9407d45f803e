import { afterEach, describe, expect, it } from 'vitest';
import { createHttpReader } from '../../../src/adapters/readers/http.js';
import { createRerankClient } from '../../../src/adapters/rerankers/http.js';
import { createLogger } from '../../../src/logger.js';
import { startRerankReplayServer, type RerankReplayServer } from '../../support/rerank-replay-server.js';
import { ANSWER, request } from './request.js';

const logger = createLogger({ level: 'silent', name: 'test' });

let rerank: RerankReplayServer | undefined;
afterEach(async () => {
  await rerank?.close();
  rerank = undefined;
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
