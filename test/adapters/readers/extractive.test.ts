import { describe, expect, it } from 'vitest';
import { createExtractiveReader } from '../../../src/adapters/readers/extractive.js';
import { ANSWER, request } from './request.js';

describe('the extractive reader', () => {
  it('quotes the sentence that answers, verbatim, and answers', async () => {
    const r = await createExtractiveReader().read(request);
    expect(r.answered).toBe(true);
    expect(r.quotes.find((q) => q.passageId === 1)?.text).toContain(ANSWER);
  });
});
