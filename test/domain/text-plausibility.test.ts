import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repetitionProblem } from '../../src/domain/text-plausibility.js';
import { corpusPath } from '../support/corpus.js';

const LINE = 'The baseline scenario is monitored every year by the project proponent.';

describe('repetitionProblem', () => {
  it('refuses a page that is one line repeated, naming the line and its count', () => {
    const page = Array.from({ length: 1200 }, () => LINE).join('\n');
    expect(repetitionProblem([page])).toBe(`the text is mostly one line repeated (${JSON.stringify(LINE)} 1,200 times, 100% of the text)`);
  });

  it('refuses the same line spread over many pages, a little ordinary text beside it', () => {
    const pages = Array.from({ length: 60 }, (_, i) => `Page ${i + 1}\n${LINE}\n${LINE}\nA different sentence on page ${i}.`);
    expect(repetitionProblem(pages)).toMatch(/^the text is mostly one line repeated \(.* 120 times, \d+% of the text\)$/);
  });

  it('refuses one line drawn over and over on one line (no line breaks to count)', () => {
    expect(repetitionProblem([`${LINE} `.repeat(500)])).toMatch(/^the text is mostly repeated copies \(it compresses \d+ times/);
  });

  it('accepts prose, a repeated footer, and short repeated table cells', () => {
    const prose = readFileSync(corpusPath('SOURCES.md'), 'utf8');
    expect(repetitionProblem([prose])).toBeUndefined();
    const withFooter = Array.from(
      { length: 40 },
      (_, i) => `${prose.slice(i * 300, i * 300 + 2000)}\nVCS Project Description Template, v4.4`,
    );
    expect(repetitionProblem(withFooter)).toBeUndefined();
    const table = Array.from({ length: 300 }, (_, i) => `${2000 + (i % 30)}\n0.00\n${(i * 37) % 1000}.5`).join('\n');
    expect(repetitionProblem([prose, table])).toBeUndefined();
    expect(repetitionProblem([])).toBeUndefined();
    expect(repetitionProblem(['', ''])).toBeUndefined();
  });
});
