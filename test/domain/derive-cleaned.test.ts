import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import type { ProjectEnrichment } from '../../src/domain/cleaned-record.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import { deriveFromExport } from '../../src/domain/derive-from-export.js';
import type { CountryLookup } from '../../src/ports/country-lookup.js';
import type { RecordFormat, StoredProject } from '../../src/ports/record-store.js';
import { corpusPath } from '../support/corpus.js';

const countries = createCountryLookup();

function stored(
  raw: Record<string, unknown>,
  opts: { registry?: string; projectId?: number; enrichment?: ProjectEnrichment; hidden?: boolean; format?: RecordFormat } = {},
): StoredProject {
  return {
    ref: { registry: opts.registry ?? 'Verra', projectId: opts.projectId ?? Number(raw.resourceIdentifier ?? 1) },
    format: opts.format ?? 'registry-json',
    raw,
    enrichment: opts.enrichment ?? {},
    hidden: opts.hidden ?? false,
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}

const attr = (code: string, ...values: string[]) => ({ code, values: values.map((value) => ({ type: 'string', value })) });

/** A Verra-shaped raw record; `vcs` replaces the participation attributes. */
function rawRecord(over: Record<string, unknown> = {}, vcs?: unknown[]): Record<string, unknown> {
  return {
    registry: 'Verra',
    resourceIdentifier: '9001',
    resourceName: 'Test project',
    description: 'A test project.',
    location: { latitude: 23.33, longitude: 86.36 },
    inPublicCommentPeriod: false,
    lastPublicCommentPeriod: null,
    attributes: [attr('PROJECT_ID', '9001')],
    participationSummaries: [
      {
        programCode: 'VCS',
        attributes: vcs ?? [
          attr('PROPONENT_NAME', 'Only Proponent Ltd'),
          attr('PROJECT_STATUS', 'Under validation'),
          attr('EST_ANNUAL_EMISSION_REDCT', '1000'),
          attr('PRIMARY_PROJECT_CATEGORY_NAME', 'Agriculture Forestry and Other Land Use'),
          attr('PROTOCOL_NAME', 'VM0047'),
          attr('CREDIT_PERIOD_INFO', '1st, 01/01/2020 - 31/12/2029'),
        ],
      },
    ],
    documentGroups: [],
    childResources: [],
    ...over,
  };
}

const derive = (s: StoredProject, requestedRegistry = 'Verra') => deriveCleaned(s, { requestedRegistry, countries });

const raw4086 = JSON.parse(readFileSync(corpusPath('records', 'verra_4086_raw.json'), 'utf8')) as Record<string, unknown>;
const evalRecords = readFileSync(corpusPath('records', 'eval-projects.raw.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('deriveCleaned on the real Verra record 4086', () => {
  // The corpus copy carries no `registry` field: the store's key supplies it.
  const cleaned = derive(stored(raw4086, { projectId: 4086 }), 'verra');

  it('derives every field as CONTRACT 5 says', () => {
    expect(cleaned).toMatchObject({
      name: 'Suihuang Adjusted Water Management in Rice Cultivation',
      hidden: false,
      location: 'China',
      methodology: 'AMS-III.AU',
      proponent: 'Xuwen Xinpenggang Building Materials Co., Ltd.',
      reductions: 59906,
      registration: null,
      registry: 'verra',
      resourceIdentifier: 4086,
      status: 'Under validation',
      type: 'Agriculture Forestry and Other Land Use',
      'Reported Period': 10,
      'Size (Hectares)': 6545,
      'Total Reported Sequestration': 599060,
    });
    expect(Object.keys(cleaned).sort()).toEqual(
      [
        'name',
        'description',
        'hidden',
        'location',
        'methodology',
        'proponent',
        'reductions',
        'registration',
        'registry',
        'resourceIdentifier',
        'status',
        'type',
        'Reported Period',
        'Size (Hectares)',
        'Total Reported Sequestration',
        'summary',
        'metadata',
        'documentGroups',
      ].sort(),
    );
  });

  it('keeps the description unchanged with its CR LF, and uses it as the summary until documents are indexed', () => {
    expect(cleaned.description).toBe(raw4086.description);
    expect(cleaned.description).toContain('crediting period.\r\nThis project aims to:\r\n- Sequester');
    expect(cleaned.summary).toBe(raw4086.description);
  });

  it('gives the fallback metadata: spread estimate, zero issuances and retirements, expanded subcategory', () => {
    expect(cleaned.metadata.issuances).toBe(0);
    expect(cleaned.metadata.retirements).toBe(0);
    expect(cleaned.metadata.reduction_activity).toEqual(['Agricultural Land Management', 'Agriculture Forestry and Other Land Use']);
    expect(cleaned.metadata.specific_proponents).toBeUndefined();
    expect('specific_proponents' in cleaned.metadata).toBe(false);
    const er = cleaned.metadata.emissions_reductions;
    expect(Object.keys(er)).toEqual(['2020', '2021', '2022', '2023', '2024', '2025', '2026', '2027', '2028', '2029', '2030']);
    expect(er['2025']).toBe(59906);
    expect(Object.values(er).reduce((a, b) => a + b, 0)).toBeCloseTo(599060, 1);
  });

  it('reduces the four document groups to {title, uri}, in order, with the registry descriptions', () => {
    expect(cleaned.documentGroups.map((g) => g.description)).toEqual([
      'VCS Pipeline Documents',
      'VCS Registration Documents',
      'VCS Issuance Documents',
      'VCS Other Documents',
    ]);
    expect(cleaned.documentGroups[0]?.documents).toEqual([
      {
        title: 'PROJ_DESC_DRAFT_4086_11JAN2023.pdf',
        uri: 'https://registry.verra.org/mymodule/ProjectDoc/Project_ViewFile.asp?FileID=82576&IDKEY=0lksjoiuwqowrnoiuomnckjashoufifmln902309ksdflku098w113872304',
      },
      {
        title: 'LIST_REP_4086_28DEC2022.pdf',
        uri: 'https://registry.verra.org/mymodule/ProjectDoc/Project_ViewFile.asp?FileID=82574&IDKEY=j98klasmf8jflkasf8098afnasfkj98f0a9sfsakjflsakjf8d8113869546',
      },
    ]);
    expect(cleaned.documentGroups[1]?.documents).toEqual([]);
    expect(cleaned.documentGroups[2]?.documents).toEqual([]);
    expect(cleaned.documentGroups[3]?.documents.map((d) => d.title)).toEqual(['COMMS_AGREE_4086_28DEC2022.pdf', 'KML_4086.kml']);
  });

  it('does not modify the stored raw record', () => {
    const copy = structuredClone(raw4086);
    derive(stored(raw4086, { projectId: 4086 }));
    expect(raw4086).toEqual(copy);
  });

  it('is a JSON value: it survives a JSON round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(cleaned))).toEqual(cleaned);
  });
});

