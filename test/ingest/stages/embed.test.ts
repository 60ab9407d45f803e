import { describe, expect, it } from 'vitest';
import { embed } from '../../../ingest/stages/embed.js';
import type { DocumentWorkItem, IngestDeps, StageContext } from '../../../ingest/types.js';
import type { Embedder } from '../../../src/ports/embedder.js';

/**
 * The embed stage against small hand-written Embedder implementations (the port's contract, not a library): batch
 * sizes, order with several batches in flight, and failures becoming the document's outcome.
 */

function embedderThat(opts: {
  failOnBatch?: number;
  delays?: number[];
  dims?: number;
}): Embedder & { batches: string[][]; maxConcurrent: number } {
  let inFlight = 0;
  const self = {
    id: 'test-embedder',
    dimensions: 3,
    maxBatchSize: 2,
    maxInputTokens: 64,
    batches: [] as string[][],
    maxConcurrent: 0,
    async embed(texts: string[]): Promise<Float32Array[]> {
      const n = self.batches.push(texts);
      inFlight++;
      self.maxConcurrent = Math.max(self.maxConcurrent, inFlight);
      await new Promise((r) => setTimeout(r, opts.delays?.[n - 1] ?? 5));
      inFlight--;
      if (opts.failOnBatch === n) throw new Error(`model crashed on batch ${n}`);
      return texts.map((t) => new Float32Array(opts.dims ?? 3).fill(t.length));
    },
    async close() {},
  };
  return self;
}

function item(n: number): DocumentWorkItem {
  return {
    ref: { registry: 'Verra', projectId: 1 },
    documentId: 'd',
    uri: 'https://registry.verra.org/d.pdf',
    title: 'd.pdf',
    documentType: 'Other',
    uploadDate: null,
    previous: null,
    chunks: Array.from({ length: n }, (_, i) => ({ page: 1, offset: i * 10, text: 'x'.repeat(i + 1) })),
  };
}

const ctx = (embedder: Embedder): StageContext => ({ deps: { embedder } as IngestDeps }) as StageContext;

describe('embed stage', () => {
  it('embeds in batches of maxBatchSize, keeps order with later batches returning first', async () => {
    // Batch 1 is the slowest: its vectors must still come first.
    const e = embedderThat({ delays: [60, 5, 5, 5] });
    const out = await embed(item(7), ctx(e));
    expect(e.batches.map((b) => b.length)).toEqual([2, 2, 2, 1]);
    expect(e.maxConcurrent).toBeGreaterThan(1);
    expect(e.maxConcurrent).toBeLessThanOrEqual(3);
    expect(out.vectors?.map((v) => v[0])).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(out.outcome).toBeUndefined();
  });

  it("embeds each chunk's sentences too, and hands each chunk its own sentence vectors", async () => {
    const e = embedderThat({ delays: [30, 5, 5, 5] });
    const texts = [
      'The plant destroys HFC23 by incineration. The oxidation temperature is at least 1,200 degrees.',
      'Page 3',
      'A single sentence about the project area of the forest.',
      'First sentence of the third passage. Second sentence, somewhat longer than the first one.',
    ];
    const doc = { ...item(0), chunks: texts.map((text, i) => ({ page: 1, offset: i * 100, text })) };
    const out = await embed(doc, { ...ctx(e), sentenceVectors: true });
    // Vectors are filled with their text's length, so each can be traced to its text.
    const lengths = (vs: Float32Array[] | undefined) => vs?.map((v) => v[0]);
    expect(lengths(out.vectors)).toEqual(texts.map((t) => t.length));
    expect(out.sentenceVectors?.map(lengths)).toEqual([
      ['The plant destroys HFC23 by incineration.'.length, 'The oxidation temperature is at least 1,200 degrees.'.length],
      [],
      [],
      ['First sentence of the third passage.'.length, 'Second sentence, somewhat longer than the first one.'.length],
    ]);
    // 4 chunks + 4 sentences, in batches of 2, in order.
    expect(e.batches.flat()).toHaveLength(8);
    expect(e.batches[0]).toEqual([texts[0], 'The plant destroys HFC23 by incineration.']);
  });

  it('embeds chunks alone when sentence vectors are turned off', async () => {
    const e = embedderThat({});
    const text = 'The plant destroys HFC23 by incineration. The oxidation temperature is at least 1,200 degrees.';
    const doc = { ...item(0), chunks: [{ page: 1, offset: 0, text }] };
    const out = await embed(doc, { ...ctx(e), sentenceVectors: false });
    expect(e.batches).toEqual([[text]]);
    expect(out.sentenceVectors).toEqual([[]]);
  });

  it('turns an embedder failure into a failed outcome, with other batches in flight', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (err: unknown): void => {
      unhandled.push(err);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      const out = await embed(item(9), ctx(embedderThat({ failOnBatch: 1, delays: [20, 1, 1, 1, 1] })));
      expect(out.outcome).toEqual({ kind: 'failed', reason: 'embed: model crashed on batch 1' });
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('rejects vectors of the wrong dimension', async () => {
    const out = await embed(item(2), ctx(embedderThat({ dims: 4 })));
    expect(out.outcome).toEqual({ kind: 'failed', reason: 'embed: embedder returned a 4-dimensional vector, expected 3' });
  });
});
