import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { cosine } from '../../../src/adapters/embedders/common.js';
import { startModelWorker, type ModelWorker } from '../../../src/adapters/embedders/worker-client.js';
import type { OnnxWorkerData } from '../../../src/adapters/embedders/onnx-worker.js';
import { repoRoot } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';

/**
 * The ONNX worker module over the provisioned MiniLM, in a child process as the embedder runs it: what it reports,
 * its cut of long texts, its pooling and its prefixes.
 */
const MODEL_ID = 'Xenova/all-MiniLM-L6-v2';
const modelsDir = path.resolve(process.env.MODELS_DIR ?? path.join(repoRoot, 'models'));
const available = existsSync(path.join(modelsDir, MODEL_ID, 'onnx/model_quantized.onnx'));

const DATA: OnnxWorkerData = {
  modelId: MODEL_ID,
  modelsDir,
  allowRemoteModels: false,
  dtype: 'q8',
  maxSeqLength: 0,
  configuredMaxSeqLength: 256,
  queryPrefix: '',
  documentPrefix: '',
  pooling: 'mean',
  threads: 1,
};
const SENTENCE = 'The project restores peat swamp forest in Central Kalimantan by blocking drainage canals.';
const OTHER = 'Cookstoves replace open fires in Kenya.';

/** Starts the worker with `data`, runs `body` on it, and closes it: three starts in all, each a few seconds. */
async function withWorker(data: Partial<OnnxWorkerData>, body: (w: ModelWorker) => Promise<void>): Promise<void> {
  const w = await startModelWorker({ module: 'onnx-worker', data: { ...DATA, ...data }, label: 'ONNX', isolation: 'process' });
  try {
    await body(w);
  } finally {
    await w.close();
  }
}

describeWithService('the ONNX worker', { available, why: `${MODEL_ID} is not in ${modelsDir} (scripts/fetch-models.sh)` }, () => {
  it('cuts a text to an explicit maxSeqLength in word pieces, so words past it change nothing', async () => {
    await withWorker({ maxSeqLength: 8 }, async (w) => {
      expect(w.info).toMatchObject({ dimensions: 384, maxSeqLength: 8, dtype: 'q8' });
      const vectors = await w.embed([SENTENCE, `${SENTENCE} ${OTHER}`, OTHER], 'document');
      expect(cosine(vectors[0] ?? [], vectors[1] ?? [])).toBeCloseTo(1, 5);
      expect(cosine(vectors[0] ?? [], vectors[2] ?? [])).toBeLessThan(0.9);
    });
  }, 120_000);

  it('pools by mean or by the first token, and puts the query prefix before a query only', async () => {
    let mean: Float32Array[] = [];
    await withWorker({ queryPrefix: 'query: ' }, async (w) => {
      expect(w.info).toMatchObject({ maxSeqLength: 256 });
      mean = await w.embed([SENTENCE], 'document');
      const query = await w.embed([SENTENCE], 'query');
      expect(cosine(query[0] ?? [], mean[0] ?? [])).toBeLessThan(0.999);
    });
    await withWorker({ pooling: 'cls' }, async (w) => {
      const cls = await w.embed([SENTENCE], 'document');
      expect(cosine(cls[0] ?? [], mean[0] ?? [])).toBeLessThan(0.99);
    });
  }, 120_000);
});
