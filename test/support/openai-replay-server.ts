import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that answers like the OpenAI API for POST /v1/embeddings and
 * POST /v1/chat/completions (non-streaming). Tests point the `openai` SDK at `baseURL` instead of mocking it.
 *
 * Each path has a scripted queue of steps, consumed one per request; when a path's queue is empty the server
 * answers with the default responder (deterministic embeddings, a fixed chat reply). Every request is logged.
 */

/** One scripted answer. `body` is sent as JSON unless it is a string (sent verbatim, e.g. a malformed body). */
export interface ReplayStep {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Wait before answering (for timeout tests). */
  delayMs?: number;
}

/** A step, or `'default'` to let the default responder answer this one request. */
export type ScriptEntry = ReplayStep | 'default';

export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** Status the server answered with. */
  status: number;
  at: number;
}

export interface ChatMessageLike {
  role: string;
  content: unknown;
}

export interface OpenAIReplayServerOptions {
  /** Scripted steps per path (`/v1/embeddings`, `/v1/chat/completions`), consumed in order. */
  script?: Record<string, ScriptEntry[]>;
  /** Dimensions of default embeddings. @default 8 */
  embeddingDimensions?: number;
  /** Reply of default chat completions. @default a fixed sentence */
  chatReply?: string | ((messages: ChatMessageLike[], body: Record<string, unknown>) => string);
  /** Wait before every answer of the default responders (to see requests overlap). @default 0 */
  defaultDelayMs?: number;
}

export interface OpenAIReplayServer {
  /** e.g. http://127.0.0.1:43123/v1 — pass as the SDK's `baseURL`. */
  baseURL: string;
  /** Requests received so far, in order. */
  requests: LoggedRequest[];
  /** Most requests the server was answering at once. */
  maxConcurrent(): number;
  /** Appends steps to a path's queue (e.g. between two phases of a test). */
  enqueue(path: string, ...steps: ScriptEntry[]): void;
  close(): Promise<void>;
}

/** The error body OpenAI sends, e.g. for 429: `openaiError('Rate limit reached', 'rate_limit_exceeded')`. */
export function openaiError(message: string, code: string | null = null, type = 'invalid_request_error'): unknown {
  return { error: { message, type, param: null, code } };
}

/**
 * A deterministic stand-in for a real embedding: feature-hashed bag of lower-cased words, unit length.
 * Texts sharing words get similar vectors, so retrieval tests behave sensibly; it is not a language model.
 */
export function hashEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const h = createHash('sha256').update(w).digest();
    const i = h.readUInt32BE(0) % dimensions;
    v[i] = (v[i] ?? 0) + ((h[4] ?? 0) & 1 ? 1 : -1);
  }
  const norm = Math.hypot(...v);
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}

/** Wire format of a successful POST /v1/embeddings (as recorded from api.openai.com). */
export function embeddingsResponse(vectors: number[][], model: string, encoding: 'float' | 'base64' = 'float'): unknown {
  return {
    object: 'list',
    data: vectors.map((embedding, index) => ({
      object: 'embedding',
      index,
      embedding: encoding === 'base64' ? Buffer.from(new Float32Array(embedding).buffer).toString('base64') : embedding,
    })),
    model,
    usage: { prompt_tokens: vectors.length * 4, total_tokens: vectors.length * 4 },
  };
}

/** Wire format of a successful non-streaming POST /v1/chat/completions (as recorded from api.openai.com). */
export function chatCompletionResponse(content: string, model: string): unknown {
  return {
    id: `chatcmpl-replay${Date.now().toString(36)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      prompt_tokens: 42,
      completion_tokens: Math.max(1, Math.ceil(content.length / 4)),
      total_tokens: 42 + Math.max(1, Math.ceil(content.length / 4)),
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    },
    service_tier: 'default',
    system_fingerprint: 'fp_replay',
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function defaultEmbeddings(body: unknown, dimensions: number): ReplayStep {
  if (!isRecord(body) || typeof body.model !== 'string') {
    return { status: 400, body: openaiError("'model' is required", 'invalid_request') };
  }
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input : undefined;
  if (!texts || texts.length === 0 || !texts.every((t) => typeof t === 'string' && t.length > 0)) {
    return { status: 400, body: openaiError("'$.input' is invalid. Please check the API reference.", null) };
  }
  const dims = typeof body.dimensions === 'number' ? body.dimensions : dimensions;
  const encoding = body.encoding_format === 'base64' ? 'base64' : 'float';
  const vectors = texts.map((t) => hashEmbedding(String(t), dims));
  return { status: 200, body: embeddingsResponse(vectors, body.model, encoding) };
}

function defaultChat(body: unknown, reply: OpenAIReplayServerOptions['chatReply']): ReplayStep {
  if (!isRecord(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return { status: 400, body: openaiError("'model' and 'messages' are required", 'invalid_request') };
  }
  if (body.stream === true) {
    return { status: 400, body: openaiError('the replay server does not stream', 'unsupported') };
  }
  const messages = body.messages.filter(isRecord).map((m) => ({ role: String(m.role), content: m.content }));
  const content = typeof reply === 'function' ? reply(messages, body) : (reply ?? 'This is a recorded reply from the replay server.');
  return { status: 200, body: chatCompletionResponse(content, body.model) };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function send(res: ServerResponse, step: ReplayStep): void {
  const text = typeof step.body === 'string' ? step.body : JSON.stringify(step.body ?? {});
  res.writeHead(step.status, {
    'content-type': 'application/json',
    'x-request-id': `req_replay_${Math.random().toString(36).slice(2, 10)}`,
    'openai-processing-ms': '12',
    ...step.headers,
  });
  res.end(text);
}

export async function startOpenAIReplayServer(opts: OpenAIReplayServerOptions = {}): Promise<OpenAIReplayServer> {
  const queues = new Map<string, ScriptEntry[]>();
  for (const [p, steps] of Object.entries(opts.script ?? {})) queues.set(p, [...steps]);
  const requests: LoggedRequest[] = [];
  const dimensions = opts.embeddingDimensions ?? 8;
  let open = 0;
  let maxOpen = 0;

  const server: Server = createServer(async (req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.once('close', () => open--);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      // keep the raw text in the log; the default responders answer 400
    }
    const known = url.pathname === '/v1/embeddings' || url.pathname === '/v1/chat/completions';
    let step: ReplayStep;
    if (!known) {
      step = { status: 404, body: openaiError(`Unknown request URL: ${req.method} ${url.pathname}`, 'unknown_url') };
    } else if (req.method !== 'POST') {
      step = { status: 405, body: openaiError(`Method ${req.method} not allowed`, 'method_not_allowed') };
    } else {
      const scripted = queues.get(url.pathname)?.shift();
      if (scripted !== undefined && scripted !== 'default') step = scripted;
      else {
        step = url.pathname === '/v1/embeddings' ? defaultEmbeddings(body, dimensions) : defaultChat(body, opts.chatReply);
        if (opts.defaultDelayMs) step = { ...step, delayMs: opts.defaultDelayMs };
      }
    }
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      headers: req.headers,
      body,
      status: step.status,
      at: Date.now(),
    });
    if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (!res.destroyed) send(res, step);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    maxConcurrent: () => maxOpen,
    enqueue(path, ...steps) {
      const q = queues.get(path) ?? [];
      q.push(...steps);
      queues.set(path, q);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
