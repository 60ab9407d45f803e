import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attributeOccurrences, attributeValues, firstAttribute, rawRecordSchema } from '../../src/domain/raw-record.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

describe('rawRecordSchema', () => {
  it('fills the defaults of a minimal record and reads a numeric id as a string', () => {
    const r = rawRecordSchema.parse({ registry: 'Verra', resourceIdentifier: 42 });
    expect(r).toMatchObject({
      resourceIdentifier: '42',
      resourceName: '',
      attributes: [],
      documentGroups: [],
      inPublicCommentPeriod: false,
    });
  });

  it('refuses a record without a registry, or with an id that is not a positive whole number', () => {
    expect(rawRecordSchema.safeParse({ registry: '', resourceIdentifier: '1' }).success).toBe(false);
    expect(rawRecordSchema.safeParse({ registry: 'Verra', resourceIdentifier: 'VCS1' }).success).toBe(false);
    expect(rawRecordSchema.safeParse({ registry: 'Verra', resourceIdentifier: -3 }).success).toBe(false);
  });

  it('keeps fields it does not know, and gives a document without a type the type Other', () => {
    const r = rawRecordSchema.parse({
      registry: 'Verra',
      resourceIdentifier: '1',
      extra: 'kept',
      documentGroups: [{ code: 'VCS_OTHER_DOCUMENTS', documents: [{ documentName: 'a.pdf', uri: 'https://x/a.pdf' }] }],
    });
    expect((r as Record<string, unknown>).extra).toBe('kept');
    expect(r.documentGroups[0]?.documents[0]?.documentType).toBe('Other');
  });
});

describeWithService('attributes of a corpus record (Verra 5533)', { available: corpusAvailable, why: 'corpus not found' }, () => {
  const raw = () =>
    rawRecordSchema.parse(JSON.parse(readFileSync(corpusPath('records', 'eval-projects.raw.jsonl'), 'utf8').split('\n')[0] ?? ''));

  it('finds values in the participation summaries and at the top level, each occurrence apart', () => {
    const r = raw();
    expect(attributeValues(r, 'PROJECT_STATUS')).toEqual(['Under validation']);
    expect(attributeValues(r, 'STATE_PROVINCE')).toEqual(['West Bengal']);
    expect(attributeOccurrences(r, 'PROPONENT_NAME').map((values) => values[0])).toEqual([
      'Hexa Carbon One Private Limited',
      'Asvata Climate Solutions',
    ]);
    expect(firstAttribute(r, 'PROTOCOL_NAME')).toBe('VM0047');
    expect(firstAttribute(r, 'NO_SUCH_CODE')).toBeUndefined();
  });
});
