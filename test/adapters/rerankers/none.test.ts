import { describe, expect, it } from 'vitest';
import { createPassThroughReranker } from '../../../src/adapters/rerankers/none.js';
import type { ScoredChunk } from '../../../src/domain/chunk-record.js';

const chunk = (id: string, score: number): ScoredChunk => ({
  id,
  registry: 'Verra',
  projectId: 1,
  documentId: 'd',
  documentTitle: 'd.pdf',
  documentType: 'Other',
  uri: 'https://x/d.pdf',
  page: 1,
  offset: 0,
  text: id,
  score,
});

describe('the pass-through reranker', () => {
  it('keeps the fused order, cut to topK, and asks the search for no extra candidates', async () => {
    const r = createPassThroughReranker();
    expect(r.window).toBe(0);
    const candidates = [chunk('a', 0.1), chunk('b', 0.9), chunk('c', 0.5)];
    expect((await r.rerank('q', candidates, 2)).map((c) => c.id)).toEqual(['a', 'b']);
    expect(await r.rerank('q', candidates, -1)).toEqual([]);
  });
});
