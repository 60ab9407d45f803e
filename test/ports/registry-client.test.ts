import { describe, expect, it } from 'vitest';
import { RegistryError } from '../../src/ports/registry-client.js';

describe('RegistryError', () => {
  it('names the registry and URL, and is final with no status unless told otherwise', () => {
    const e = new RegistryError('Verra', 'https://registry.verra.org/x', 'bad JSON');
    expect(e).toMatchObject({
      name: 'RegistryError',
      registry: 'Verra',
      url: 'https://registry.verra.org/x',
      status: null,
      retryable: false,
      retryAfterMs: null,
    });
  });

  it('carries the status, whether a retry can help, and the cause', () => {
    const cause = new Error('socket hang up');
    const e = new RegistryError('Verra', 'u', 'HTTP 429', { status: 429, retryable: true, retryAfterMs: 1000, cause });
    expect(e).toMatchObject({ status: 429, retryable: true, retryAfterMs: 1000 });
    expect(e.cause).toBe(cause);
  });
});
