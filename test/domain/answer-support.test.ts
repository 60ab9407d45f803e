import { describe, expect, it } from 'vitest';
import { answerSentences, checkAnswerSupport, cutRepetition, repetitionStart } from '../../src/domain/answer-support.js';

const passages = [
  { id: 1, text: 'The crediting period is 20 years, from 15/07/2022 to 14/07/2042, under methodology VM0047.' },
  { id: 2, text: 'The total net anthropogenic GHG removals are estimated to be on the average 256 109tCO₂e per year.' },
  { id: 3, text: 'PAI 1 is expected to achieve removals of 5,35,052 tCO₂e over the initial 20-year crediting period.' },
];

describe('answerSentences', () => {
  it('splits lines and sentences, keeping a marker after the full stop with its sentence', () => {
    expect(answerSentences('It is 20 years. [1] The rate is 12.5 percent [2].\n- e.g. the pool [3].')).toEqual([
      ['It is 20 years. [1]', 'The rate is 12.5 percent [2].'],
      ['- e.g. the pool [3].'],
    ]);
  });
});

describe('checkAnswerSupport', () => {
  it('keeps sentences whose words, numbers and codes the cited passage holds', () => {
    const r = checkAnswerSupport('The crediting period is 20 years [1]. It runs to 14/07/2042 under VM0047 [1].', passages);
    expect(r.text).toBe('The crediting period is 20 years [1]. It runs to 14/07/2042 under VM0047 [1].');
    expect(r.dropped).toEqual([]);
    expect(r.kept.map((k) => k.cites)).toEqual([[1], [1]]);
  });

  it('drops a sentence citing a passage that does not hold its content words', () => {
    const r = checkAnswerSupport('The crediting period is 20 years [1]. Lead validator Mariana Ospina approved the design [1].', passages);
    expect(r.text).toBe('The crediting period is 20 years [1].');
    expect(r.dropped).toHaveLength(1);
    expect(r.dropped[0]?.sentence).toMatch(/Mariana/);
    expect(r.dropped[0]?.share).toBeLessThan(0.6);
  });

  it('drops a sentence whose figure or code the cited passage does not give verbatim, even when its words match', () => {
    const r = checkAnswerSupport('The crediting period is 30 years [1]. The crediting period uses VM0007 [1].', passages);
    expect(r.text).toBe('');
    expect(r.dropped.map((d) => d.missing)).toEqual([['30'], ['vm0007']]);
  });

  it('checks a sentence against the passage it cites, not any passage', () => {
    // Passage 2 holds the figure, but the sentence cites passage 1.
    expect(checkAnswerSupport('Average GHG removals are 256,109 tCO2e per year [1].', passages).text).toBe('');
    expect(checkAnswerSupport('Average GHG removals are 256,109 tCO2e per year [2].', passages).text).toBe(
      'Average GHG removals are 256,109 tCO2e per year [2].',
    );
  });

  it('reads thousands separators and subscripts as the passage writes them', () => {
    expect(checkAnswerSupport('PAI 1 removals: 535,052 tCO2e over the crediting period [3].', passages).kept).toHaveLength(1);
    expect(checkAnswerSupport('PAI 1 removals: 5,35,052 tCO₂e over the crediting period [3].', passages).kept).toHaveLength(1);
  });

  it('does not take a number for one it is part of', () => {
    // "20" is in 2042 and 20-year, "2" in tCO2e: only a whole 20 counts, which passage 1 has and passage 2 lacks.
    expect(checkAnswerSupport('Removals are 20 per year [2].', passages).text).toBe('');
    expect(checkAnswerSupport('The crediting period is 2 years [1].', passages).text).toBe('');
  });

  it('judges a sentence with several markers against all the passages it cites', () => {
    const r = checkAnswerSupport('The crediting period is 20 years and removals average 256,109 tCO2e per year [1][2].', passages);
    expect(r.kept).toHaveLength(1);
  });

  it('gives an unmarked sentence the marker of the passage that supports it, and drops it when none does', () => {
    const r = checkAnswerSupport('Here is what I found. The crediting period is 20 years. Bananas grow in tropical climates.', passages);
    expect(r.text).toBe('The crediting period is 20 years [1].');
    expect(r.kept[0]?.attached).toBe(true);
    expect(r.dropped.map((d) => d.sentence)).toEqual(['Here is what I found.', 'Bananas grow in tropical climates.']);
  });

  it('never keeps a statement that the passages do not answer, nor a bare marker', () => {
    for (const reply of [
      'Not found.',
      'The documents do not say [1].',
      'The passages don\u2019t mention it [2].',
      '[1]',
      'Yes [1].',
      '1 [3].',
    ]) {
      const r = checkAnswerSupport(reply, passages);
      expect(r.text, reply).toBe('');
      expect(r.kept, reply).toEqual([]);
    }
  });

  it('drops fragments and lead-ins: a model copying from mid-passage, or echoing the prompt', () => {
    const reply =
      'Passages:\n[1] PD.pdf, page 9:\n\u2026crediting period is 20 years [1]. years, from 15/07/2022 to 14/07/2042 [1]. The crediting period is 20 years [1].';
    const r = checkAnswerSupport(reply, passages);
    expect(r.text).toBe('The crediting period is 20 years [1].');
    expect(r.dropped.map((d) => d.sentence)).toEqual([
      'Passages:',
      '[1] PD.pdf, page 9:',
      // A lower-case start is no sentence boundary: the two fragments are one piece.
      '\u2026crediting period is 20 years [1]. years, from 15/07/2022 to 14/07/2042 [1].',
    ]);
  });

  it('drops the question echoed and contents lines', () => {
    for (const reply of [
      'Question: What is the crediting period of the project [1]?',
      'What is the crediting period [1]?',
      '3.4 Crediting period ........ 20 [1]',
      '3.4 Crediting period . . . . . . 20 [1]',
    ]) {
      expect(checkAnswerSupport(reply, passages).text, reply).toBe('');
    }
  });

  it('keeps the line layout of a list, dropping the unsupported items', () => {
    const r = checkAnswerSupport(
      '- The crediting period is 20 years [1].\n- The project plants teak [1].\n- GHG removals average 256 109 tCO2e [2].',
      passages,
    );
    expect(r.text).toBe('- The crediting period is 20 years [1].\n- GHG removals average 256 109 tCO2e [2].');
  });

  it('supports nothing through a marker that cites no passage', () => {
    expect(checkAnswerSupport('The crediting period is 20 years [7].', passages).text).toBe('');
  });

  it('keeps whole sentences within a length budget, the first always', () => {
    const reply =
      'The crediting period is 20 years [1]. GHG removals average 256 109 tCO2e per year [2]. PAI 1 removals are 5,35,052 tCO2e [3].';
    const r = checkAnswerSupport(reply, passages, { maxChars: 90 });
    expect(r.text).toBe('The crediting period is 20 years [1]. GHG removals average 256 109 tCO2e per year [2].');
    expect(checkAnswerSupport(reply, passages, { maxChars: 10 }).text).toBe('The crediting period is 20 years [1].');
  });

  it('drops a sentence whose cited passage holds under 0.6 of its content words', () => {
    const reply = 'The crediting period of twenty years starts in July [1].';
    const r = checkAnswerSupport(reply, passages);
    expect(r.text).toBe('');
    expect(r.dropped[0]?.share).toBeGreaterThan(0.3);
    expect(r.dropped[0]?.share).toBeLessThan(0.6);
  });
});

describe('repetitionStart and cutRepetition', () => {
  it('cuts a sentence that repeats an earlier one, keeping the first copy', () => {
    const looped = 'The crediting period is 20 years [1]. The project is in India [2]. The crediting period is 20 years [1]. The crediting';
    expect(cutRepetition(looped)).toEqual({ text: 'The crediting period is 20 years [1]. The project is in India [2].', cut: true });
  });

  it('cuts a phrase that repeats without full stops', () => {
    const looped = 'Options: ☐ Yes ☐ No ☐ Not applicable ☐ Yes ☐ No ☐ Not applicable ☐ Yes ☐ No ☐ Not applicable ☐ Yes';
    const r = cutRepetition(looped);
    expect(r.cut).toBe(true);
    expect(r.text).toBe('Options: ☐ Yes ☐ No ☐ Not applicable');
  });

  it('leaves a reply without repetition alone', () => {
    const reply = 'The crediting period is 20 years [1]. Removals average 256,109 tCO2e a year [2]. It is 20 years [3].';
    expect(repetitionStart(reply)).toBeNull();
    expect(cutRepetition(reply)).toEqual({ text: reply, cut: false });
  });
});
