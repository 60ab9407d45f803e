import { describe, expect, it } from 'vitest';
import { quotesOf } from '../../../src/domain/answer/quotes.js';
import type { ScoredCandidate } from '../../../src/domain/answer/scorer.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';

// A validation report's sentences, as candidates with scores the scorer could give them.
const TEXT =
  'The validation of the project resulted in ten Clarification Requests. All Clarification Requests were closed after the ' +
  'project participants revised the PDD. The team visited the plant on 12 May 2005.';

function candidate(sentence: string, score: number, coverage: number, terms: string[], passageId = 1): ScoredCandidate {
  const start = TEXT.indexOf(sentence);
  return { passageId, start, end: start + sentence.length, text: sentence, terms, score, coverage };
}
const S1 = 'The validation of the project resulted in ten Clarification Requests.';
const S2 = 'All Clarification Requests were closed after the project participants revised the PDD.';
const S3 = 'The team visited the plant on 12 May 2005.';
const texts = new Map([
  [1, TEXT],
  [2, TEXT],
]);

describe('quotesOf', () => {
  it('joins the adjoining sentence that holds a question word and scores close enough, keeping the best as the core', () => {
    const r = quotesOf(
      {
        candidates: [candidate(S1, 1, 0.4, ['validation', 'ten']), candidate(S2, 0.8, 0.3, ['closed']), candidate(S3, 0.1, 0.1, ['team'])],
      },
      texts,
      ANSWER_TUNING,
    );
    expect(r.quotes).toEqual([expect.objectContaining({ passageId: 1, text: `${S1} ${S2}`, core: S1, score: 1, coverage: 0.4 })]);
    expect(TEXT.slice(r.quotes[0]?.start, r.quotes[0]?.end)).toBe(r.quotes[0]?.text);
    expect(r.support).toBe(0.4);
  });

  it('does not join a sentence that scores too little, holds no question word or has text between, and measures a joined quote with coverageOf', () => {
    const alone = quotesOf({ candidates: [candidate(S1, 1, 0.4, ['ten']), candidate(S2, 0.2, 0.3, ['closed'])] }, texts, ANSWER_TUNING);
    expect(alone.quotes[0]?.text).toBe(S1);
    expect(alone.quotes[0]).not.toHaveProperty('core');
    const wordless = quotesOf({ candidates: [candidate(S1, 1, 0.4, ['ten']), candidate(S2, 0.9, 0, [])] }, texts, ANSWER_TUNING);
    expect(wordless.quotes[0]?.text).toBe(S1);
    const apart = quotesOf({ candidates: [candidate(S1, 1, 0.4, ['ten']), candidate(S3, 0.9, 0.3, ['team'])] }, texts, ANSWER_TUNING);
    expect(apart.quotes[0]?.text).toBe(S1);
    const joined = quotesOf(
      { candidates: [candidate(S1, 1, 0.4, ['ten']), candidate(S2, 0.9, 0.3, ['closed'])], coverageOf: () => 0.65 },
      texts,
      ANSWER_TUNING,
    );
    expect(joined.quotes[0]?.coverage).toBe(0.65);
  });

  it('gives one quote per passage, in passage order, and no support without candidates', () => {
    const r = quotesOf({ candidates: [candidate(S3, 0.5, 0.2, ['team'], 2), candidate(S1, 0.3, 0.1, ['ten'], 1)] }, texts, ANSWER_TUNING);
    expect(r.quotes.map((q) => q.passageId)).toEqual([1, 2]);
    expect(quotesOf({ candidates: [] }, texts, ANSWER_TUNING)).toEqual({ quotes: [], support: 0 });
  });
});