describe('deriveCleaned reproduces the published cleaned sample of 4074', () => {
  const sample = JSON.parse(readFileSync(corpusPath('records', 'published_cleaned_sample_4074.json'), 'utf8')) as Record<string, unknown>;
  // The raw attributes the published record implies: 18069 a year over a 30-year period on 1950 ha near
  // Miramichi, New Brunswick; the proponent's location string names Canada too.
  const raw4074 = rawRecord(
    {
      resourceIdentifier: '4074',
      resourceName: 'Citizen:Forest Carbon Project',
      description: sample.description,
      location: { latitude: 47.03, longitude: -65.5 },
      attributes: [attr('PROJECT_ID', '4074'), attr('STATE_PROVINCE', 'New Brunswick')],
    },
    [
      attr('PROPONENT_NAME', 'Citizen:Forest:Invest Inc', 'Miramichi, New Brunswick, Canada'),
      attr('PROJECT_STATUS', 'Under validation'),
      attr('EST_ANNUAL_EMISSION_REDCT', '18069'),
      attr('PRIMARY_PROJECT_CATEGORY_NAME', 'Agriculture Forestry and Other Land Use'),
      attr('PROJECT_SUBCATERGORY_NAMES', 'IFM'),
      attr('PROTOCOL_NAME', 'VM0034'),
      attr('PROJECT_ACREAGE', '1950 Hectares'),
      attr('CREDIT_PERIOD_INFO', '1st, 01/01/2021 - 31/12/2050'),
    ],
  );
  const cleaned = derive(stored(raw4074), 'Verra');

  it('matches every published field but the document-generated summary', () => {
    for (const [key, value] of Object.entries(sample)) {
      if (key === 'summary') continue;
      expect({ key, value: (cleaned as unknown as Record<string, unknown>)[key] }).toEqual({ key, value });
    }
    expect(cleaned['Total Reported Sequestration']).toBe(542070);
    expect(cleaned['Reported Period']).toBe(30);
  });

  it('uses the enrichment summary when the documents have produced one', () => {
    const enriched = derive(stored(raw4074, { enrichment: { summary: String(sample.summary) } }));
    expect(enriched.summary).toBe(sample.summary);
  });
});

