import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { stopChild } from '../../child-process.js';
import type { Logger } from '../../logger.js';
import type { EmbedKind, WorkerRequest, WorkerResponse } from './worker-protocol.js';

export interface ModelWorkerOptions {
  /** Worker module beside this file, without extension: `use-worker` or `onnx-worker`. */
  module: string;
  /** Passed to the worker module (read with getWorkerData); must be JSON. */
  data: Record<string, unknown>;
  /**
   * `thread`: a worker thread (cheap, shares memory accounting). `process`: a child process, for native addons
   * that load only once per process (onnxruntime-node). @default thread
   */
  isolation?: 'thread' | 'process';
  /** For messages, e.g. `USE lite`. */
  label: string;
  /** @default 120000 */
  loadTimeoutMs?: number;
  logger?: Logger;
}

export interface ModelWorker {
  /** What the worker reported when it loaded (dimensions and the like). */
  readonly info: Record<string, string | number>;
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  close(): Promise<void>;
}

/**
 * The worker modules are TypeScript, started through worker-boot.mjs, which registers tsx inside the thread when
 * we run from .ts sources (tsx, vitest) and imports the .js module when compiled.
 */
function workerSpec(module: string): { boot: URL; entry: string } {
  const ext = new URL(import.meta.url).pathname.endsWith('.ts') ? '.ts' : '.js';
  return {
    boot: new URL('./worker-boot.mjs', import.meta.url),
    entry: new URL(`./${module}${ext}`, import.meta.url).href,
  };
}

/** What the client needs of a worker thread or a child process. */
interface Handle {
  send(req: WorkerRequest): void;
  onMessage(fn: (msg: WorkerResponse) => void): void;
  onError(fn: (err: Error) => void): void;
  onExit(fn: (code: number | null) => void): void;
  terminate(): Promise<void>;
}

function threadHandle(boot: URL, data: Record<string, unknown>): Handle {
  const w = new Worker(boot, { workerData: data });
  return {
    send: (req) => w.postMessage(req),
    onMessage: (fn) => w.on('message', fn),
    onError: (fn) => w.on('error', fn),
    onExit: (fn) => w.on('exit', fn),
    terminate: async () => {
      await w.terminate();
    },
  };
}

function forkHandle(boot: URL, data: Record<string, unknown>): Handle {
  // `advanced` serialisation carries Float32Array as such; execArgv is cleared so that a parent started with
  // --inspect or a test runner's flags does not pass them on.
  const child: ChildProcess = fork(fileURLToPath(boot), [JSON.stringify(data)], {
    serialization: 'advanced',
    execArgv: [],
    // The child's stray console output goes to stderr, keeping stdout for the parent's JSON logs.
    stdio: ['ignore', 2, 2, 'ipc'],
  });
  return {
    send: (req) => {
      child.send(req);
    },
    onMessage: (fn) => child.on('message', (m) => fn(m as WorkerResponse)),
    onError: (fn) => child.on('error', fn),
    onExit: (fn) => child.on('exit', (code, signal) => fn(code ?? (signal ? -1 : null))),
    terminate: () => stopChild(child),
  };
}

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

/**
 * Starts a model in a worker thread and waits until it has loaded (so a broken install fails at start).
 * If the worker dies, its pending calls fail and the next call starts a new worker.
 */
export async function startModelWorker(opts: ModelWorkerOptions): Promise<ModelWorker> {
  const { label, logger: log } = opts;
  const loadTimeoutMs = opts.loadTimeoutMs ?? 120_000;
  let worker: Handle | null = null;
  let starting: Promise<Handle> | null = null;
  let info: Record<string, string | number> = {};
  let closed = false;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function failAll(err: Error): void {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  }

  function spawn(): Promise<Handle> {
    const { boot, entry } = workerSpec(opts.module);
    const h = opts.isolation === 'process' ? forkHandle(boot, { ...opts.data, entry }) : threadHandle(boot, { ...opts.data, entry });
    return new Promise<Handle>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        reject(new Error(`${label} worker did not load within ${loadTimeoutMs} ms`));
        void h.terminate();
      }, loadTimeoutMs);
      h.onMessage((msg) => {
        if (msg.type === 'ready') {
          ready = true;
          clearTimeout(timer);
          info = msg.info;
          log?.info({ ...msg.info, loadMs: Math.round(msg.loadMs) }, `${label} embedder loaded`);
          resolve(h);
          return;
        }
        if (msg.type === 'error' && msg.id === null) {
          clearTimeout(timer);
          reject(new Error(`${label} failed to load: ${msg.message}`));
          void h.terminate();
          return;
        }
        const p = pending.get(msg.id ?? -1);
        if (msg.id !== null) pending.delete(msg.id);
        if (msg.type === 'result') {
          if (msg.truncated > 0) log?.warn({ truncated: msg.truncated }, `${label}: texts cut to the model's input limit`);
          p?.resolve(msg.vectors.map((v) => (v instanceof Float32Array ? v : Float32Array.from(v))));
        } else {
          p?.reject(new Error(`${label} embedding failed: ${msg.message}`));
        }
      });
      h.onError((err) => {
        clearTimeout(timer);
        const e = new Error(`${label} worker crashed: ${err.message}`, { cause: err });
        if (!ready) reject(e);
        failAll(e);
      });
      h.onExit((code) => {
        clearTimeout(timer);
        if (worker === h) worker = null;
        if (!ready) reject(new Error(`${label} worker exited with code ${code} before loading`));
        if (pending.size > 0) failAll(new Error(`${label} worker exited with code ${code}`));
      });
    });
  }

  function getWorker(): Promise<Handle> {
    if (worker) return Promise.resolve(worker);
    starting ??= spawn().then(
      (w) => {
        worker = w;
        starting = null;
        return w;
      },
      (err: unknown) => {
        starting = null;
        throw err;
      },
    );
    return starting;
  }

  await getWorker();

  return {
    get info() {
      return info;
    },
    async embed(texts, kind) {
      if (closed) throw new Error(`${label} embedder: closed`);
      const w = await getWorker();
      const id = nextId++;
      return new Promise<Float32Array[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const req: WorkerRequest = { type: 'embed', id, texts, kind };
        w.send(req);
      });
    },
    async close() {
      closed = true;
      const w = worker ?? (starting ? await starting.catch(() => null) : null);
      worker = null;
      failAll(new Error(`${label} embedder: closed`));
      if (w) await w.terminate();
    },
  };
}
