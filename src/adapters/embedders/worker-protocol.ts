/**
 * Messages between an embedder and the worker that runs its model. Models run off the caller's thread because
 * TensorFlow.js and onnxruntime-node compute synchronously: a 16-text batch of MiniLM blocks its thread for seconds,
 * which the API's event loop must never do. USE runs in a worker thread; ONNX runs in a child process, because
 * onnxruntime-node's native addon loads only once per process (a second worker thread fails with "Module did not
 * self-register", microsoft/onnxruntime#23790, transformers.js#651).
 *
 * Order: the worker posts one `ready` (or an `error` with id null and exits), then one `result` or `error` per
 * request, in request order.
 */
import { parentPort, workerData } from 'node:worker_threads';

export type EmbedKind = 'query' | 'document';

export type WorkerRequest = { type: 'embed'; id: number; texts: string[]; kind: EmbedKind };

export type WorkerResponse =
  | { type: 'ready'; loadMs: number; info: Record<string, string | number> }
  | { type: 'result'; id: number; vectors: Float32Array[]; truncated: number }
  | { type: 'error'; id: number | null; message: string };

export interface LoadedModel {
  /** Facts the parent needs before the first request, e.g. dimensions. */
  info: Record<string, string | number>;
  /** Vectors (any length; the parent normalises) and how many texts had to be cut to fit the model. */
  embed(texts: string[], kind: EmbedKind): Promise<{ vectors: Float32Array[]; truncated: number }>;
}

/** The data the parent passed: workerData in a thread, a JSON argument in a child process. */
export function getWorkerData<T>(): T {
  if (parentPort) return workerData as T;
  const arg = process.argv[2];
  if (!arg) throw new Error('embedder worker: started without its data');
  return JSON.parse(arg) as T;
}

interface Channel {
  post(msg: WorkerResponse, transfer?: ArrayBuffer[]): void;
  onMessage(fn: (msg: WorkerRequest) => void): void;
}

function channel(): Channel {
  const port = parentPort;
  if (port) {
    return {
      post: (msg, transfer = []) => port.postMessage(msg, transfer),
      onMessage: (fn) => port.on('message', fn),
    };
  }
  const send = process.send?.bind(process);
  if (!send) throw new Error('embedder worker modules must run in a worker thread or a forked child process');
  // The parent is gone (crashed or killed): nobody can use our results.
  process.on('disconnect', () => process.exit(0));
  return {
    post: (msg) => void send(msg),
    onMessage: (fn) => process.on('message', (m) => fn(m as WorkerRequest)),
  };
}

/** Worker side: loads the model, then answers requests strictly one at a time. */
export async function serveModel(load: () => Promise<LoadedModel>): Promise<void> {
  const ch = channel();
  const post = ch.post;

  const started = performance.now();
  let model: LoadedModel;
  try {
    model = await load();
  } catch (err) {
    post({ type: 'error', id: null, message: err instanceof Error ? err.message : String(err) });
    return;
  }
  // One at a time: both runtimes hold per-call scratch memory, and order must match the parent's requests.
  let queue: Promise<void> = Promise.resolve();
  ch.onMessage((msg) => {
    queue = queue.then(async () => {
      try {
        const { vectors, truncated } = await model.embed(msg.texts, msg.kind);
        // Copies into fresh buffers so they can be transferred rather than cloned.
        const owned = vectors.map((v) => Float32Array.from(v));
        post(
          { type: 'result', id: msg.id, vectors: owned, truncated },
          owned.map((v) => v.buffer as ArrayBuffer),
        );
      } catch (err) {
        post({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  post({ type: 'ready', loadMs: performance.now() - started, info: model.info });
}
