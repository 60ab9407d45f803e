import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that answers like a rerank server: Text Embeddings Inference's `POST /rerank`
 * (`{query, texts}` -> `[{index, score}]`, best first) and Cohere's `POST /v2/rerank` (`{model, query, documents,
 * top_n}` -> `{id, results: [{index, relevance_score}], meta}`), in the shapes their API references document. Tests
 * point the reranker at it instead of mocking fetch.
 *
 * Each path has a scripted queue of replies, consumed one per request; when it is empty the default responder scores
 * each text by the share of the query's words it holds (a stand-in for a cross-encoder, not one). Every request is
 * logged.
 */

export interface RerankStep {
  status: number;
  /** Sent as JSON unless a string (sent verbatim). */
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface RerankRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface RerankReplayServer {
  /** e.g. http://127.0.0.1:43123 */
  baseUrl: string;
  requests: RerankRequest[];
  enqueue(path: string, ...steps: RerankStep[]): void;
  close(): Promise<void>;
}

const words = (t: string): Set<string> => new Set(t.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Share of the query's words each text holds, with a little for shorter texts (ties broken towards them). */
export function overlapScores(query: string, texts: readonly string[]): number[] {
  const q = words(query);
  return texts.map((t) => {
    const w = words(t);
    let n = 0;
    for (const x of q) if (w.has(x)) n++;
    return Math.round((n / Math.max(1, q.size) - w.size / 1e6) * 1e4) / 1e4;
  });
}

export async function startRerankReplayServer(): Promise<RerankReplayServer> {
  const queues = new Map<string, RerankStep[]>();
  const requests: RerankRequest[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString('utf8')));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        // answered 422 below, as TEI does
      }
      requests.push({ path, headers: req.headers, body });
      const scripted = queues.get(path)?.shift();
      const step = scripted ?? defaultReply(path, body);
      const send = (): void => {
        if (res.destroyed) return;
        const text = typeof step.body === 'string' ? step.body : JSON.stringify(step.body ?? null);
        res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
        res.end(text);
      };
      if (step.delayMs) setTimeout(send, step.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    enqueue(path, ...steps) {
      queues.set(path, [...(queues.get(path) ?? []), ...steps]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function defaultReply(path: string, body: Record<string, unknown>): RerankStep {
  const query = typeof body.query === 'string' ? body.query : null;
  if (path === '/rerank') {
    const texts = Array.isArray(body.texts) ? body.texts.map(String) : null;
    if (query === null || texts === null) {
      return { status: 422, body: { error: 'Failed to deserialize the JSON body', error_type: 'Validation' } };
    }
    const scores = overlapScores(query, texts);
    return {
      status: 200,
      body: scores.map((score, index) => ({ index, score })).sort((a, b) => b.score - a.score),
    };
  }
  if (path === '/v2/rerank') {
    const documents = Array.isArray(body.documents) ? body.documents.map(String) : null;
    if (query === null || documents === null || typeof body.model !== 'string') {
      return { status: 400, body: { message: 'invalid request: query, documents and model are required' } };
    }
    const scores = overlapScores(query, documents);
    const topN = typeof body.top_n === 'number' ? body.top_n : documents.length;
    return {
      status: 200,
      body: {
        id: '07734bd2-2473-4f07-94e1-0d9f0e6843cf',
        results: scores
          .map((relevance_score, index) => ({ index, relevance_score }))
          .sort((a, b) => b.relevance_score - a.relevance_score)
          .slice(0, topN),
        meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
      },
    };
  }
  return { status: 404, body: { message: `no route for ${path}` } };
}