describe('deriveCleaned on the evaluation corpus records', () => {
  it('derives every record without error, with a country for each', () => {
    expect(evalRecords.length).toBe(7);
    for (const raw of evalRecords) {
      const cleaned = derive(stored(raw, { registry: String(raw.registry) }), String(raw.registry));
      expect(cleaned.resourceIdentifier).toBe(Number(raw.resourceIdentifier));
      expect(cleaned.documentGroups).toHaveLength(4);
      expect(cleaned.location).not.toBe('');
      expect(cleaned['Reported Period']).toBeGreaterThan(0);
    }
  });

  it('lists the two proponents of 5533 under Multiple Proponents', () => {
    const raw = evalRecords.find((r) => r.resourceIdentifier === '5533');
    expect(raw).toBeDefined();
    const cleaned = derive(stored(raw ?? {}));
    expect(cleaned.proponent).toBe('Multiple Proponents');
    expect(cleaned.metadata.specific_proponents).toEqual(['Hexa Carbon One Private Limited', 'Asvata Climate Solutions']);
    expect(cleaned.location).toBe('India');
    expect(cleaned['Reported Period']).toBe(20);
    expect(cleaned['Total Reported Sequestration']).toBe(26752 * 20);
    expect(cleaned['Size (Hectares)']).toBe(0);
    expect(cleaned.metadata.reduction_activity[0]).toBe('Afforestation, Reforestation and Revegetation');
  });

  it("derives the other registries' records with their own group names and registration dates", () => {
    const byId = new Map(evalRecords.map((r) => [String(r.resourceIdentifier), r]));
    const gfl = derive(stored(byId.get('1') ?? {}, { registry: 'CDM' }), 'cdm');
    expect(gfl).toMatchObject({ location: 'India', registration: '08/03/2005', 'Reported Period': 7, registry: 'cdm' });
    expect(gfl.documentGroups.map((g) => g.description)).toEqual([
      'CDM Pipeline Documents',
      'CDM Registration Documents',
      'CDM Issuance Documents',
      'CDM Other Documents',
    ]);
    expect(gfl.documentGroups[1]?.documents).toHaveLength(3);
    expect(derive(stored(byId.get('9199') ?? {}, { registry: 'CDM' })).location).toBe('Colombia');
    expect(derive(stored(byId.get('547') ?? {}, { registry: 'CDM' })).location).toBe('China');
    expect(derive(stored(byId.get('6006') ?? {}, { registry: 'Regen' })).location).toBe('United Kingdom');
    // An estimate of 0 spreads to nothing rather than to a row of zeros.
    expect(derive(stored(byId.get('1000000') ?? {})).metadata.emissions_reductions).toEqual({});
  });
});

