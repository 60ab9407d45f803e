import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DOCUMENTS, renderPdf } from '../../scripts/make-demo-pdfs.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import { type RawRecord, attributeValues, rawRecordSchema } from '../../src/domain/raw-record.js';
import { repoRoot } from '../support/corpus.js';

const demoDir = path.join(repoRoot, 'demo');
const docsDir = path.join(demoDir, 'documents');
const lines = readFileSync(path.join(demoDir, 'records.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');
const records: RawRecord[] = lines.map((l) => rawRecordSchema.parse(JSON.parse(l)));
const raws = lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('demo/records.jsonl', () => {
  it('holds 4-6 Verra-shaped records, each with registry and a distinct id', () => {
    expect(records.length).toBeGreaterThanOrEqual(4);
    expect(records.length).toBeLessThanOrEqual(6);
    for (const r of records) expect(r.registry).toBe('Verra');
    expect(new Set(records.map((r) => r.resourceIdentifier)).size).toBe(records.length);
  });

  it('covers the three observed statuses, several proponents and a record without acreage', () => {
    const statuses = new Set(records.flatMap((r) => attributeValues(r, 'PROJECT_STATUS')));
    expect([...statuses].sort()).toEqual(['Registered', 'Registration requested', 'Under validation']);
    const proponentCounts = records.map(
      (r) => r.participationSummaries.flatMap((p) => p.attributes).filter((a) => a.code === 'PROPONENT_NAME').length,
    );
    expect(Math.max(...proponentCounts)).toBeGreaterThan(1);
    expect(records.some((r) => attributeValues(r, 'PROJECT_ACREAGE').length === 0)).toBe(true);
    for (const r of records) {
      const registered = attributeValues(r, 'PROJECT_STATUS')[0] === 'Registered';
      expect(attributeValues(r, 'PROJECT_REGISTRATION_DATE').length > 0).toBe(registered);
    }
  });

  it('points every document at {BASE}/demo/documents/<file>.pdf, and every demo PDF is listed', () => {
    const listed = new Set<string>();
    for (const r of records) {
      for (const g of r.documentGroups) {
        for (const d of g.documents) {
          expect(d.uri).toMatch(/^\{BASE\}\/demo\/documents\/[\w.-]+\.pdf$/);
          expect(d.uri.endsWith(`/${d.documentName}`)).toBe(true);
          listed.add(d.documentName);
        }
      }
    }
    const files = readdirSync(docsDir).filter((f) => f.endsWith('.pdf'));
    expect([...listed].sort()).toEqual(files.sort());
  });

  it('derives the expected cleaned records', () => {
    const countries = createCountryLookup();
    const cleaned = raws.map((raw, i) =>
      deriveCleaned(
        {
          ref: { registry: 'Verra', projectId: Number(records[i]?.resourceIdentifier) },
          format: 'registry-json',
          raw,
          enrichment: {},
          hidden: false,
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
        { requestedRegistry: 'Verra', countries },
      ),
    );
    const summary = cleaned.map((c) => [
      c.resourceIdentifier,
      c.location,
      c.status,
      c.registration,
      c.proponent,
      c['Reported Period'],
      c['Size (Hectares)'],
      c['Total Reported Sequestration'],
    ]);
    expect(summary).toEqual([
      [900001, 'Colombia', 'Registered', '14/06/2023', 'Fundacion Cuenca Viva', 30, 12400, 1237500],
      [900002, 'Kenya', 'Registration requested', null, 'Multiple Proponents', 7, 0, 401100],
      [900003, 'Canada', 'Under validation', null, 'Prairie Marsh Trust', 30, 3250.5, 264000],
      [900004, 'Vietnam', 'Registered', '19/09/2017', 'Mekong Rice Futures JSC', 14, 4180, 316960],
      [900005, 'Paraguay', 'Under validation', null, 'Corredor Verde S.A.', 30, 18900, 2892000],
    ]);
    expect(cleaned[1]?.metadata.specific_proponents).toEqual([
      'Kisaru Clean Energy Ltd',
      "Mlima Women's Cooperative",
      'GreenHearth Partners B.V.',
    ]);
  });
});

describe('demo/documents PDFs', () => {
  const parsed = new Map<string, string[]>();

  beforeAll(async () => {
    for (const doc of DEMO_DOCUMENTS) {
      const parser = new PDFParse({ data: new Uint8Array(readFileSync(path.join(docsDir, doc.file))) });
      try {
        const result = await parser.getText();
        parsed.set(
          doc.file,
          result.pages.map((p) => p.text),
        );
      } finally {
        await parser.destroy();
      }
    }
  });

  afterAll(() => parsed.clear());

  it('are exactly what scripts/make-demo-pdfs.ts writes (committed files are up to date)', () => {
    for (const doc of DEMO_DOCUMENTS) {
      const committed = readFileSync(path.join(docsDir, doc.file));
      expect({ file: doc.file, same: committed.equals(renderPdf(doc)) }).toEqual({ file: doc.file, same: true });
    }
  });

  it('are small: a few pages and a few KB each', () => {
    for (const doc of DEMO_DOCUMENTS) {
      expect(doc.pages.length).toBeGreaterThanOrEqual(2);
      expect(doc.pages.length).toBeLessThanOrEqual(4);
      expect(readFileSync(path.join(docsDir, doc.file)).length).toBeLessThan(16_000);
    }
  });

  it('have a text layer on every page, with the page footer naming the page', () => {
    for (const doc of DEMO_DOCUMENTS) {
      const pages = parsed.get(doc.file) ?? [];
      expect(pages.length).toBe(doc.pages.length);
      pages.forEach((text, i) => {
        expect(text.length).toBeGreaterThan(100);
        expect(text).toContain(`page ${i + 1} of ${doc.pages.length}`);
      });
    }
  });

  it('put page-specific facts on the page a search should cite', () => {
    const page = (file: string, n: number) => (parsed.get(file) ?? [])[n - 1] ?? '';
    expect(page('PD_900001_rio_verde_agroforestry.pdf', 3)).toContain('Table 4.1');
    expect(page('PD_900001_rio_verde_agroforestry.pdf', 3)).toMatch(/2027\s+42,610\s+137,290/);
    expect(page('PD_900001_rio_verde_agroforestry.pdf', 4)).toContain('142 permanent sample plots');
    expect(page('VAL_900001_rio_verde_agroforestry.pdf', 2)).toContain('CAR-02');
    expect(page('PD_DRAFT_900002_kisaru_cookstoves.pdf', 2)).toContain('fNRB) is 0.83');
    expect(page('MR_900004_sundara_rice_2021-2023.pdf', 1)).toContain('44,117 tCO2e');
    expect(page('MR_900004_sundara_rice_2021-2023.pdf', 2)).toContain('91% of the enrolled area');
    // A fact stated on one page only, so a citation of another page would be wrong.
    const plotPages = DEMO_DOCUMENTS[0]?.pages.map((_, i) => page('PD_900001_rio_verde_agroforestry.pdf', i + 1));
    expect(plotPages?.filter((t) => t.includes('142 permanent sample plots'))).toHaveLength(1);
  });

  it('rejects text the WinAnsi Helvetica font cannot show instead of writing a broken PDF', () => {
    expect(() => renderPdf({ file: 'x.pdf', title: 'x', pages: [['Emission \u2192 reductions']] })).toThrow(/WinAnsi/);
  });
});
