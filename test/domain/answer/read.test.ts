import { describe, expect, it } from 'vitest';
import { readExtractively } from '../../../src/domain/answer/read.js';
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

function read(question: string, scope: string[] = []) {
  return readExtractively(question, passages, { scope, tuning: ANSWER_TUNING });
}

describe('readExtractively', () => {
  it('quotes the sentence that holds the rare words of the question, and the next one when it answers too', () => {
    const r = read('How many clarification requests did the validation raise, and were they closed?');
    const q = r.quotes.find((x) => x.passageId === 1);
    expect(q?.text).toBe(
      'The validation of the project resulted in ten Clarification Requests. All Clarification Requests were closed after the ' +
        'project participants revised the PDD.',
    );
    expect(q?.core).toBe('All Clarification Requests were closed after the project participants revised the PDD.');
    expect(validation.slice(q?.start, q?.end)).toBe(q?.text);
    expect(r.answered).toBe(true);
  });

  it('weighs a word by how rare it is among the candidate sentences (BM25), so "risk factor" picks the rating', () => {
    const r = read('What non-permanence risk factor applies?');
    const q = r.quotes.find((x) => x.passageId === 2);
    expect(q?.text).toMatch(/^The non-permanence risk factors do not reflect any changes/);
    expect(r.quotes.reduce((a, b) => (b.score > a.score ? b : a)).passageId).toBe(2);
  });

  it('does not answer when the passages hold only the words that name where to look', () => {
    const unanswerable = read('What price per credit did the Ranjitnagar plant project sell at?', ['Ranjitnagar plant project']);
    expect(unanswerable.answered).toBe(false);
    expect(unanswerable.support).toBeLessThan(ANSWER_TUNING.answeredSupport);
  });

  it('reads nothing from no passage', () => {
    expect(readExtractively('Anything?', [], { tuning: ANSWER_TUNING })).toEqual({ quotes: [], support: 0, answered: false });
  });
});