describe('deriveCleaned edge cases', () => {
  it('gives Reported Period 0, total 0 and no yearly spread when CREDIT_PERIOD_INFO is missing', () => {
    const cleaned = derive(stored(rawRecord({}, [attr('PROPONENT_NAME', 'A'), attr('EST_ANNUAL_EMISSION_REDCT', '1000')])));
    expect(cleaned['Reported Period']).toBe(0);
    expect(cleaned['Total Reported Sequestration']).toBe(0);
    expect(cleaned.reductions).toBe(1000);
    expect(cleaned.metadata.emissions_reductions).toEqual({});
  });

  it('adds up two crediting periods', () => {
    const cleaned = derive(
      stored(
        rawRecord({}, [
          attr('EST_ANNUAL_EMISSION_REDCT', '100'),
          attr('CREDIT_PERIOD_INFO', '1st, 01/01/2010 - 31/12/2019', '2nd, 01/01/2020 - 31/12/2029'),
        ]),
      ),
    );
    expect(cleaned['Reported Period']).toBe(20);
    expect(cleaned['Total Reported Sequestration']).toBe(2000);
    expect(Object.keys(cleaned.metadata.emissions_reductions)).toHaveLength(20);
  });

  it('gives fallbacks for unparsable dates and a non-numeric estimate', () => {
    const cleaned = derive(
      stored(
        rawRecord({}, [
          attr('PROJECT_STATUS', 'Registered'),
          attr('EST_ANNUAL_EMISSION_REDCT', 'TBD'),
          attr('PROJECT_REGISTRATION_DATE', '31/02/2020'),
          attr('CREDIT_PERIOD_INFO', '1st, 45/01/2020 - 31/12/2029'),
          attr('PROJECT_ACREAGE', 'unknown'),
        ]),
      ),
    );
    expect(cleaned).toMatchObject({
      status: 'Registered',
      reductions: 0,
      registration: null,
      'Reported Period': 0,
      'Size (Hectares)': 0,
      'Total Reported Sequestration': 0,
    });
    expect(cleaned.metadata.emissions_reductions).toEqual({});
  });

  it('formats registration as dd/mm/yyyy, also from single digits or an ISO date', () => {
    const reg = (value: string) => derive(stored(rawRecord({}, [attr('PROJECT_REGISTRATION_DATE', value)]))).registration;
    expect(reg('08/03/2005')).toBe('08/03/2005');
    expect(reg('8/3/2005')).toBe('08/03/2005');
    expect(reg('2005-03-08T00:00:00Z')).toBe('08/03/2005');
    expect(reg('')).toBeNull();
  });

  it('reads acreage with a thousands separator and decimals', () => {
    const cleaned = derive(stored(rawRecord({}, [attr('PROJECT_ACREAGE', '1,950.5 Hectares')])));
    expect(cleaned['Size (Hectares)']).toBe(1950.5);
  });

  it('keeps a fractional estimate and rounds the total to cents', () => {
    const cleaned = derive(
      stored(rawRecord({}, [attr('EST_ANNUAL_EMISSION_REDCT', '18069.1'), attr('CREDIT_PERIOD_INFO', '1st, 01/01/2021 - 31/12/2050')])),
    );
    expect(cleaned.reductions).toBe(18069.1);
    expect(cleaned['Total Reported Sequestration']).toBe(542073);
  });

  it('always gives the four groups in order, whatever the registry sends', () => {
    const doc = (name: string) => ({
      documentName: name,
      documentType: 'Other',
      uploadDate: '2023-01-12T06:54:02.97Z',
      uri: `https://example.org/${name}`,
    });
    const cleaned = derive(
      stored(
        rawRecord({
          documentGroups: [
            { code: 'VCS_OTHER_DOCUMENTS', description: 'VCS Other Documents', documents: [doc('o.pdf')] },
            { code: 'VCS_ISSUANCE_DOCUMENTS', description: '', documents: [doc('i.pdf')] },
            { code: 'VCS_PIPELINE_DOCUMENTS', description: 'VCS Pipeline Documents', documents: [doc('p.pdf')] },
          ],
        }),
      ),
    );
    expect(cleaned.documentGroups).toEqual([
      { description: 'VCS Pipeline Documents', documents: [{ title: 'p.pdf', uri: 'https://example.org/p.pdf' }] },
      { description: 'VCS Registration Documents', documents: [] },
      { description: 'VCS Issuance Documents', documents: [{ title: 'i.pdf', uri: 'https://example.org/i.pdf' }] },
      { description: 'VCS Other Documents', documents: [{ title: 'o.pdf', uri: 'https://example.org/o.pdf' }] },
    ]);
  });

  it('gives four empty groups with default names when there are none', () => {
    const cleaned = derive(stored(rawRecord({ documentGroups: [] })));
    expect(cleaned.documentGroups).toEqual([
      { description: 'VCS Pipeline Documents', documents: [] },
      { description: 'VCS Registration Documents', documents: [] },
      { description: 'VCS Issuance Documents', documents: [] },
      { description: 'VCS Other Documents', documents: [] },
    ]);
  });

  it('merges groups of two programs and keeps documents of an unknown group under other', () => {
    const d = (n: string) => ({ documentName: n, documentType: 'Other', uri: `https://example.org/${n}` });
    const cleaned = derive(
      stored(
        rawRecord({
          documentGroups: [
            { code: 'VCS_PIPELINE_DOCUMENTS', description: 'VCS Pipeline Documents', documents: [d('a.pdf')] },
            { code: 'CCB_PIPELINE_DOCUMENTS', description: 'CCB Pipeline Documents', documents: [d('b.pdf')] },
            { code: 'VCS_MONITORING_DOCUMENTS', description: 'Monitoring', documents: [d('m.pdf')] },
          ],
        }),
      ),
    );
    expect(cleaned.documentGroups[0]?.documents.map((x) => x.title)).toEqual(['a.pdf', 'b.pdf']);
    expect(cleaned.documentGroups[3]).toEqual({
      description: 'VCS Other Documents',
      documents: [{ title: 'm.pdf', uri: 'https://example.org/m.pdf' }],
    });
  });

  it('dedupes a proponent listed under two programs, and gives "" when there is none', () => {
    const twice = rawRecord({
      participationSummaries: [
        { programCode: 'VCS', attributes: [attr('PROPONENT_NAME', 'Same Co')] },
        { programCode: 'CCB', attributes: [attr('PROPONENT_NAME', 'Same Co', 'Lima, Peru')] },
      ],
    });
    const cleaned = derive(stored(twice));
    expect(cleaned.proponent).toBe('Same Co');
    expect(cleaned.metadata.specific_proponents).toBeUndefined();
    expect(derive(stored(rawRecord({}, []))).proponent).toBe('');
  });

  it('joins several methodologies', () => {
    const cleaned = derive(stored(rawRecord({}, [attr('PROTOCOL_NAME', 'VM0007', 'VMD0001')])));
    expect(cleaned.methodology).toBe('VM0007, VMD0001');
  });

  it('lets enrichment win over every fallback, and ignores malformed enrichment', () => {
    const enrichment: ProjectEnrichment = {
      summary: 'From the documents.',
      emissionsReductions: { '2021': 12.5, '2022': -3 },
      emissionsReductionsSource: 'document',
      issuances: 1234,
      retirements: 56,
      reductionActivity: ['Planting of native species'],
    };
    const cleaned = derive(stored(rawRecord(), { enrichment }));
    expect(cleaned.summary).toBe('From the documents.');
    expect(cleaned.metadata).toEqual({
      emissions_reductions: { '2021': 12.5, '2022': -3 },
      issuances: 1234,
      retirements: 56,
      reduction_activity: ['Planting of native species'],
    });
    const bad = { summary: 42, issuances: 'many', reductionActivity: 'x', emissionsReductions: [1] } as unknown as ProjectEnrichment;
    const fallback = derive(stored(rawRecord(), { enrichment: bad }));
    expect(fallback.summary).toBe('A test project.');
    expect(fallback.metadata.issuances).toBe(0);
    expect(Object.keys(fallback.metadata.emissions_reductions)).toHaveLength(10);
  });

  it('takes hidden from the store and the id from the store key', () => {
    const cleaned = derive(stored(rawRecord(), { hidden: true, projectId: 9001 }));
    expect(cleaned.hidden).toBe(true);
    expect(cleaned.resourceIdentifier).toBe(9001);
  });

  it('survives a raw record of the wrong shape: defaults, never a throw', () => {
    const broken = {
      resourceIdentifier: { nope: true },
      resourceName: 7,
      location: 'somewhere',
      attributes: 'none',
      participationSummaries: [
        null,
        {
          programCode: 'VCS',
          attributes: [
            { code: 'EST_ANNUAL_EMISSION_REDCT', values: [{ type: 'string', value: 500 }] },
            { code: 'PROJECT_STATUS', values: 'Registered' },
            { values: [] },
          ],
        },
      ],
      documentGroups: [
        { code: 'VCS_PIPELINE_DOCUMENTS', documents: [{ uri: 'https://example.org/files/pd%20v2.pdf' }, { documentName: 'no uri' }] },
        'junk',
      ],
    };
    const cleaned = derive(stored(broken, { projectId: 77 }));
    expect(cleaned.resourceIdentifier).toBe(77);
    expect(cleaned.name).toBe('');
    expect(cleaned.reductions).toBe(500);
    expect(cleaned.status).toBe('');
    expect(cleaned.location).toBe('');
    expect(cleaned.documentGroups[0]?.documents).toEqual([{ title: 'pd v2.pdf', uri: 'https://example.org/files/pd%20v2.pdf' }]);
    expect(() => derive(stored({}, { projectId: 1 }))).not.toThrow();
    expect(() => derive(stored(null as unknown as Record<string, unknown>, { projectId: 2 }))).not.toThrow();
    expect(() => derive(stored({ resourceIdentifier: '-5' }, { registry: '', projectId: -5 }))).not.toThrow();
    expect(derive(stored({}, { projectId: 1 })).documentGroups).toHaveLength(4);
  });
});

