import { describe, expect, it } from 'vitest';
import { candidatesOf } from '../../../src/domain/answer/candidates.js';
import { quotesOf } from '../../../src/domain/answer/quotes.js';
import { normalizedTerms } from '../../../src/domain/query.js';
import { scoreCandidates } from '../../../src/domain/answer/scorer.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';

// Sentences as extraction gives them from a CDM validation report and a VCS monitoring report.
const validation =
  'The validation team reviewed the project design document. The validation of the project resulted in ten ' +
  'Clarification Requests. All Clarification Requests were closed after the project participants revised the PDD. The team ' +
  'visited the plant at Ranjitnagar on 12 May 2005.';
const monitoring =
  'The non-permanence risk factors do not reflect any changes, and given this, the risk factor remains at 10%. ' +
  'The buffer withholding is applied to the net GHG removals of the monitoring period.';

const passages = [
  { id: 1, text: validation, score: 0.8 },
  { id: 2, text: monitoring, score: 0.6 },
];

describe('scoreCandidates', () => {
  it('scores coverage as the share of the question word weight held, scope words left out', () => {
    const question = [...new Set(normalizedTerms('When did the team visit the plant at Ranjitnagar?'))];
    const candidates = passages.flatMap((p) => candidatesOf(p, ANSWER_TUNING));
    const scored = scoreCandidates(question, candidates, {
      passageScores: new Map([[1, 1]]),
      scope: new Set(normalizedTerms('Ranjitnagar')),
      tuning: ANSWER_TUNING,
    });
    const visit = scored.candidates.find((c) => c.text.startsWith('The team visited'));
    expect(visit?.coverage).toBeGreaterThan(0.3);
    expect(scored.coverageOf?.(normalizedTerms('Ranjitnagar'))).toBe(0);
    expect(Math.max(...scored.candidates.map((c) => c.score))).toBe(visit?.score);
    expect(quotesOf(scored, new Map(passages.map((p) => [p.id, p.text])), ANSWER_TUNING).support).toBe(visit?.coverage);
  });
});
