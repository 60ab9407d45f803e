import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asRelevance, createHttpReranker } from '../../../src/adapters/rerankers/http.js';
import { loadConfig } from '../../../src/config.js';
import { buildReranker } from '../../../src/deps.js';
import { createLogger } from '../../../src/logger.js';
import type { ScoredChunk } from '../../../src/ports/vector-index.js';
import { startRerankReplayServer, type RerankReplayServer } from '../../support/rerank-replay-server.js';

function chunk(id: string, text: string, score: number): ScoredChunk {
  return {
    id,
    registry: 'Verra',
    projectId: 1,
    documentId: 'd',
    documentTitle: 't.pdf',
    documentType: 'Other',
    uri: 'u',
    page: 1,
    offset: 0,
    text,
    score,
  };
}

// Fused order: the contents line and a page that only names the subject come before the sentence that answers.
const candidates = [
  chunk('contents', '3.4 Baseline Scenario ........ 43', 0.9),
  chunk('subject', 'This section describes the baseline of the project.', 0.8),
  chunk('answer', 'The baseline scenario is the continuation of fallow degraded land without planting.', 0.7),
  chunk('other', 'Monitoring is carried out every five years.', 0.6),
];
const QUERY = 'What is the baseline scenario of the degraded land?';

let server: RerankReplayServer;
let lines: string[];
const logger = () =>
  createLogger({
    level: 'warn',
    name: 'test',
    destination: { write: (l: string) => void lines.push(l) },
  });

beforeEach(async () => {
  server = await startRerankReplayServer();
  lines = [];
});
afterEach(async () => {
  await server.close();
});

