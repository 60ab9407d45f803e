import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createCountryLookup } from '../../../src/adapters/geo/country-lookup.js';
import { deriveCleaned } from '../../../src/domain/derive-cleaned.js';
import { cleanedRecordSchema, projectViewSchema, rawRecordResponseSchema } from '../../../src/http/schemas/records.js';
import { corpusAvailable, corpusPath } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';

/** The documented record schemas hold what the service returns: the corpus records, raw and cleaned. */
describeWithService('the documented record schemas', { available: corpusAvailable, why: 'corpus not found' }, () => {
  const raws = () =>
    readFileSync(corpusPath('records', 'eval-projects.raw.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('describe every corpus record as stored and as cleaned', () => {
    const countries = createCountryLookup();
    const records = raws();
    expect(records.length).toBe(7);
    for (const raw of records) {
      const ref = { registry: String(raw.registry), projectId: Number(raw.resourceIdentifier) };
      expect(rawRecordResponseSchema.safeParse(raw).error?.issues ?? [], `${ref.registry} ${ref.projectId} raw`).toEqual([]);
      const cleaned = deriveCleaned(
        { ref, format: 'registry-json', raw, enrichment: {}, hidden: false, updatedAt: '' },
        { requestedRegistry: ref.registry, countries },
      );
      expect(cleanedRecordSchema.safeParse(cleaned).error?.issues ?? [], `${ref.registry} ${ref.projectId} cleaned`).toEqual([]);
    }
  });

  it('refuse a cleaned record missing a field, though the raw side of the union takes any object', () => {
    expect(cleanedRecordSchema.safeParse({ name: 'x' }).success).toBe(false);
    expect(projectViewSchema.safeParse({ name: 'x' }).success).toBe(true);
    expect(rawRecordResponseSchema.safeParse({ resourceIdentifier: 5533 }).success).toBe(false);
  });
});
