import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRawRecordLeniently, titleFromUri } from '../../src/domain/lenient-raw-record.js';
import { rawRecordSchema } from '../../src/domain/raw-record.js';
import { corpusPath } from '../support/corpus.js';

const key = { registry: 'Verra', projectId: 4086 };

describe('parseRawRecordLeniently', () => {
  it('returns what the strict schema returns for a valid record', () => {
    for (const line of readFileSync(corpusPath('records', 'eval-projects.raw.jsonl'), 'utf8').trim().split('\n')) {
      const raw = JSON.parse(line) as Record<string, unknown>;
      expect(parseRawRecordLeniently(raw, key)).toEqual(rawRecordSchema.parse(raw));
    }
  });

  it('takes a missing registry and id from the store key (the corpus copy of 4086 has no registry)', () => {
    const raw = JSON.parse(readFileSync(corpusPath('records', 'verra_4086_raw.json'), 'utf8')) as Record<string, unknown>;
    const parsed = parseRawRecordLeniently({ ...raw, resourceIdentifier: undefined }, key);
    expect(parsed.registry).toBe('Verra');
    expect(parsed.resourceIdentifier).toBe('4086');
    expect(parsed.participationSummaries[0]?.attributes).toHaveLength(9);
    // An id too large to be an exact number is the store key's too, and the rest of the record is kept.
    const huge = parseRawRecordLeniently({ ...raw, resourceIdentifier: 2 ** 60 }, key);
    expect(huge.resourceIdentifier).toBe('4086');
    expect(huge.participationSummaries[0]?.attributes).toHaveLength(9);
  });

  it('keeps the good elements of a partly malformed record and drops only the bad ones', () => {
    const parsed = parseRawRecordLeniently(
      {
        registry: 'Verra',
        resourceIdentifier: '12',
        resourceName: 'Kept',
        inPublicCommentPeriod: 'yes',
        attributes: [{ code: 'STATE_PROVINCE', values: [{ value: 'Odisha' }] }, { code: 5 }],
        participationSummaries: [
          {
            programCode: 'VCS',
            attributes: [
              { code: 'EST_ANNUAL_EMISSION_REDCT', values: [{ type: 'string', value: 1200 }] },
              { code: 'PROJECT_STATUS', values: [{ type: 'string', value: 'Registered' }, 'junk'] },
            ],
          },
        ],
        documentGroups: [
          {
            code: 'VCS_PIPELINE_DOCUMENTS',
            description: 'VCS Pipeline Documents',
            documents: [
              { documentName: 'a.pdf', documentType: 'Project Description', uri: 'https://example.org/a.pdf' },
              { uri: 'https://example.org/docs/b.pdf?download=1' },
              { documentName: 'no-uri.pdf' },
            ],
          },
        ],
      },
      key,
    );
    expect(parsed.resourceName).toBe('Kept');
    expect(parsed.inPublicCommentPeriod).toBe(false);
    expect(parsed.attributes).toEqual([{ code: 'STATE_PROVINCE', values: [{ type: 'string', value: 'Odisha' }] }]);
    expect(parsed.participationSummaries[0]?.attributes).toEqual([
      { code: 'EST_ANNUAL_EMISSION_REDCT', values: [{ type: 'string', value: '1200' }] },
      { code: 'PROJECT_STATUS', values: [{ type: 'string', value: 'Registered' }] },
    ]);
    expect(parsed.documentGroups[0]?.documents.map((d) => [d.documentName, d.uri])).toEqual([
      ['a.pdf', 'https://example.org/a.pdf'],
      ['b.pdf', 'https://example.org/docs/b.pdf?download=1'],
    ]);
  });

  it('never throws, whatever it is given', () => {
    for (const input of [null, undefined, 42, 'text', [], { attributes: {} }, { location: { latitude: 'x' } }]) {
      const parsed = parseRawRecordLeniently(input, key);
      expect(parsed.registry).toBe('Verra');
      expect(parsed.resourceIdentifier).toBe('4086');
    }
    expect(() => parseRawRecordLeniently({}, { registry: '', projectId: -1 })).not.toThrow();
  });
});

describe('titleFromUri', () => {
  it('uses the last path segment, decoded, and falls back to the uri', () => {
    expect(titleFromUri('https://example.org/files/pd%20v2.pdf?x=1#p3')).toBe('pd v2.pdf');
    expect(titleFromUri('https://example.org/')).toBe('example.org');
    expect(titleFromUri('https://example.org/bad%E0%A4%A.pdf')).toBe('bad%E0%A4%A.pdf');
    expect(titleFromUri('')).toBe('');
  });
});