describe('HTTP cross-encoder reranker (RERANKER=http)', () => {
  it('TEI format: sends the question and the candidates, orders them by the model, and its relevance becomes the score', async () => {
    const r = createHttpReranker({ url: `${server.baseUrl}/rerank`, api: 'tei', window: 3, logger: logger() });
    const out = await r.rerank(QUERY, candidates, 4);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toEqual({
      query: QUERY,
      texts: candidates.slice(0, 3).map((c) => c.text),
      truncate: true,
      raw_scores: false,
    });
    // The three sent are ordered by the model; the fourth (outside the window) follows, its score capped below theirs.
    expect(out.map((c) => c.id)).toEqual(['answer', 'subject', 'contents', 'other']);
    const scores = out.map((c) => c.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(out[0]?.score).toBeGreaterThan(0.5);
    expect(out[3]?.score).toBeLessThanOrEqual(out[2]?.score ?? 0);
    expect(r.window).toBe(3);
    expect(lines).toEqual([]);
  });

  it('cohere format: model, documents and top_n in the body, the key as a Bearer token, results read', async () => {
    const r = createHttpReranker({
      url: `${server.baseUrl}/v2/rerank`,
      api: 'cohere',
      model: 'rerank-v3.5',
      apiKey: 'secret-key',
      logger: logger(),
    });
    const out = await r.rerank(QUERY, candidates, 2);
    expect(server.requests[0]?.body).toEqual({
      model: 'rerank-v3.5',
      query: QUERY,
      documents: candidates.map((c) => c.text),
      top_n: 4,
    });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer secret-key');
    expect(out.map((c) => c.id)).toEqual(['answer', 'subject']);
    expect(r.id).toBe('http:rerank-v3.5');
  });

  it('reads raw logits (llama-server, raw_scores) as relevance through a logistic, in their order', async () => {
    server.enqueue('/rerank', {
      status: 200,
      body: [
        { index: 2, score: 4.2 },
        { index: 0, score: -3.1 },
        { index: 1, score: -7.5 },
        { index: 3, score: -9 },
      ],
    });
    const out = await createHttpReranker({ url: `${server.baseUrl}/rerank`, api: 'tei', logger: logger() }).rerank(QUERY, candidates, 4);
    expect(out.map((c) => c.id)).toEqual(['answer', 'contents', 'subject', 'other']);
    expect(out[0]?.score).toBeCloseTo(1 / (1 + Math.exp(-4.2)), 6);
    expect(asRelevance([0.2, 0.9])).toEqual([0.2, 0.9]);
    expect(asRelevance([0, 2])[1]).toBeCloseTo(0.8808, 4);
  });

  it('puts the candidates a reply leaves out after the scored ones, in fused order', async () => {
    server.enqueue('/v2/rerank', { status: 200, body: { results: [{ index: 3, relevance_score: 0.9 }] } });
    const r = createHttpReranker({ url: `${server.baseUrl}/v2/rerank`, api: 'cohere', model: 'm', logger: logger() });
    expect((await r.rerank(QUERY, candidates, 4)).map((c) => c.id)).toEqual(['other', 'contents', 'subject', 'answer']);
  });

  it('asks once more after a 503, and keeps the fused order (logged) when the server keeps failing', async () => {
    server.enqueue('/rerank', { status: 503, body: { error: 'overloaded', error_type: 'Overloaded' } });
    const r = createHttpReranker({ url: `${server.baseUrl}/rerank`, api: 'tei', logger: logger() });
    expect((await r.rerank(QUERY, candidates, 4))[0]?.id).toBe('answer');
    expect(server.requests).toHaveLength(2);

    server.enqueue('/rerank', { status: 500, body: 'boom' }, { status: 500, body: 'boom' });
    const kept = await r.rerank(QUERY, candidates, 3);
    expect(kept).toEqual(candidates.slice(0, 3));
    expect(server.requests).toHaveLength(4);
    expect(lines.some((l) => l.includes('reranking failed; fused order kept') && l.includes('answered 500'))).toBe(true);
  });

  it('keeps the fused order for a reply that is not JSON, of another format, or too late; neither a 4xx nor a time-out is retried', async () => {
    const r = createHttpReranker({ url: `${server.baseUrl}/rerank`, api: 'tei', timeoutMs: 200, logger: logger() });
    server.enqueue(
      '/rerank',
      { status: 200, body: '<html>proxy error</html>' },
      { status: 200, body: { results: [] } },
      { status: 200, body: [{ index: 0, score: 1 }], delayMs: 1000 },
      { status: 413, body: { error: 'batch size 4 > maximum allowed batch size 2', error_type: 'Validation' } },
    );
    for (let i = 0; i < 4; i++) expect(await r.rerank(QUERY, candidates, 4)).toEqual(candidates);
    // Each asked once: a search that waited out the time allowed does not wait for it twice.
    expect(server.requests).toHaveLength(4);
    const failures = lines.filter((l) => l.includes('fused order kept'));
    expect(failures).toHaveLength(4);
    expect(failures.join('\n')).toMatch(/not JSON/);
    expect(failures.join('\n')).toMatch(/another format than tei/);
    expect(failures.join('\n')).toMatch(/no answer within 200 ms/);
    expect(failures.join('\n')).toMatch(/answered 413/);
  });

  it('sends nothing for a single candidate', async () => {
    const r = createHttpReranker({ url: `${server.baseUrl}/rerank`, api: 'tei', logger: logger() });
    expect(await r.rerank(QUERY, candidates.slice(0, 1), 8)).toEqual(candidates.slice(0, 1));
    expect(server.requests).toHaveLength(0);
  });

  it('is chosen by RERANKER=http, which needs RERANKER_URL, and a model for the cohere format', async () => {
    const config = loadConfig({ RERANKER: 'http', RERANKER_URL: `${server.baseUrl}/rerank`, RERANKER_WINDOW: '5' });
    const r = buildReranker(config, logger(), null);
    expect(r.window).toBe(5);
    expect((await r.rerank(QUERY, candidates, 1))[0]?.id).toBe('answer');
    expect(() => loadConfig({ RERANKER: 'http' })).toThrow(/RERANKER_URL: required when RERANKER=http/);
    expect(() => loadConfig({ RERANKER: 'http', RERANKER_URL: 'http://x/v2/rerank', RERANKER_API: 'cohere' })).toThrow(
      /RERANKER_MODEL: required when RERANKER_API=cohere/,
    );
    expect(() => createHttpReranker({ url: 'ftp://x/rerank', api: 'tei', logger: logger() })).toThrow(/http\(s\)/);
  });
});
