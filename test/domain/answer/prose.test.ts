import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/domain/answer/compose.js';
import { asProse, checkedOptions, withMarker } from '../../../src/domain/answer/prose.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';

describe('asProse', () => {
  it('reads a list of bullets as one line, without the glyphs or the document own reference markers', () => {
    expect(asProse('The project activities are:\n\u2022 planting of native species\n\u2022 assisted natural regeneration [12]')).toBe(
      'The project activities are: planting of native species; assisted natural regeneration',
    );
  });

  it('shows a quote that starts or stops mid-sentence to do so', () => {
    expect(asProse('and increase the income of local farmers.')).toBe('\u2026and increase the income of local farmers.');
    expect(asProse('a) Clarification whether the plant is new.')).toBe('a) Clarification whether the plant is new.');
    expect(asProse('The land is held by the community under the deed of')).toBe(
      'The land is held by the community under the deed of\u2026',
    );
  });
});

describe('checkedOptions', () => {
  it('reads a form checkbox field as the options ticked (VCS template layout)', () => {
    expect(checkedOptions('Crediting period \u2610 Seven years, twice renewable\n\u2610 Ten years, fixed\n\u2612 Other: 20 years')).toBe(
      'Crediting period: Other: 20 years',
    );
    expect(checkedOptions('Is the project a grouped project? \u2612 Yes \u2610 No\nThe instances are listed.')).toBe(
      'Is the project a grouped project? Yes.\nThe instances are listed.',
    );
    expect(checkedOptions('Grouped \u2610 Yes \u2610 No')).toBe('Grouped \u2610 Yes \u2610 No');
  });
});

describe('composeAnswer', () => {
  const passages = [
    { id: 1, text: '', project: 'Verra 514' },
    { id: 2, text: '', project: 'Verra 514' },
    { id: 3, text: '', project: 'Verra 514' },
  ];
  const quote = (passageId: number, text: string, score: number) => ({ passageId, start: 0, end: text.length, text, score, coverage: 0.5 });

  it('gives the quotes best first with their markers, cites a repeated statement beside the first, and keeps the budget', () => {
    const answer = composeAnswer(
      [
        quote(1, 'The risk factor remains at 10%.', 1),
        quote(2, 'The non-permanence risk factor remains at 10%.', 0.9),
        quote(3, 'The buffer withholding is applied to the net GHG removals.', 0.7),
      ],
      passages,
      { maxChars: 600, tuning: ANSWER_TUNING },
    );
    expect(answer).toBe('The risk factor remains at 10% [1][2]. The buffer withholding is applied to the net GHG removals [3].');
    const short = composeAnswer([quote(1, 'The risk factor remains at 10%.', 1), quote(3, 'x'.repeat(30) + ' buffer.', 0.9)], passages, {
      maxChars: 40,
      tuning: ANSWER_TUNING,
    });
    expect(short).toBe('The risk factor remains at 10% [1].');
  });

  it('names the project before each piece when the passages come from several', () => {
    const answer = composeAnswer(
      [quote(1, 'The crediting period is 30 years.', 1)],
      [
        { id: 1, text: '', project: 'Verra 514' },
        { id: 2, text: '', project: 'CDM 430' },
      ],
      {
        maxChars: 600,
        tuning: ANSWER_TUNING,
      },
    );
    expect(answer).toBe('Verra 514: The crediting period is 30 years [1].');
    expect(withMarker('Values are listed:', [3, 2])).toBe('Values are listed\u2026 [2][3].');
  });
});
