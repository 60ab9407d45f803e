import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import type { WorkerRequest, WorkerResponse } from '../../../src/adapters/embedders/worker-protocol.js';

/**
 * serveModel's side of the protocol, over a real worker thread and a real child process started as the client starts
 * them (through worker-boot.mjs), with a toy model (fixtures/toy-model-worker.ts).
 */
const boot = new URL('../../../src/adapters/embedders/worker-boot.mjs', import.meta.url);
const entry = new URL('./fixtures/toy-model-worker.ts', import.meta.url).href;

interface Endpoint {
  send(req: WorkerRequest): void;
  next(): Promise<WorkerResponse>;
  stop(): Promise<void>;
}

function inbox(on: (fn: (m: WorkerResponse) => void) => void): () => Promise<WorkerResponse> {
  const queue: WorkerResponse[] = [];
  const waiting: Array<(m: WorkerResponse) => void> = [];
  on((m) => {
    const w = waiting.shift();
    if (w) w(m);
    else queue.push(m);
  });
  return () => {
    const m = queue.shift();
    return m ? Promise.resolve(m) : new Promise((resolve) => waiting.push(resolve));
  };
}

function thread(data: Record<string, unknown> = {}): Endpoint {
  const w = new Worker(boot, { workerData: { ...data, entry } });
  return { send: (r) => w.postMessage(r), next: inbox((fn) => w.on('message', fn)), stop: async () => void (await w.terminate()) };
}

function child(data: Record<string, unknown> = {}): Endpoint {
  const c = fork(fileURLToPath(boot), [JSON.stringify({ ...data, entry })], {
    serialization: 'advanced',
    execArgv: [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return {
    send: (r) => void c.send(r),
    next: inbox((fn) => c.on('message', (m) => fn(m as WorkerResponse))),
    stop: async () => {
      if (c.exitCode === null) {
        const exited = new Promise((r) => c.once('exit', r));
        c.kill();
        await exited;
      }
    },
  };
}

describe.each([
  ['a worker thread', thread],
  ['a child process', child],
])('serveModel in %s', (_, start) => {
  it('says ready with the model info, then answers each request in order, with Float32Array vectors', async () => {
    const w = start();
    try {
      const ready = await w.next();
      expect(ready).toMatchObject({ type: 'ready', info: { dimensions: 2, model: 'toy' } });
      w.send({ type: 'embed', id: 1, texts: ['a long sentence', 'b', 'c', 'd'], kind: 'document' });
      w.send({ type: 'embed', id: 2, texts: ['boom'], kind: 'query' });
      w.send({ type: 'embed', id: 3, texts: ['xy'], kind: 'query' });
      const first = await w.next();
      expect(first).toMatchObject({ type: 'result', id: 1, truncated: 1 });
      if (first.type !== 'result') throw new Error('expected a result');
      expect(first.vectors[0]).toBeInstanceOf(Float32Array);
      expect(Array.from(first.vectors[0] ?? [])).toEqual([15, 1]);
      expect(await w.next()).toEqual({ type: 'error', id: 2, message: 'cannot embed "boom"' });
      const third = await w.next();
      expect(third.type === 'result' && Array.from(third.vectors[0] ?? [])).toEqual([2, 1]);
    } finally {
      await w.stop();
    }
  });

  it('reports a model that does not load as an error without a request id', async () => {
    const w = start({ failLoad: true });
    try {
      expect(await w.next()).toEqual({ type: 'error', id: null, message: 'no weights in the folder' });
    } finally {
      await w.stop();
    }
  });
});
