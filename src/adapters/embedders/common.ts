/**
 * Helpers shared by the embedder adapters: input checks, batching and normalisation, so that every adapter
 * keeps the Embedder port's promises (unit vectors, one per text, in order; any batch size accepted).
 */

/** A text the embedder cannot embed (not a string, or empty). Not retryable: the caller must fix its input. */
export class EmbedderInputError extends Error {
  readonly index: number;
  constructor(index: number, message: string) {
    super(`embed(): text ${index} ${message}`);
    this.name = 'EmbedderInputError';
    this.index = index;
  }
}

/**
 * An embedder that cannot be set up as asked (a model missing from its folder, a model that will not load). Thrown
 * at construction, so the process stops at start with the message.
 */
export class EmbedderSetupError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'EmbedderSetupError';
  }
}

/** Throws EmbedderInputError naming the first text that is not a non-blank string. */
export function assertTexts(texts: unknown): asserts texts is string[] {
  if (!Array.isArray(texts)) {
    throw new EmbedderInputError(-1, `expected an array of strings, got ${typeof texts}`);
  }
  texts.forEach((t: unknown, i) => {
    if (typeof t !== 'string') throw new EmbedderInputError(i, `is not a string (got ${t === null ? 'null' : typeof t})`);
    // Models give meaningless vectors for blank text and some servers reject it; a chunker never emits one.
    if (t.trim().length === 0) throw new EmbedderInputError(i, 'is empty or whitespace only');
  });
}

/** Splits `items` into consecutive slices of at most `size`. */
export function batches<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Returns `v` scaled to unit length as a Float32Array. A zero or non-finite vector means the model or the
 * server misbehaved; it is an error rather than a silent NaN in the index.
 */
export function toUnitVector(v: ArrayLike<number>, what: string): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i] ?? Number.NaN;
    if (!Number.isFinite(x)) throw new Error(`${what}: component ${i} is not a finite number`);
    sum += x * x;
  }
  const norm = Math.sqrt(sum);
  if (norm === 0) throw new Error(`${what}: zero vector`);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = (v[i] ?? 0) / norm;
  return out;
}

/** Runs `fn` over batches of at most `size` texts, one batch at a time, and concatenates the results in order. */
export async function embedInBatches(
  texts: string[],
  size: number,
  fn: (batch: string[]) => Promise<Float32Array[]>,
): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const batch of batches(texts, size)) {
    const vectors = await fn(batch);
    if (vectors.length !== batch.length) {
      throw new Error(`embedder returned ${vectors.length} vectors for ${batch.length} texts`);
    }
    out.push(...vectors);
  }
  return out;
}

/** Cosine similarity of two vectors of the same length (0 when either is all zeros). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}
