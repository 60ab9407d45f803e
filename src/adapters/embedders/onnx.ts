import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../logger.js';
import type { Embedder } from '../../ports/embedder.js';
import { assertTexts, EmbedderSetupError, embedInBatches, toUnitVector } from './common.js';
import type { OnnxWorkerData } from './onnx-worker.js';
import { startModelWorker } from './worker-client.js';
import { defined } from '../../defined.js';

export interface OnnxEmbedderOptions {
  /** Hugging Face model id in transformers.js layout, e.g. `Xenova/all-MiniLM-L6-v2`. */
  modelId: string;
  /** Folder holding `<modelId>/{config.json,tokenizer.json,tokenizer_config.json,onnx/model_quantized.onnx}`. */
  modelsDir: string;
  /** Download missing files from the Hugging Face hub into modelsDir. @default false */
  allowRemoteModels?: boolean;
  /** @default 16 */
  maxBatchSize?: number;
  /**
   * Word pieces per text, special tokens included. @default sentence_bert_config.json's max_seq_length when the
   * model folder has one, else 256 for the all-MiniLM models, else the tokenizer's limit capped at 512.
   */
  maxSeqLength?: number;
  /** @default 120000 */
  loadTimeoutMs?: number;
  /**
   * Threads onnxruntime computes one batch with (intra-op). 0: its default, one per core, right for one embedding
   * process a machine; several worker processes on one machine each want cores / processes (EMBED_THREADS).
   * @default 0
   */
  threads?: number;
  logger?: Logger;
}

/** The files transformers.js reads for a feature-extraction model. */
const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
/** transformers.js 3 loads onnx/model_quantized.onnx for `dtype: 'q8'` and onnx/model.onnx for `fp32`. */
const WEIGHTS = [
  { dtype: 'q8', file: 'onnx/model_quantized.onnx' },
  { dtype: 'fp32', file: 'onnx/model.onnx' },
] as const;

/**
 * Word pieces a text is cut at when the folder has no sentence_bert_config.json (transformers.js repos ship none).
 * sentence-transformers truncates the all-MiniLM models at 256 (their sentence_bert_config.json), although BERT takes
 * 512: they were trained on inputs of that length, and we embed exactly as the model card does. bge-small-en-v1.5
 * takes 512, but the limit also sizes the chunks (ingest/stages/chunk.ts: 384 estimated tokens at 512, 254 at 256),
 * and its 384-token chunks lowered the development set's page recall@5 from 0.89 to 0.82 and its evidence-supported
 * answers from 58 to 52 of 90 (bench/README.md, bge): a cited passage of 254 tokens is read better, by the ranking
 * and by a researcher.
 */
const KNOWN_MAX_SEQ_LENGTH: Record<string, number> = {
  'all-minilm-l6-v2': 256,
  'all-minilm-l12-v2': 256,
  'bge-small-en-v1.5': 256,
};

/**
 * Asymmetric models trained with prefixes: E5 marks both sides; BGE v1.5 English models mark a short query looking
 * for passages with an instruction (their model card); symmetric models like MiniLM take none.
 */
function prefixesFor(modelId: string): { query: string; document: string } {
  if (/(^|\/)(multilingual-)?e5-/i.test(modelId)) return { query: 'query: ', document: 'passage: ' };
  if (/(^|\/)bge-(small|base|large)-en-v1\.5$/i.test(modelId)) {
    return { query: 'Represent this sentence for searching relevant passages: ', document: '' };
  }
  return { query: '', document: '' };
}

/**
 * How the model's sentence vector is read off its token vectors: sentence-transformers' 1_Pooling/config.json when
 * the folder has one, else the model family's own (BGE was trained on the [CLS] vector), else the mean.
 */
function poolingFor(modelId: string, modelDir: string): 'mean' | 'cls' {
  // (transformers.js repos ship no such file: then the family's default below.)
  const c = readModelJson<{ pooling_mode_cls_token?: unknown; pooling_mode_mean_tokens?: unknown }>(modelDir, '1_Pooling/config.json');
  if (c?.pooling_mode_cls_token === true) return 'cls';
  if (c?.pooling_mode_mean_tokens === true) return 'mean';
  return /(^|\/)bge-/i.test(modelId) ? 'cls' : 'mean';
}

/** A JSON object of the model folder (sentence-transformers' settings), or undefined when absent or not an object. */
function readModelJson<T extends object>(modelDir: string, file: string): Partial<T> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(path.join(modelDir, file), 'utf8'));
    return typeof v === 'object' && v !== null ? (v as Partial<T>) : undefined;
  } catch {
    return undefined;
  }
}

const MODEL_ID = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/;

