import { describe, expect, it } from 'vitest';
import { answerPieces, evidenceShare, evidenceSupported, unsupportedReason } from '../../bench/eval/answers.js';

// The measures behind the answer targets (bench/eval/main.ts): what counts as an evidence-supported answer,
// and where an unsupported one lost the evidence.

const q = {
  evidence: 'The permanence period for this project is 01/01/2033 to 31/12/2042.',
  file: 'plan.pdf',
  pages: [8],
};
const page8 = { id: 1, documentTitle: 'plan.pdf', page: 8 };
const page9 = { id: 2, documentTitle: 'plan.pdf', page: 9 };

describe('answerPieces', () => {
  it('cuts the answer after each run of markers', () => {
    expect(answerPieces('A is one [1]. B is two [2][3]. Trailing text.')).toEqual([
      { text: 'A is one', markers: [1] },
      { text: '. B is two', markers: [2, 3] },
    ]);
  });
});

describe('evidenceSupported', () => {
  it('needs 60% of the evidence words in one piece, and that piece citing a gold page', () => {
    const answer = 'The permanence period for this project is 01/01/2033 to 31/12/2042 [1].';
    expect(evidenceShare(q.evidence, answer)).toBe(1);
    expect(evidenceSupported(q, answer, [page8])).toBe(true);
    // The same words cited to another page, or split over two pieces, do not count.
    expect(evidenceSupported(q, 'The permanence period for this project is 01/01/2033 to 31/12/2042 [2].', [page9])).toBe(false);
    expect(evidenceSupported(q, 'The permanence period [1]. for this project is 01/01/2033 to 31/12/2042 [2].', [page8, page9])).toBe(
      false,
    );
  });
});

describe('unsupportedReason', () => {
  const holding = { ...page8, text: `Permanence Period\n${q.evidence}`, quote: q.evidence };
  it('names the first step that lost the evidence', () => {
    expect(unsupportedReason(q, true, [{ ...page9, text: q.evidence }])).toBe('no-gold-page');
    expect(unsupportedReason(q, true, [{ ...page8, text: 'The Credit Class requires a 10-year period.' }])).toBe('passage-lacks');
    expect(unsupportedReason(q, true, [{ ...holding, quote: 'Permanence Period' }])).toBe('other-quote');
    expect(unsupportedReason(q, false, [holding])).toBe('not-answered');
    expect(unsupportedReason(q, true, [holding])).toBe('left-out');
  });
});
