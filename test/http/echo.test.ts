import { describe, expect, it } from 'vitest';
import { cut, MAX_ECHO_CHARS, quoted } from '../../src/http/echo.js';

describe('echoing client input in errors', () => {
  it('keeps a short value whole, and cuts a long one saying how long it was', () => {
    expect(cut('Verr')).toBe('Verr');
    const long = 'V'.repeat(MAX_ECHO_CHARS + 1);
    expect(cut(long)).toBe(`${'V'.repeat(MAX_ECHO_CHARS)}... (${MAX_ECHO_CHARS + 1} characters)`);
  });

  it('quotes as JSON, escaping what would break the message, and quotes only the kept part of a long value', () => {
    expect(quoted('a "b"\n')).toBe('"a \\"b\\"\\n"');
    expect(quoted('x'.repeat(1000))).toBe(`"${'x'.repeat(MAX_ECHO_CHARS)}"... (1000 characters)`);
  });
});
