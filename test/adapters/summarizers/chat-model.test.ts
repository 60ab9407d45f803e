import { describe, expect, it } from 'vitest';
import { ANSWER_SYSTEM_PROMPT, answerPrompt, NOT_FOUND_REPLY, passageEvidence } from '../../../src/adapters/summarizers/chat-model.js';
import type { CitedPassage } from '../../../src/ports/summarizer.js';

const filler = 'Section 4.2 describes the monitoring plan and the data to be collected by the field teams each year. ';
const QUOTE = 'The crediting period is 20 years, from 15/07/2022 to 14/07/2042.';

describe('passageEvidence', () => {
  it('gives the quote with some words on each side, cut at word boundaries and marked as cut', () => {
    const text = `${filler.repeat(4)}${QUOTE} ${filler.repeat(4)}`;
    const e = passageEvidence({ text, quote: QUOTE }, 40);
    expect(e.startsWith('\u2026')).toBe(true);
    expect(e.endsWith('\u2026')).toBe(true);
    expect(e).toContain(QUOTE);
    expect(e.length).toBeLessThan(QUOTE.length + 2 * 40 + 4);
    expect(
      e
        .slice(1, -1)
        .split(' ')
        .every((w) => filler.includes(w) || QUOTE.includes(w)),
    ).toBe(true);
  });

  it('gives the whole text, spaces collapsed, without a quote or when the quote is not in it', () => {
    expect(passageEvidence({ text: 'A  short\npassage.' })).toBe('A short passage.');
    expect(passageEvidence({ text: 'A short passage.', quote: 'elsewhere' })).toBe('A short passage.');
  });
});

describe('answerPrompt', () => {
  const passages: CitedPassage[] = [
    { id: 1, documentTitle: 'PD.pdf', page: 9, text: QUOTE },
    { id: 2, documentTitle: 'VR.pdf', page: 3, text: filler.repeat(20) },
  ];

  it('numbers the passages with document and page, and puts the question last', () => {
    const p = answerPrompt('How long is the crediting period?', passages, 10_000, 600);
    expect(p).toContain(`[1] PD.pdf, page 9:\n${QUOTE}`);
    expect(p).toContain('[2] VR.pdf, page 3:');
    expect(p).toContain('at most 600 characters');
    expect(p.split('\n').at(-1)).toBe('Question: How long is the crediting period?');
    expect(ANSWER_SYSTEM_PROMPT).toContain(NOT_FOUND_REPLY);
  });

  it('fits the passages to the model, in relevance order, cutting the last one that fits in part', () => {
    const p = answerPrompt('q', passages, 300, 600);
    expect(p).toContain(QUOTE);
    const second = p.slice(p.indexOf('[2] VR.pdf'));
    expect(second).toMatch(/\u2026\n/);
    expect(answerPrompt('q', passages, 100, 600)).not.toContain('[2]');
  });
});
