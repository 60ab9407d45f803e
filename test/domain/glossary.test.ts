import { describe, expect, it } from 'vitest';
import { glossaryExpansions } from '../../src/domain/glossary.js';
import { textSearchQuery } from '../../src/domain/query.js';

describe('glossaryExpansions', () => {
  it('adds the acronym of a long form, and the long form of an acronym written in capitals', () => {
    expect(glossaryExpansions('What global warming potential is used for HFC-23?')).toEqual(['GWP']);
    expect(glossaryExpansions('Which GWP does the PDD use?')).toEqual(['global warming potential', 'project design document']);
  });

  it('matches plural long forms and plural acronyms', () => {
    expect(glossaryExpansions('How many clarification requests were raised?')).toEqual(['CL']);
    expect(glossaryExpansions('How many CERs were issued?')).toEqual(['certified emission reduction']);
  });

  it('adds nothing when both forms are present, for lower-case lookalikes, or for words of no entry', () => {
    expect(glossaryExpansions('the greenhouse gas (GHG) emissions')).toEqual([]);
    expect(glossaryExpansions('is the car park or the soc included?')).toEqual([]);
    expect(glossaryExpansions('What is the crediting period of VCS project 5533?')).toEqual([]);
  });
});

describe('textSearchQuery with the glossary', () => {
  it('puts the other form into the full-text query, after the question words', () => {
    expect(textSearchQuery('What global warming potential is used for HFC-23?')).toBe('global warming potential used HFC-23 GWP');
  });

  it('does not expand words of an exclusion clause', () => {
    expect(textSearchQuery('Emission factor of the project (not the greenhouse gas inventory)')).toBe('Emission factor project');
  });
});
