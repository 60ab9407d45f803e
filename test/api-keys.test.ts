import { describe, expect, it } from 'vitest';
import { apiKeyMatcher, presentedApiKey } from '../src/api-keys.js';

const headers =
  (h: Record<string, string>) =>
  (name: string): string | undefined =>
    h[name];

describe('presentedApiKey', () => {
  it('reads a Bearer token, case-insensitively and trimmed, before X-API-Key', () => {
    expect(presentedApiKey(headers({ authorization: 'Bearer  k1 ' }))).toBe('k1');
    expect(presentedApiKey(headers({ authorization: 'bearer k2', 'x-api-key': 'k3' }))).toBe('k2');
    expect(presentedApiKey(headers({ 'x-api-key': ' k3 ' }))).toBe('k3');
  });

  it('finds no key in another scheme, an empty header or none', () => {
    expect(presentedApiKey(headers({ authorization: 'Basic dXNlcjpwYXNz' }))).toBeUndefined();
    expect(presentedApiKey(headers({ 'x-api-key': '   ' }))).toBeUndefined();
    expect(presentedApiKey(headers({}))).toBeUndefined();
  });
});

describe('apiKeyMatcher', () => {
  it('gives the index of the key matched, -1 for any other, and is off without keys', () => {
    const m = apiKeyMatcher(['alpha', 'beta']);
    expect(m.enabled).toBe(true);
    expect(m.match('beta')).toBe(1);
    expect(m.match('alpha')).toBe(0);
    expect(m.match('alph')).toBe(-1);
    expect(m.match('')).toBe(-1);
    expect(apiKeyMatcher([]).enabled).toBe(false);
    // An empty entry (a trailing comma in API_KEYS) is no key.
    expect(apiKeyMatcher(['']).enabled).toBe(false);
  });
});
