import { describe, expect, it } from 'vitest';
import {
  answerPieces,
  evidenceShare,
  evidenceSupported,
  namesFact,
  statedElsewhere,
  statesFact,
  unsupportedReason,
} from '../../bench/eval/answers.js';

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

describe('statedElsewhere', () => {
  const answer = 'The permanence period for this project is 01/01/2033 to 31/12/2042 [2].';
  it('finds the evidence stated from a cited passage on a page the question does not name', () => {
    expect(evidenceSupported(q, answer, [page9])).toBe(false);
    expect(statedElsewhere(q, answer, [{ ...page9, text: `Permanence\n${q.evidence}` }])).toBe(true);
  });
  it('needs the cited passage to hold the evidence, not only the answer piece', () => {
    expect(statedElsewhere(q, answer, [{ ...page9, text: 'The Credit Class requires a 10-year period.' }])).toBe(false);
    expect(statedElsewhere(q, 'Another matter entirely [2].', [{ ...page9, text: q.evidence }])).toBe(false);
  });
});

describe('statesFact and namesFact (the generic questions, bench/eval/generic.ts)', () => {
  it('finds a code or a figure however it is separated, but not inside a longer code, and a name by its words', () => {
    expect(statesFact('AM0001', 'The methodology AM 0001, applied to this project')).toBe(true);
    expect(statesFact('AM0001', 'the revised methodology (AR-AM0001/version 02) is applied')).toBe(false);
    expect(statesFact('AR-AM0001', 'the revised methodology (AR-AM0001/version 02) is applied')).toBe(true);
    expect(statesFact('26,752', 'The annual average carbon removal is estimated at 26,752tCO2e.')).toBe(true);
    expect(statesFact('256 109', 'estimated to be on the average 256 109tCO2e per year')).toBe(true);
    expect(statesFact('26,752', 'a total of 126,752 tCO2e')).toBe(false);
    expect(statesFact('Bosques de la Primavera', 'Project participants Bosques de la Primavera S.A. Host Party Colombia')).toBe(true);
    expect(statesFact('Bosques de la Primavera', 'Bosques de la Orinoquia S.A.')).toBe(false);
  });

  it('needs the answer piece and a passage it cites to state the fact', () => {
    const cited = [{ id: 3, text: 'Organisation Name Ecometric Ltd Contact Person David Wright' }];
    expect(namesFact('Ecometric', 'Organisation Name Ecometric Ltd [3].', cited)).toBe(true);
    expect(namesFact('Ecometric', 'The project proponent must monitor [3].', cited)).toBe(false);
    expect(namesFact('Ecometric', 'Organisation Name Ecometric Ltd [3].', [{ id: 3, text: 'The project proponent must monitor.' }])).toBe(
      false,
    );
  });
});