function readMaxSeqLength(modelDir: string): number | undefined {
  const n = readModelJson<{ max_seq_length?: unknown }>(modelDir, 'sentence_bert_config.json')?.max_seq_length;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * Sentence-transformers models exported to ONNX (e.g. `onnx:Xenova/all-MiniLM-L6-v2`), run by onnxruntime-node
 * through transformers.js in a worker thread. Vectors are pooled as the model was trained (poolingFor) and
 * L2-normalised.
 */
export async function createOnnxEmbedder(opts: OnnxEmbedderOptions): Promise<Embedder> {
  const { modelId } = opts;
  if (!MODEL_ID.test(modelId) || modelId.includes('..')) {
    throw new EmbedderSetupError(
      `onnx embedder: ${JSON.stringify(modelId)}: expected a Hugging Face model id such as Xenova/all-MiniLM-L6-v2`,
    );
  }
  const maxBatchSize = opts.maxBatchSize ?? 16;
  if (!(Number.isInteger(maxBatchSize) && maxBatchSize > 0)) {
    throw new TypeError(`onnx embedder: maxBatchSize must be a positive integer, got ${maxBatchSize}`);
  }
  if (opts.maxSeqLength !== undefined && !(Number.isInteger(opts.maxSeqLength) && opts.maxSeqLength >= 8)) {
    throw new TypeError(`onnx embedder: maxSeqLength must be an integer >= 8, got ${opts.maxSeqLength}`);
  }
  const allowRemote = opts.allowRemoteModels ?? false;
  const modelsDir = path.resolve(opts.modelsDir);
  const modelDir = path.join(modelsDir, modelId);

  const missing = REQUIRED_FILES.filter((f) => !existsSync(path.join(modelDir, f))).map((f) => path.join(modelDir, f));
  const weights = WEIGHTS.find((w) => existsSync(path.join(modelDir, w.file)));
  if (!weights) missing.push(path.join(modelDir, WEIGHTS[0].file));
  if (missing.length > 0 && !allowRemote) {
    throw new EmbedderSetupError(
      `model ${modelId} is not in MODELS_DIR (${modelsDir}): missing ${missing.join(', ')}; ` +
        'run scripts/fetch-models.sh or set ALLOW_REMOTE_MODELS=true',
    );
  }
  const baseName = (modelId.split('/').pop() ?? modelId).toLowerCase();
  const prefixes = prefixesFor(modelId);
  const data: OnnxWorkerData = {
    modelId,
    modelsDir,
    allowRemoteModels: allowRemote,
    // The hub's Xenova/* and onnx-community/* repos ship model_quantized.onnx, as we provision locally.
    dtype: weights?.dtype ?? 'q8',
    maxSeqLength: opts.maxSeqLength ?? 0,
    threads: checkedThreads(opts.threads ?? 0),
    configuredMaxSeqLength: readMaxSeqLength(modelDir) ?? KNOWN_MAX_SEQ_LENGTH[baseName] ?? 0,
    queryPrefix: prefixes.query,
    documentPrefix: prefixes.document,
    pooling: poolingFor(modelId, modelDir),
  };

  let worker;
  try {
    worker = await startModelWorker({
      module: 'onnx-worker',
      data: { ...data },
      label: `ONNX ${modelId}`,
      isolation: 'process',
      ...defined({ loadTimeoutMs: opts.loadTimeoutMs, logger: opts.logger }),
    });
  } catch (err) {
    const hint = allowRemote ? '' : '; run scripts/fetch-models.sh or set ALLOW_REMOTE_MODELS=true';
    throw new EmbedderSetupError(`cannot load ONNX model ${modelId} from ${modelDir}: ${(err as Error).message}${hint}`, { cause: err });
  }
  const dimensions = Number(worker.info.dimensions);
  const maxSeqLength = Number(worker.info.maxSeqLength);
  if (!(dimensions > 0 && maxSeqLength > 0)) {
    await worker.close();
    throw new EmbedderSetupError(`ONNX model ${modelId} reported no usable dimensions (${JSON.stringify(worker.info)})`);
  }
  const w = worker;

  return {
    id: `onnx:${modelId}`,
    dimensions,
    maxBatchSize,
    maxInputTokens: maxSeqLength,
    async embed(texts, kind = 'document') {
      assertTexts(texts);
      if (texts.length === 0) return [];
      return embedInBatches(texts, maxBatchSize, async (batch) => {
        const vectors = await w.embed(batch, kind);
        return vectors.map((v, i) => toUnitVector(v, `ONNX ${modelId} vector ${i}`));
      });
    },
    close: () => w.close(),
  };
}

function checkedThreads(n: number): number {
  if (!(Number.isInteger(n) && n >= 0)) throw new TypeError(`onnx embedder: threads must be a non-negative integer, got ${n}`);
  return n;
}
