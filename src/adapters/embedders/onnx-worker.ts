/**
 * Worker thread of the ONNX embedder (see onnx.ts): onnxruntime-node's run() computes on the calling thread.
 * Embeds as sentence-transformers does: tokenise, truncate keeping the closing special token, run the encoder,
 * pool the last hidden state (the mean over real tokens, or the first token's for [CLS]-trained models; the parent
 * L2-normalises).
 */
import { AutoModel, AutoTokenizer, mean_pooling, Tensor } from '@huggingface/transformers';
import { cosine } from './common.js';
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
  /** `mean` over real tokens (sentence-transformers' default) or `cls`, the first token's vector. */
  pooling: 'mean' | 'cls';
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
    let vectors: Float32Array[];
    if (data.pooling === 'cls') {
      const [, steps = 0, dims = 0] = hidden.dims;
      const flat = hidden.data as Float32Array;
      vectors = texts.map((_, i) => flat.slice(i * steps * dims, i * steps * dims + dims));
    } else {
      const pooled = mean_pooling(hidden, attentionMask);
      const dims = pooled.dims[1] ?? 0;
      const flat = pooled.data as Float32Array;
      vectors = texts.map((_, i) => flat.slice(i * dims, (i + 1) * dims));
    }
    return {
      vectors,
      truncated: encoded.filter((e) => e.cut).length,
    };
  }

  const probe = await run(['dimension probe']);
  // A model quantised with dynamic activation ranges (one scale per tensor, taken over the whole batch) gives a text a
  // different vector beside other, longer texts (bge-small-en-v1.5's int8 export: cosine 0.985 padded against alone).
  // A text's vector must not depend on its batch (a chunk is embedded in batches, its query alone), so such a model
  // embeds one text a run; measured no slower on the CPU, as nothing is padded (bench/README.md, bge).
  const beside = await run(['dimension probe', 'a longer text beside it, '.repeat(12)]);
  const alone = probe.vectors[0] ?? new Float32Array();
  const batched = beside.vectors[0] ?? new Float32Array();
  const oneByOne = cosine(alone, batched) < 0.9999;
  async function runAll(texts: string[]): Promise<{ vectors: Float32Array[]; truncated: number }> {
    if (!oneByOne) return run(texts);
    const out = { vectors: [] as Float32Array[], truncated: 0 };
    for (const t of texts) {
      const r = await run([t]);
      out.vectors.push(...r.vectors);
      out.truncated += r.truncated;
    }
    return out;
  }
  return {
    info: { dimensions: alone.length, maxSeqLength, dtype: data.dtype, oneByOne: oneByOne ? 1 : 0 },
    async embed(texts, kind) {
      const prefix = kind === 'query' ? data.queryPrefix : data.documentPrefix;
      return runAll(prefix ? texts.map((t) => prefix + t) : texts);
    },
  };
});
