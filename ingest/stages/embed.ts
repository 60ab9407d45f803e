import { evidenceSentences } from '../../src/domain/sentences.js';
import type { Stage } from '../types.js';

/**
 * Batches sent before the previous one has returned. The embedder works through them in order; with a batch queued
 * it stays busy while this thread is briefly blocked (pdf.js extracting the next document runs on it), instead of
 * idling until the thread is free to send the next batch.
 */
export const BATCHES_IN_FLIGHT = 3;

/**
 * Stage: one vector per chunk and, with `ctx.sentenceVectors`, one per sentence of it (domain/sentences.ts
 * evidenceSentences: the vector index scores a chunk by its own vector and its best sentence's), in batches of the
 * embedder's maxBatchSize.
 */
export const embed: Stage = async (item, ctx) => {
  const chunks = item.chunks;
  if (!chunks) throw new Error(`embed: document ${item.documentId} has no chunks`);
  const { embedder } = ctx.deps;
  // Every text to embed, each chunk followed by its sentences; sentenceOf[i] is the chunk whose sentence texts[i] is,
  // -1 for a chunk's own text.
  const texts: string[] = [];
  const sentenceOf: number[] = [];
  chunks.forEach((c, i) => {
    texts.push(c.text);
    sentenceOf.push(-1);
    for (const s of ctx.sentenceVectors ? evidenceSentences(c.text) : []) {
      texts.push(s);
      sentenceOf.push(i);
    }
  });
  const size = Math.max(1, Math.floor(embedder.maxBatchSize));
  const vectors: Float32Array[] = [];
  const inFlight: { texts: number; result: Promise<Float32Array[]> }[] = [];
  const collect = async (): Promise<void> => {
    const next = inFlight.shift();
    if (!next) return;
    const out = await next.result;
    if (out.length !== next.texts) throw new Error(`embedder returned ${out.length} vectors for ${next.texts} texts`);
    for (const v of out) {
      if (v.length !== embedder.dimensions)
        throw new Error(`embedder returned a ${v.length}-dimensional vector, expected ${embedder.dimensions}`);
    }
    vectors.push(...out);
  };
  try {
    for (let i = 0; i < texts.length; i += size) {
      ctx.signal?.throwIfAborted();
      const batch = texts.slice(i, i + size);
      const result = embedder.embed(batch, 'document');
      // Handled when collected; this only keeps a batch that fails after an earlier failure from being unhandled.
      result.catch(() => undefined);
      inFlight.push({ texts: batch.length, result });
      if (inFlight.length >= BATCHES_IN_FLIGHT) await collect();
    }
    while (inFlight.length > 0) await collect();
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    return { ...item, outcome: { kind: 'failed', reason: `embed: ${err instanceof Error ? err.message : String(err)}` } };
  }
  const chunkVectors: Float32Array[] = [];
  const sentenceVectors: Float32Array[][] = chunks.map(() => []);
  vectors.forEach((v, i) => {
    const owner = sentenceOf[i] ?? -1;
    if (owner < 0) chunkVectors.push(v);
    else sentenceVectors[owner]?.push(v);
  });
  return { ...item, vectors: chunkVectors, sentenceVectors };
};