describe('deriveCleaned location', () => {
  const withLocation = (location: unknown, attributes: unknown[] = [], proponent = ['Acme']) =>
    derive(stored(rawRecord({ location, attributes: [attr('PROJECT_ID', '9001'), ...attributes] }, [attr('PROPONENT_NAME', ...proponent)])))
      .location;

  it('prefers the coordinates over a proponent location string naming another country', () => {
    expect(withLocation({ latitude: 23.33, longitude: 86.36 }, [], ['Acme', 'London, United Kingdom'])).toBe('India');
  });

  it('uses a country the registry states over the coordinates', () => {
    expect(withLocation({ latitude: 23.33, longitude: 86.36 }, [attr('COUNTRY', 'Bangladesh')])).toBe('Bangladesh');
    expect(withLocation(null, [attr('COUNTRY_CODE', 'KE')])).toBe('Kenya');
    expect(withLocation(null, [attr('COUNTRY', 'Viet Nam')])).toBe('Vietnam');
  });

  it('falls back to STATE_PROVINCE, then the proponent strings, only without coordinates', () => {
    expect(withLocation(null, [attr('STATE_PROVINCE', 'Guangdong Province, China')])).toBe('China');
    expect(withLocation(null, [attr('STATE_PROVINCE', 'Guangdong Province')], ['Acme', 'Guangdong Province, China'])).toBe('China');
    expect(withLocation(undefined, [], ['Acme', 'Lima, Peru'])).toBe('Peru');
  });

  it('treats (0, 0) as no coordinates', () => {
    expect(withLocation({ latitude: 0, longitude: 0 }, [], ['Acme', 'Nairobi, Kenya'])).toBe('Kenya');
  });

  it('does not take a proponent office country when the coordinates are at sea', () => {
    expect(withLocation({ latitude: 30, longitude: -40 }, [], ['Acme', 'Lima, Peru'])).toBe('');
    expect(withLocation({ latitude: 30, longitude: -40 }, [attr('STATE_PROVINCE', 'Azores, Portugal')])).toBe('Portugal');
  });

  it("is '' when nothing names a country", () => {
    expect(withLocation(null, [attr('STATE_PROVINCE', 'West Bengal')])).toBe('');
  });

  it('survives a failing country lookup', () => {
    const failing: CountryLookup = {
      countryAt() {
        throw new Error('index not loaded');
      },
    };
    const cleaned = deriveCleaned(stored(rawRecord({ attributes: [attr('STATE_PROVINCE', 'Odisha, India')] })), {
      requestedRegistry: 'Verra',
      countries: failing,
    });
    expect(cleaned.location).toBe('India');
  });
});

describe('deriveCleaned dispatch by format', () => {
  const outcome = (f: () => unknown): { value?: unknown; error?: string } => {
    try {
      return { value: f() };
    } catch (err) {
      return { error: String(err) };
    }
  };

  it('hands csv:* records to deriveFromExport and returns exactly what it gives', () => {
    const s = stored({ 'Project ID': 'GS123' }, { format: 'csv:gold-standard', registry: 'Gold Standard', projectId: 123 });
    const ctx = { requestedRegistry: 'gold standard', countries };
    const viaDerive = outcome(() => deriveCleaned(s, ctx));
    expect(viaDerive).toEqual(outcome(() => deriveFromExport(s, ctx)));
  });
});
