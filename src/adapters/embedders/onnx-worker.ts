/**
 * Worker thread of the ONNX embedder (see onnx.ts): onnxruntime-node's run() computes on the calling thread.
 * Embeds as sentence-transformers does: tokenise, truncate keeping the closing special token, run the encoder,
 * mean-pool the last hidden state over real tokens (the parent L2-normalises).
 */
import { AutoModel, AutoTokenizer, mean_pooling, Tensor } from '@huggingface/transformers';
import { getWorkerData, serveModel } from './worker-protocol.js';

export interface OnnxWorkerData {
  modelId: string;
  /** Absolute MODELS_DIR: transformers.js looks files up there (as its cache_dir) and saves downloads there. */
  modelsDir: string;
  allowRemoteModels: boolean;
  dtype: 'q8' | 'fp32';
  /** Explicit limit in word pieces (special tokens included), or 0 to use the default for the model. */
  maxSeqLength: number;
  /** Limit found in the model folder (sentence_bert_config.json or the known-model table), or 0. */
  configuredMaxSeqLength: number;
  queryPrefix: string;
  documentPrefix: string;
  /** onnxruntime's intra-op threads; 0: its default (one per core). */
  threads: number;
}

const data = getWorkerData<OnnxWorkerData>();

await serveModel(async () => {
  // Per-call options rather than the library's global `env`, so nothing else in the process is affected.
  const loadOpts = { cache_dir: data.modelsDir, local_files_only: !data.allowRemoteModels };
  const tokenizer = await AutoTokenizer.from_pretrained(data.modelId, loadOpts);
  const model = await AutoModel.from_pretrained(data.modelId, {
    ...loadOpts,
    dtype: data.dtype,
    device: 'cpu',
    // onnxruntime's CPU arena keeps the peak of every input shape it has seen: hundreds of MB more RSS on full
    // batches, for no measurable speed gain (bench/README.md "Measurements cited by code").
    session_options: { enableCpuMemArena: false, ...(data.threads > 0 ? { intraOpNumThreads: data.threads } : {}) },
  });

  const tokenizerLimit = Number.isFinite(tokenizer.model_max_length) ? tokenizer.model_max_length : 512;
  const maxSeqLength = data.maxSeqLength || data.configuredMaxSeqLength || Math.min(tokenizerLimit, 512);
  const specialIds = new Set<number>(tokenizer.all_special_ids);
  const padId = tokenizer.pad_token_id ?? 0;

  /**
   * Cuts to maxSeqLength keeping the closing special token ([SEP], </s>) as HF tokenizers do for
   * sentence-transformers; transformers.js's own truncation would drop it.
   */
  function encode(text: string): { ids: number[]; cut: boolean } {
    const ids = tokenizer.encode(text);
    if (ids.length <= maxSeqLength) return { ids, cut: false };
    const last = ids[ids.length - 1];
    if (last !== undefined && specialIds.has(last)) return { ids: [...ids.slice(0, maxSeqLength - 1), last], cut: true };
    return { ids: ids.slice(0, maxSeqLength), cut: true };
  }

  async function run(texts: string[]): Promise<{ vectors: Float32Array[]; truncated: number }> {
    const encoded = texts.map(encode);
    const width = Math.max(...encoded.map((e) => e.ids.length));
    const ids = new BigInt64Array(encoded.length * width).fill(BigInt(padId));
    const mask = new BigInt64Array(encoded.length * width);
    encoded.forEach((e, row) => {
      e.ids.forEach((id, col) => {
        ids[row * width + col] = BigInt(id);
        mask[row * width + col] = 1n;
      });
    });
    const attentionMask = new Tensor('int64', mask, [encoded.length, width]);
    const output = (await model({
      input_ids: new Tensor('int64', ids, [encoded.length, width]),
      attention_mask: attentionMask,
    })) as Record<string, Tensor | undefined>;
    const hidden = output.last_hidden_state ?? output.token_embeddings;
    if (!hidden) throw new Error(`model ${data.modelId} has no last_hidden_state output`);
    const pooled = mean_pooling(hidden, attentionMask);
    const dims = pooled.dims[1] ?? 0;
    const flat = pooled.data as Float32Array;
    return {
      vectors: texts.map((_, i) => flat.slice(i * dims, (i + 1) * dims)),
      truncated: encoded.filter((e) => e.cut).length,
    };
  }

  const probe = await run(['dimension probe']);
  return {
    info: { dimensions: probe.vectors[0]?.length ?? 0, maxSeqLength, dtype: data.dtype },
    async embed(texts, kind) {
      const prefix = kind === 'query' ? data.queryPrefix : data.documentPrefix;
      return run(prefix ? texts.map((t) => prefix + t) : texts);
    },
  };
});
