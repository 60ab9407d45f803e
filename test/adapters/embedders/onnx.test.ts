import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedderSetupError } from '../../../src/adapters/embedders/common.js';
import { createOnnxEmbedder } from '../../../src/adapters/embedders/onnx.js';
import type { Embedder } from '../../../src/ports/embedder.js';
import { repoRoot } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';
import { chunkText, cosine, expectBatchInvariant, maxEventLoopGap, norm, PARAPHRASES, expectAnswersCloser } from './helpers.js';

const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
const modelsDir = path.resolve(process.env.MODELS_DIR ?? path.join(repoRoot, 'models'));
const modelDir = path.join(modelsDir, MODEL_ID);
const MODEL_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_quantized.onnx'];
const available = MODEL_FILES.every((f) => existsSync(path.join(modelDir, f)));

interface Reference {
  texts: string[];
  vectors: number[][];
}
const reference = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/minilm-fp32-reference.json', import.meta.url)), 'utf8'),
) as Reference;

describe('ONNX embedder without its model', () => {
  it('says how to provision the model, naming the missing files', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'no-models-'));
    try {
      const err = await createOnnxEmbedder({ modelId: MODEL_ID, modelsDir: empty }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmbedderSetupError);
      expect((err as Error).message).toContain('run scripts/fetch-models.sh or set ALLOW_REMOTE_MODELS=true');
      expect((err as Error).message).toContain(path.join(empty, MODEL_ID, 'onnx/model_quantized.onnx'));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('rejects model ids that are not Hugging Face ids', async () => {
    await expect(createOnnxEmbedder({ modelId: '../../etc', modelsDir: tmpdir() })).rejects.toThrow(/Hugging Face model id/);
    await expect(createOnnxEmbedder({ modelId: 'a/b/c', modelsDir: tmpdir() })).rejects.toThrow(EmbedderSetupError);
  });

  it('reports a corrupt model file as a load error, not a crash', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'bad-model-'));
    try {
      const d = path.join(dir, 'acme/broken-model');
      mkdirSync(path.join(d, 'onnx'), { recursive: true });
      for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) writeFileSync(path.join(d, f), '{}');
      writeFileSync(path.join(d, 'onnx/model_quantized.onnx'), 'not an onnx file');
      await expect(createOnnxEmbedder({ modelId: 'acme/broken-model', modelsDir: dir })).rejects.toThrow(
        /cannot load ONNX model acme\/broken-model/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeWithService(
  'ONNX embedder with all-MiniLM-L6-v2 int8',
  { available, why: `model not provisioned in ${modelDir} (run scripts/fetch-models.sh)` },
  () => {
    let embedder: Embedder;

    beforeAll(async () => {
      embedder = await createOnnxEmbedder({ modelId: MODEL_ID, modelsDir });
    });
    afterAll(async () => {
      await embedder?.close();
    });

    it('states its id, size and limits as data', () => {
      expect(embedder.id).toBe('onnx:Xenova/all-MiniLM-L6-v2');
      expect(embedder.dimensions).toBe(384);
      expect(embedder.maxInputTokens).toBe(256);
      expect(embedder.maxBatchSize).toBe(16);
    });

    it('embeds as sentence-transformers does (fp32 reference computed independently)', async () => {
      const vectors = await embedder.embed(reference.texts);
      vectors.forEach((v, i) => {
        expect(norm(v)).toBeCloseTo(1, 5);
        // int8 weights against fp32: measured 0.9996-0.9997; a wrong pooling or truncation falls far below.
        expect(cosine(v, reference.vectors[i] as number[])).toBeGreaterThan(0.995);
      });
      // Similarities agree with the reference too (0.691 paraphrase, 0.074 unrelated in fp32).
      const ref01 = cosine(reference.vectors[0] as number[], reference.vectors[1] as number[]);
      expect(cosine(vectors[0] as Float32Array, vectors[1] as Float32Array)).toBeCloseTo(ref01, 1);
    });

    it('scores paraphrases well above unrelated text', async () => {
      for (const p of PARAPHRASES) {
        const [a, para, other] = await embedder.embed([p.a, p.paraphrase, p.unrelated]);
        // Measured margins 0.56-0.61.
        expect(cosine(a as Float32Array, para as Float32Array)).toBeGreaterThan(cosine(a as Float32Array, other as Float32Array) + 0.3);
      }
      // Measured margins 0.39-0.55.
      await expectAnswersCloser(embedder, 0.2);
    });

    it('returns [] for no texts and rejects blank ones', async () => {
      expect(await embedder.embed([])).toEqual([]);
      await expect(embedder.embed(['a', ' '])).rejects.toThrow(/text 1 is empty/);
    });

    it('gives the same vectors in padded batches, split batches and alone', async () => {
      const small = await createOnnxEmbedder({ modelId: MODEL_ID, modelsDir, maxBatchSize: 2 });
      try {
        await expectBatchInvariant(embedder, small, 0.9999);
      } finally {
        await small.close();
      }
    });

    it('computes the same vectors on one thread (EMBED_THREADS=1) as on the default threads', async () => {
      const texts = ['peat swamp forest carbon stock', chunkText(3, 80)];
      const single = await createOnnxEmbedder({ modelId: MODEL_ID, modelsDir, threads: 1 });
      try {
        const one = await single.embed(texts);
        const many = await embedder.embed(texts);
        for (let i = 0; i < texts.length; i++) expect(cosine(one[i] as Float32Array, many[i] as Float32Array)).toBeGreaterThan(0.9999);
      } finally {
        await single.close();
      }
      await expect(createOnnxEmbedder({ modelId: MODEL_ID, modelsDir, threads: -1 })).rejects.toThrow(
        /threads must be a non-negative integer/,
      );
    });

    it('truncates at 256 word pieces, as sentence-transformers does', async () => {
      const head = chunkText(5, 400); // ~400 word pieces: the tails below are past the cut
      const [a, b, c] = await embedder.embed([
        `${head} ${chunkText(6, 300)}`,
        `${head} wholly different ending about cookstoves and kilns`,
        `mangroves ${head}`,
      ]);
      expect(cosine(a as Float32Array, b as Float32Array)).toBeGreaterThan(0.99999);
      // A change inside the first 256 pieces does change the vector (measured 0.93).
      expect(cosine(a as Float32Array, c as Float32Array)).toBeLessThan(0.99);
    });

    it('keeps the event loop answering timers while a batch embeds', async () => {
      // One full batch: on this thread it blocks the loop for seconds (measured 7 s for 16 x 256 pieces).
      const texts = Array.from({ length: 16 }, (_, i) => chunkText(i, 200));
      const started = performance.now();
      const { gapMs } = await maxEventLoopGap(() => embedder.embed(texts));
      expect(performance.now() - started).toBeGreaterThan(gapMs * 3);
      expect(gapMs).toBeLessThan(400);
    });

    it('fetch-models.sh is idempotent: verified files are kept and nothing is downloaded', () => {
      const r = spawnSync('bash', [path.join(repoRoot, 'scripts/fetch-models.sh'), modelsDir], {
        encoding: 'utf8',
        // A Python that cannot run proves no download is attempted.
        env: { ...process.env, PYTHON: '/nonexistent/python3' },
      });
      expect(r.stderr).toContain('all models present and verified');
      expect(r.status).toBe(0);
    });

    it('fetch-models.sh notices a tampered file and tries to replace it', () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'models-tampered-'));
      try {
        const d = path.join(dir, MODEL_ID);
        mkdirSync(path.join(d, 'onnx'), { recursive: true });
        for (const f of MODEL_FILES) symlinkSync(path.join(modelDir, f), path.join(d, f));
        const gguf = path.join(modelsDir, 'SmolLM2-135M-Instruct.Q4_1.gguf');
        if (existsSync(gguf)) symlinkSync(gguf, path.join(dir, 'SmolLM2-135M-Instruct.Q4_1.gguf'));
        rmSync(path.join(d, 'tokenizer_config.json'));
        writeFileSync(path.join(d, 'tokenizer_config.json'), '{"tampered": true}');
        const r = spawnSync('bash', [path.join(repoRoot, 'scripts/fetch-models.sh'), dir], {
          encoding: 'utf8',
          env: { ...process.env, PYTHON: '/nonexistent/python3' },
        });
        expect(r.stderr).toContain('tokenizer_config.json: present with a wrong sha256');
        expect(r.stderr).toContain('/nonexistent/python3 not found');
        expect(r.status).not.toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);

const BGE_ID = 'Xenova/bge-small-en-v1.5';
const bgeDir = path.join(modelsDir, BGE_ID);
const bgeReference = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/bge-onnx-reference.json', import.meta.url)), 'utf8'),
) as Reference & { kinds: ('query' | 'document')[] };

describeWithService(
  'ONNX embedder with bge-small-en-v1.5 int8',
  {
    available: MODEL_FILES.every((f) => existsSync(path.join(bgeDir, f))),
    why: `model not provisioned in ${bgeDir} (run scripts/fetch-models.sh)`,
  },
  () => {
    let embedder: Embedder;

    beforeAll(async () => {
      embedder = await createOnnxEmbedder({ modelId: BGE_ID, modelsDir });
    });
    afterAll(async () => {
      await embedder?.close();
    });

    it('states its id and size, and cuts at 256 word pieces (the chunk size the evaluation measured best)', () => {
      expect(embedder.id).toBe('onnx:Xenova/bge-small-en-v1.5');
      expect(embedder.dimensions).toBe(384);
      expect(embedder.maxInputTokens).toBe(256);
    });

    it('embeds as the model card says: query instruction, [CLS] pooling (reference: onnxruntime + HF tokenizers)', async () => {
      for (const [i, text] of bgeReference.texts.entries()) {
        const kind = bgeReference.kinds[i] ?? 'document';
        const [v] = await embedder.embed([text], kind);
        const want = bgeReference.vectors[i] as number[];
        // The same ONNX file on both sides: only the tokenizer, the instruction and the pooling can differ, and the CPU's
        // int8 kernels (above 0.9999 on the machine the reference was made on, 0.9972-0.9990 on an AMD EPYC);
        // a wrong instruction or pooling lands at 0.94-0.96 (below).
        expect(cosine(v as Float32Array, want)).toBeGreaterThan(0.995);
        // The text embedded as the other kind (with the instruction, or without it) lands far off: measured 0.94-0.96.
        const [other] = await embedder.embed([text], kind === 'query' ? 'document' : 'query');
        expect(cosine(other as Float32Array, want)).toBeLessThan(0.99);
      }
    });

    it('ranks the passage that answers a question above a distractor', async () => {
      // Measured margins 0.14 and 0.25.
      await expectAnswersCloser(embedder, 0.07);
    });

    it("reads the pooling from sentence-transformers' 1_Pooling/config.json when the folder has one", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'models-pooling-'));
      try {
        const d = path.join(dir, BGE_ID);
        mkdirSync(path.join(d, 'onnx'), { recursive: true });
        mkdirSync(path.join(d, '1_Pooling'));
        for (const f of MODEL_FILES) symlinkSync(path.join(bgeDir, f), path.join(d, f));
        writeFileSync(path.join(d, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_mean_tokens: true }));
        const meanPooled = await createOnnxEmbedder({ modelId: BGE_ID, modelsDir: dir });
        try {
          const [v] = await meanPooled.embed([bgeReference.texts[0] as string]);
          // The [CLS] reference is not what mean pooling gives.
          expect(cosine(v as Float32Array, bgeReference.vectors[0] as number[])).toBeLessThan(0.99);
        } finally {
          await meanPooled.close();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('gives the same vectors in padded batches, split batches and alone (it embeds one text a run)', async () => {
      const small = await createOnnxEmbedder({ modelId: BGE_ID, modelsDir, maxBatchSize: 2 });
      try {
        await expectBatchInvariant(embedder, small, 0.9999);
      } finally {
        await small.close();
      }
    });
  },
);
