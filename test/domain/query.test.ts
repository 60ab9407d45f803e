import { describe, expect, it } from 'vitest';
import { stem, textSearchQuery, withoutExclusions } from '../../src/domain/query.js';

describe('withoutExclusions', () => {
  it('drops parenthesised and bare exclusion clauses', () => {
    expect(withoutExclusions('What is the permanence period of the Fonthill Farms project (not Botany Farm)?')).toBe(
      'What is the permanence period of the Fonthill Farms project ?',
    );
    expect(withoutExclusions('How many requests did the Gujarat validation raise (excluding the forestry one)?')).toBe(
      'How many requests did the Gujarat validation raise ?',
    );
    expect(withoutExclusions('Which leakage approach does VM0006 use, rather than the one in VM0007?')).toBe(
      'Which leakage approach does VM0006 use, ?',
    );
    expect(withoutExclusions('What does the PDD say, as opposed to the validation report, about HFC-23?')).toBe(
      'What does the PDD say, , about HFC-23?',
    );
    // A parenthesis that names what is wanted, then what is not: only the contrast goes.
    expect(withoutExclusions('Which schemes is the Wiltshire farm (Fonthill, not Botany) taking part in?')).toBe(
      'Which schemes is the Wiltshire farm (Fonthill ) taking part in?',
    );
  });

  it('keeps negations that are part of what is asked', () => {
    const q = 'Which activities are not eligible under VM0004?';
    expect(withoutExclusions(q)).toBe(q);
    expect(withoutExclusions('Is a project that does not rewet peat eligible, and why not?')).toBe(
      'Is a project that does not rewet peat eligible, and why not?',
    );
    // A bare ", not ..." outside brackets is a question's own ("eligible, not excluded?") and stays.
    expect(withoutExclusions('Is the peat drained, not rewetted, before the project?')).toBe(
      'Is the peat drained, not rewetted, before the project?',
    );
    // Known limit: a parenthesis opening with "not" is always read as an exclusion.
    expect(withoutExclusions('Is the project (not yet registered) eligible?')).toBe('Is the project eligible?');
  });

  it('returns the question unchanged when nothing would be left', () => {
    expect(withoutExclusions('(not Botany Farm)')).toBe('(not Botany Farm)');
    expect(withoutExclusions('')).toBe('');
  });

  it('feeds the full-text query', () => {
    expect(textSearchQuery('What is the permanence period of Fonthill Farms (not Botany Farm)?')).toBe('permanence period Fonthill Farms');
  });
});

describe('stem', () => {
  it('brings inflections of one word together, a final silent e included', () => {
    expect(stem('estimate')).toBe(stem('estimated'));
    expect(stem('estimates')).toBe(stem('estimated'));
    expect(stem('planted')).toBe(stem('planting'));
    expect(stem('removals')).toBe(stem('removal'));
    expect(stem('issues')).toBe(stem('issued'));
    expect(stem('findings')).toBe(stem('find'));
  });

  it("brings the registries' core families together (validation, verification, removal, reduction, sequestration), and no other derivation", () => {
    for (const w of ['validator', 'validators', 'validated', 'validating']) expect(stem(w)).toBe(stem('validation'));
    for (const w of ['verifier', 'verified', 'verify', 'verifications']) expect(stem(w)).toBe(stem('verification'));
    for (const w of ['remove', 'removed', 'removals']) expect(stem(w)).toBe(stem('removal'));
    for (const w of ['reduce', 'reduced', 'reductions']) expect(stem(w)).toBe(stem('reduction'));
    for (const w of ['sequester', 'sequestered', 'sequestering']) expect(stem(w)).toBe(stem('sequestration'));
    expect(stem('valid')).not.toBe(stem('validation'));
    expect(stem('conclude')).not.toBe(stem('conclusion'));
    expect(stem('emit')).not.toBe(stem('emission'));
  });
});
