import { expect } from 'vitest';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { cosine } from '../../../src/adapters/embedders/common.js';
import type { Embedder } from '../../../src/ports/embedder.js';

export { cosine };

export function norm(v: Float32Array): number {
  return Math.hypot(...v);
}

/** A real pino logger whose JSON lines are kept in memory, to assert on what an adapter logged. */
export function memoryLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      out.push(chunk.toString('utf8'));
      cb();
    },
  });
  const logger = pino({ level: 'debug' }, stream);
  return {
    logger,
    lines: () =>
      out
        .join('')
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Measures the longest pause of the event loop (timer lateness) while `work` runs. */
export async function maxEventLoopGap(work: () => Promise<unknown>, intervalMs = 10): Promise<{ gapMs: number; ticks: number }> {
  let last = performance.now();
  let gapMs = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    gapMs = Math.max(gapMs, now - last);
    last = now;
    ticks++;
  }, intervalMs);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  gapMs = Math.max(gapMs, performance.now() - last);
  return { gapMs, ticks };
}

/** Paraphrase pairs with an unrelated sentence from the same (carbon-project) domain. */
export const PARAPHRASES: Array<{ a: string; paraphrase: string; unrelated: string }> = [
  {
    a: 'The project protects tropical forest from deforestation.',
    paraphrase: 'This initiative prevents the clearing of rainforest trees.',
    unrelated: 'The refrigerant leak detector uses infra-red sensors.',
  },
  {
    a: 'HFC-23 is destroyed by thermal oxidation at the plant.',
    paraphrase: 'The plant burns the HFC 23 waste gas in an incinerator.',
    unrelated: 'Farmers planted native tree species on degraded land.',
  },
];

/** Questions with their answer passage and a distractor passage from another document. */
export const QUESTIONS: Array<{ q: string; answer: string; distractor: string }> = [
  {
    q: 'What is the crediting period of the project?',
    answer: 'The crediting period runs for thirty years starting in 2020.',
    distractor: 'Soil samples were taken at a depth of 30 cm on each farm.',
  },
  {
    q: 'Who is the project proponent?',
    answer: 'The proponent of the project is Hexa Carbon One.',
    distractor: 'Monitoring reports are published every five years.',
  },
];

/**
 * Each of QUESTIONS, embedded as a query, is closer to its answer passage than to its distractor by more than
 * `margin` (what a retrieval model must do; margins measured per model in its test).
 */
export async function expectAnswersCloser(embedder: Embedder, margin: number): Promise<void> {
  for (const q of QUESTIONS) {
    const [query] = await embedder.embed([q.q], 'query');
    const [answer, distractor] = await embedder.embed([q.answer, q.distractor]);
    expect(cosine(query as Float32Array, answer as Float32Array)).toBeGreaterThan(
      cosine(query as Float32Array, distractor as Float32Array) + margin,
    );
  }
}

/** About `words` words of varied English prose (deterministic), like a chunk of a project document. */
export function chunkText(seed: number, words = 200): string {
  const vocab = (
    'the project area covers degraded land where native species are planted to restore forest cover and ' +
    'sequester carbon dioxide monitoring plots are measured every five years by the validation body which ' +
    'verifies emission reductions against the baseline scenario of continued agriculture and fuelwood collection ' +
    'leakage is assessed for displaced activities while community benefits include employment training and water'
  ).split(' ');
  const out: string[] = [];
  let x = seed * 7919 + 17;
  for (let i = 0; i < words; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(vocab[x % vocab.length] ?? 'carbon');
  }
  return out.join(' ');
}

/** Texts of mixed lengths in one batch: what padding or batch splitting could get wrong. */
export const MIXED_TEXTS = ['short', chunkText(1, 60), 'a somewhat longer sentence about mangroves', chunkText(2, 120), 'x'];

/**
 * Each text's vector is the same in one batch, in batches of two (`small`, the same model with maxBatchSize 2) and
 * alone: batching, padding and order change nothing beyond `minCosine`.
 */
export async function expectBatchInvariant(
  embedder: { embed(texts: string[]): Promise<Float32Array[]> },
  small: { embed(texts: string[]): Promise<Float32Array[]> },
  minCosine: number,
  texts: string[] = MIXED_TEXTS,
): Promise<void> {
  const split = await small.embed(texts);
  const batched = await embedder.embed(texts);
  for (let i = 0; i < texts.length; i++) {
    const [alone] = await embedder.embed([texts[i] as string]);
    expect(cosine(split[i] as Float32Array, alone as Float32Array)).toBeGreaterThan(minCosine);
    expect(cosine(batched[i] as Float32Array, alone as Float32Array)).toBeGreaterThan(minCosine);
  }
}
