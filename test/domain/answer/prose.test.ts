import { describe, expect, it } from 'vitest';
import { asProse, checkedOptions, withMarker } from '../../../src/domain/answer/prose.js';

describe('asProse', () => {
  it('reads a list of bullets as one line, without the glyphs or the document own reference markers', () => {
    expect(asProse('The project activities are:\n\u2022 planting of native species\n\u2022 assisted natural regeneration [12]')).toBe(
      'The project activities are: planting of native species; assisted natural regeneration',
    );
  });

  it('shows a quote that starts or stops mid-sentence to do so', () => {
    expect(asProse('and increase the income of local farmers.')).toBe('\u2026and increase the income of local farmers.');
    expect(asProse('a) Clarification whether the plant is new.')).toBe('a) Clarification whether the plant is new.');
    expect(asProse('The land is held by the community under the deed of')).toBe(
      'The land is held by the community under the deed of\u2026',
    );
  });
});

describe('checkedOptions', () => {
  it('reads a form checkbox field as the options ticked (VCS template layout)', () => {
    expect(checkedOptions('Crediting period \u2610 Seven years, twice renewable\n\u2610 Ten years, fixed\n\u2612 Other: 20 years')).toBe(
      'Crediting period: Other: 20 years',
    );
    expect(checkedOptions('Is the project a grouped project? \u2612 Yes \u2610 No\nThe instances are listed.')).toBe(
      'Is the project a grouped project? Yes.\nThe instances are listed.',
    );
    expect(checkedOptions('Grouped \u2610 Yes \u2610 No')).toBe('Grouped \u2610 Yes \u2610 No');
  });
});

describe('withMarker', () => {
  it('ends a lead-in with an ellipsis before the markers, in order', () => {
    expect(withMarker('Values are listed:', [3, 2])).toBe('Values are listed\u2026 [2][3].');
  });
});
