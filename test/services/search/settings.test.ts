import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';
import { DEFAULT_MAX_TOP_K, DEFAULT_TOP_K } from '../../../src/domain/search-limits.js';
import { resolveSettings } from '../../../src/services/search/settings.js';
import type { SearchServiceOptions } from '../../../src/services/search/types.js';
import { createSearchFixture, searchOptions, type SearchFixture } from '../support/fixtures.js';

let fx: SearchFixture;
beforeAll(async () => {
  fx = await createSearchFixture();
});
afterAll(async () => {
  await fx.close();
});

const settings = (over: Partial<SearchServiceOptions> = {}) => resolveSettings(searchOptions(fx, over));

describe('resolveSettings', () => {
  it('applies the documented defaults: convex fusion 0.7 / 0.3, page bonus 0.2, the shared limits and tuning', () => {
    const s = settings();
    expect(s).toMatchObject({
      defaultTopK: DEFAULT_TOP_K,
      maxTopK: DEFAULT_MAX_TOP_K,
      weights: { text: 0.7, vector: 0.3 },
      pageBonus: 0.2,
      pageTexts: null,
    });
    expect(s.tuning).toEqual(ANSWER_TUNING);
    expect(s.recordNames.size).toBe(0);
  });

  it("takes the caller's fusion weights", () => {
    expect(settings({ textWeight: 0.5, vectorWeight: 0.5 }).weights).toEqual({ text: 0.5, vector: 0.5 });
  });

  it('overrides single tuning constants and keeps the rest, without changing the shared constants', () => {
    const s = settings({ tuning: { hedgedSupport: 0.9, answerChars: 300 } });
    expect(s.tuning).toEqual({ ...ANSWER_TUNING, hedgedSupport: 0.9, answerChars: 300 });
    expect(ANSWER_TUNING.hedgedSupport).toBe(0.7);
  });

  it('accepts the page bonus bounds 0 and 1', () => {
    expect(settings({ pageBonus: 0 }).pageBonus).toBe(0);
    expect(settings({ pageBonus: 1 }).pageBonus).toBe(1);
  });

  it('rejects a page bonus outside [0, 1] and a defaultTopK outside 1..maxTopK, naming the option', () => {
    for (const pageBonus of [2, -0.1, Number.NaN]) expect(() => settings({ pageBonus }), String(pageBonus)).toThrow(/pageBonus/);
    expect(() => settings({ pageBonus: 2 })).toThrow(RangeError);
    expect(() => settings({ defaultTopK: 60, maxTopK: 50 })).toThrow(/defaultTopK must be in 1\.\.maxTopK \(50\), got 60/);
    expect(() => settings({ defaultTopK: 0 })).toThrow(RangeError);
    // Checked against the default maximum too.
    expect(() => settings({ defaultTopK: DEFAULT_MAX_TOP_K + 1 })).toThrow(/defaultTopK/);
    expect(settings({ defaultTopK: 4, maxTopK: 4 })).toMatchObject({ defaultTopK: 4, maxTopK: 4 });
  });

  it('reads page texts through a cache only when a text store is given, one cache per service', async () => {
    const texts = await createSqliteDocumentTextStore({ db: fx.db });
    try {
      const ref = { registry: 'Verra', projectId: 5533 };
      await texts.put(ref, 'pd', ['Page one.', 'Page two.']);
      const a = settings({ texts });
      const b = settings({ texts });
      expect(a.pageTexts).not.toBeNull();
      expect(a.pageTexts).not.toBe(b.pageTexts);
      const chunk = {
        id: 'c',
        ...ref,
        documentId: 'pd',
        documentTitle: 'pd.pdf',
        documentType: 'Project Description',
        uri: 'https://docs.example.org/5533/pd.pdf',
        page: 1,
        offset: 0,
        text: 'Page one.',
      };
      expect((await a.pageTexts?.get(chunk, 'k'))?.pages).toEqual(['Page one.', 'Page two.']);
      expect(await a.pageTexts?.get({ ...chunk, documentId: 'missing' }, 'other')).toBeNull();
    } finally {
      await texts.close();
    }
  });
});
