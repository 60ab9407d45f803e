import { describe, expect, it } from 'vitest';
import { canonicalRegistry, knownRegistryNames, REGISTRIES } from '../../src/domain/registries.js';

describe('canonicalRegistry', () => {
  it('maps a name or an alias, in any case and with spaces around, to the canonical name', () => {
    expect(canonicalRegistry('verra')).toBe('Verra');
    expect(canonicalRegistry(' VCS ')).toBe('Verra');
    expect(canonicalRegistry('gs')).toBe('Gold Standard');
    expect(canonicalRegistry('Clean Development Mechanism')).toBe('CDM');
    expect(canonicalRegistry('regen network')).toBe('Regen');
  });

  it('knows no other registry', () => {
    expect(canonicalRegistry('Puro.earth')).toBeNull();
    expect(canonicalRegistry('')).toBeNull();
  });
});

describe('knownRegistryNames', () => {
  it('lists each canonical name once, and no alias names another registry', () => {
    expect(knownRegistryNames()).toEqual(REGISTRIES.map((r) => r.name));
    const all = REGISTRIES.flatMap((r) => [r.name, ...r.aliases].map((n) => n.toLowerCase()));
    expect(new Set(all).size).toBe(all.length);
  });
});
