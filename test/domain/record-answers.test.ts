import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { recordAnswers, recordFacts, recordFieldsAsked } from '../../src/domain/record-answers.js';
import type { StoredProject } from '../../src/ports/record-store.js';
import { corpusPath } from '../support/corpus.js';

const attr = (code: string, ...values: string[]) => ({ code, values: values.map((value) => ({ type: 'string', value })) });

function stored(raw: Record<string, unknown>, projectId = 9001, registry = 'Verra'): StoredProject {
  return {
    ref: { registry, projectId },
    format: 'registry-json',
    raw,
    enrichment: {},
    hidden: false,
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

const raw = {
  registry: 'Verra',
  resourceIdentifier: '9001',
  resourceName: 'Test project',
  description: 'A test project.',
  location: { latitude: 52.3, longitude: -0.9 },
  attributes: [attr('PROJECT_ID', '9001'), attr('STATE_PROVINCE', 'Northamptonshire')],
  participationSummaries: [
    {
      programCode: 'VCS',
      attributes: [
        attr('PROPONENT_NAME', 'Hexa Carbon One Private Limited', 'Gurgaon, India'),
        attr('PROPONENT_NAME', 'Asvata Climate Solutions'),
        attr('EST_ANNUAL_EMISSION_REDCT', '26,752'),
        attr('PROTOCOL_NAME', 'VM0047'),
      ],
    },
  ],
  documentGroups: [],
};

describe('recordFieldsAsked', () => {
  it('reads which field of the record a question asks for', () => {
    expect(recordFieldsAsked('Who is the project proponent?')).toEqual(['proponent']);
    expect(recordFieldsAsked('Which company is the proponent of the project?')).toEqual(['proponent']);
    expect(recordFieldsAsked('What is the name of the project proponent?')).toEqual(['proponent']);
    expect(recordFieldsAsked('What methodology does the project apply?')).toEqual(['methodology']);
    expect(recordFieldsAsked('Under which methodology are credits issued?')).toEqual(['methodology']);
    expect(recordFieldsAsked('Where is the project located?')).toEqual(['place']);
    expect(recordFieldsAsked('In which state or province is the project?')).toEqual(['place']);
    expect(recordFieldsAsked('How many tonnes of CO2e does the project expect to remove per year?')).toEqual(['annualReductions']);
    expect(recordFieldsAsked('What are the estimated annual emission reductions?')).toEqual(['annualReductions']);
    expect(recordFieldsAsked('Who are the project participants?')).toEqual(['proponent']);
    expect(recordFieldsAsked('Who is the project developer?')).toEqual(['proponent']);
  });

  it('asks for no field when the question asks what a proponent does, or about a methodology it names', () => {
    expect(recordFieldsAsked('What must the project proponent demonstrate for additionality?')).toEqual([]);
    expect(recordFieldsAsked('Which proponent documents must be submitted?')).toEqual(['proponent']);
    expect(recordFieldsAsked('What does the project proponent have to monitor?')).toEqual([]);
    expect(recordFieldsAsked('What must project participants report each year?')).toEqual([]);
    expect(recordFieldsAsked('What is the estimated project start date?')).toEqual([]);
    expect(recordFieldsAsked('Which version of VM0007 added tidal wetlands, and which methodology modules came with it?')).toEqual([]);
    expect(recordFieldsAsked('What is the baseline scenario?')).toEqual([]);
    expect(recordFieldsAsked('How many trees are planted per hectare?')).toEqual([]);
    // "which countries" of a validation team is not where the project is.
    expect(recordFieldsAsked("Who was on DNV's validation team, in what roles, and from which countries?")).toEqual([]);
  });
});

describe('recordFacts and recordAnswers', () => {
  it('takes the proponents, methodology, state and country (from the coordinates) and the yearly estimate', () => {
    const facts = recordFacts(stored(raw), createCountryLookup());
    expect(facts).toEqual({
      proponents: ['Hexa Carbon One Private Limited', 'Asvata Climate Solutions'],
      methodologies: ['VM0047'],
      places: ['Northamptonshire', 'United Kingdom'],
      annualReductions: 26752,
    });
    expect(recordAnswers(['proponent'], facts)).toEqual(['Hexa Carbon One Private Limited', 'Asvata Climate Solutions']);
    expect(recordAnswers(['annualReductions', 'methodology'], facts)).toEqual(['26752', 'VM0047']);
  });

  it('gives empty facts for a record without those fields, and no answer for a zero estimate', () => {
    const facts = recordFacts(stored({ registry: 'Verra', resourceIdentifier: '9002', resourceName: 'Bare' }, 9002));
    expect(facts).toEqual({ proponents: [], methodologies: [], places: [], annualReductions: 0 });
    expect(recordAnswers(['proponent', 'methodology', 'place', 'annualReductions'], facts)).toEqual([]);
  });

  it('reads the real corpus records', () => {
    const records = readFileSync(corpusPath('records', 'eval-projects.raw.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const cdm9199 = records.find((r) => r.resourceIdentifier === '9199');
    expect(cdm9199).toBeDefined();
    const facts = recordFacts(stored(cdm9199 as Record<string, unknown>, 9199, 'CDM'), createCountryLookup());
    expect(facts.proponents).toEqual(['Bosques de la Primavera S.A.']);
    expect(facts.methodologies).toEqual(['AR-AM0004']);
    expect(facts.places).toEqual(['Vichada', 'Colombia']);
    expect(facts.annualReductions).toBe(256109);
  });
});
