import { describe, expect, it } from 'vitest';
import { documentShare, readExtractively } from '../../../src/domain/answer/read.js';
import { normalizedTerms } from '../../../src/domain/query.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';

// Sentences as extraction gives them from a CDM validation report and a VCS monitoring report.
const validation =
  'The validation team reviewed the project design document. The validation of the project resulted in ten ' +
  'Clarification Requests. All Clarification Requests were closed after the project participants revised the PDD. The team ' +
  'visited the plant at Ranjitnagar on 12 May 2005.';
const monitoring =
  'The non-permanence risk factors do not reflect any changes, and given this, the risk factor remains at 10%. ' +
  'The buffer withholding is applied to the net GHG removals of the monitoring period.';

const validationPassage = { id: 1, text: validation, score: 0.8 };
const monitoringPassage = { id: 2, text: monitoring, score: 0.6 };
const passages = [validationPassage, monitoringPassage];

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

  it('answers a question whose words its documents use elsewhere, not one that asks of what they never mention', () => {
    // One sentence holds "team", "visited" and "plant"; whether the report speaks of noise anywhere decides.
    const question = 'What noise levels did the team measure when it visited the plant?';
    const silent = readExtractively(question, passages, { tuning: ANSWER_TUNING });
    const noiseReport = new Set(normalizedTerms(`${validation} Noise levels were measured at the plant boundary.`));
    const speaks = readExtractively(question, [{ ...validationPassage, usesWord: (t: string) => noiseReport.has(t) }, monitoringPassage], {
      tuning: ANSWER_TUNING,
    });
    expect(silent.quotes.find((q) => q.passageId === 1)?.text).toMatch(/^The team\s+visited the plant/);
    expect(silent.answered).toBe(false);
    expect(speaks.answered).toBe(true);
    expect(speaks.support - silent.support).toBeCloseTo(0.5 * (3 / 6), 5);
  });

  it('counts the question words its documents use, each passage standing for its document when that is not at hand', () => {
    const terms = normalizedTerms('noise levels team plant');
    expect(documentShare(terms, passages)).toBe(0.5);
    const report = new Set(normalizedTerms('Noise levels were measured.'));
    expect(documentShare(terms, [{ ...monitoringPassage, usesWord: (t: string) => report.has(t) }, validationPassage])).toBe(1);
    expect(documentShare([], passages)).toBe(0);
  });

  it('reads nothing from no passage', () => {
    expect(readExtractively('Anything?', [], { tuning: ANSWER_TUNING })).toEqual({ quotes: [], support: 0, answered: false });
  });
});
