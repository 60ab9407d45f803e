import { describe, expect, it } from 'vitest';
import { composeAnswer } from '../../../src/domain/answer/compose.js';
import { ANSWER_TUNING } from '../../../src/domain/answer/tuning.js';

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
  });
});
