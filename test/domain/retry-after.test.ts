import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/domain/retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-28T00:00:00Z');

  it('reads delta-seconds, fractions included, as milliseconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date as the time left until it, and a past date as 0', () => {
    expect(parseRetryAfter('Sat, 28 Nov 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 23:00:00 GMT', now)).toBe(0);
  });

  it('gives null for a missing, empty or unreadable value', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('  ', now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});
