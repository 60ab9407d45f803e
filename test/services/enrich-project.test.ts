import { readFile } from 'node:fs/promises';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnrichHook } from '../../ingest/stages/enrich.js';
import type { AfterProjectHook } from '../../ingest/pipeline.js';
import type { DocumentWorkItem } from '../../ingest/types.js';
import { importRecords } from '../../ingest/records.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { createPgDocumentStateStore } from '../../src/adapters/postgres/document-state-store.js';
import { createPgDocumentTextStore } from '../../src/adapters/postgres/document-text-store.js';
import { createPgRecordStore } from '../../src/adapters/postgres/record-store.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createExtractiveSummarizer } from '../../src/adapters/summarizers/extractive.js';
import { documentIdFor, normalizePageText } from '../../src/domain/chunking.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import { rawRecordSchema } from '../../src/domain/raw-record.js';
import { createLogger } from '../../src/logger.js';
import type { DocumentStateStore } from '../../src/ports/document-state-store.js';
import type { DocumentTextStore } from '../../src/ports/document-text-store.js';
import type { RecordStore } from '../../src/ports/record-store.js';
import type { Summarizer } from '../../src/ports/summarizer.js';
import { enrichProject } from '../../src/services/enrich-project.js';
import { documentRank, stripMarkers, summaryPassages } from '../../src/domain/project-summary.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { pgAvailability, pgBackend } from '../contract/store-backends.js';
import { describeWithService } from '../support/services.js';

const BASE = 'http://127.0.0.1:9';
const logger = createLogger({ level: 'silent', name: 'test' });

let db: SqliteDatabase;
let records: RecordStore;
let states: DocumentStateStore;
let texts: DocumentTextStore;
const summarizer = createExtractiveSummarizer();
const countries = createCountryLookup();

/** Description documents are extracted whole (their emission table can be anywhere); others by their first pages. */
async function extract(file: string, wholeDocument: boolean): Promise<string[]> {
  const data = await readFile(corpusPath('pdf', file));
  const parser = new PDFParse({ data: new Uint8Array(data) });
  try {
    const result = await parser.getText(wholeDocument ? {} : { first: 12 });
    return result.pages.map((p) => normalizePageText(p.text));
  } finally {
    await parser.destroy();
  }
}

/** What the ingest pipeline leaves behind for an indexed document: its text and an `indexed` state. */
async function index(
  ref: { registry: string; projectId: number },
  doc: { uri: string; documentName: string; documentType: string },
  pages: string[],
) {
  const documentId = documentIdFor(doc.uri);
  await texts.put(ref, documentId, pages);
  await states.put({
    registry: ref.registry,
    projectId: ref.projectId,
    documentId,
    uri: doc.uri,
    title: doc.documentName,
    documentType: doc.documentType,
    uploadDate: null,
    status: 'indexed',
    reason: null,
    contentHash: `hash-${documentId}`,
    pages: pages.length,
    chunks: 1,
    embedderId: 'test',
  });
}

beforeAll(async () => {
  db = openSqlite({ dataDir: ':memory:' });
  records = await createSqliteRecordStore({ db });
  states = await createSqliteDocumentStateStore({ db });
  texts = await createSqliteDocumentTextStore({ db });
});

afterAll(async () => {
  await texts.close();
  await states.close();
  await records.close();
  db.close();
});

describeWithService(
  'enrichment of the evaluation projects from their real documents',
  {
    available: corpusAvailable,
    why: 'corpus not found',
  },
  () => {
    beforeAll(async () => {
      const imported = await importRecords(records, corpusPath('records', 'eval-projects.raw.jsonl'), { replaceBase: BASE, logger });
      expect(imported.failed).toEqual([]);
      for (const ref of await records.list()) {
        const stored = await records.get(ref);
        const raw = rawRecordSchema.parse(stored?.raw);
        for (const group of raw.documentGroups) {
          for (const doc of group.documents) {
            const whole = documentRank({ documentType: doc.documentType, title: doc.documentName }) <= 3;
            await index(ref, doc, await extract(doc.documentName, whole));
          }
        }
      }
    }, 120_000);

    it('reads the VCS 5533 emission table from its project description and says so', async () => {
      const ref = { registry: 'Verra', projectId: 5533 };
      const stored = await records.get(ref);
      if (!stored) throw new Error('5533 not imported');
      const e = await enrichProject({ ref, stored, texts, documents: states, summarizer, records, logger });
      expect(e.emissionsReductionsSource).toBe('document');
      expect(Object.keys(e.emissionsReductions ?? {})).toHaveLength(21);
      expect(e.emissionsReductions?.['2022']).toBe(7281);
      expect(e.emissionsReductions?.['2030']).toBe(27769);
      expect(e.emissionsReductions?.['2042']).toBe(13884);
      expect(e.reductionActivity?.[0]).toBe('Afforestation, Reforestation and Revegetation');
      expect(e.reductionActivity).toContain('Afforestation');
      expect(e.summary?.length).toBeGreaterThan(200);
      expect(e.summary).not.toMatch(/\[\d+\]/);
      expect(e.summary).toMatch(/West Bengal|Purulia|afforest|plantation|degraded/i);
      // Written to the store, and the cleaned record shows it.
      const after = await records.get(ref);
      expect(after?.enrichment.emissionsReductionsSource).toBe('document');
      const cleaned = deriveCleaned(after ?? stored, { requestedRegistry: 'verra', countries });
      expect(cleaned.summary).toBe(e.summary);
      expect(cleaned.metadata.emissions_reductions['2042']).toBe(13884);
      expect(cleaned.metadata.reduction_activity).toEqual(e.reductionActivity);
    });

    it('reads the Guangxi PDD table with its negative years', async () => {
      const ref = { registry: 'CDM', projectId: 547 };
      const stored = await records.get(ref);
      if (!stored) throw new Error('547 not imported');
      const e = await enrichProject({ ref, stored, texts, documents: states, summarizer, records, logger });
      expect(e.emissionsReductionsSource).toBe('document');
      expect(e.emissionsReductions?.['2006']).toBe(-40795);
      expect(e.emissionsReductions?.['2035']).toBe(71371);
    });

    it('gives every evaluation project a summary, a yearly map and the four document groups (through the hook)', async () => {
      const hook = createEnrichHook({ summarizer, countries });
      // The hook plugs into the pipeline as its afterProject option.
      const asPipelineHook: AfterProjectHook = hook;
      expect(typeof asPipelineHook).toBe('function');
      const refs = await records.list();
      expect(refs).toHaveLength(7);
      const sources: Record<string, string | undefined> = {};
      for (const ref of refs) {
        await hook(ref, { deps: { records, states, texts }, logger, documents: [] });
        const stored = await records.get(ref);
        if (!stored) throw new Error(`${ref.projectId} missing`);
        sources[`${ref.registry}:${ref.projectId}`] = stored.enrichment.emissionsReductionsSource;
        const cleaned = deriveCleaned(stored, { requestedRegistry: ref.registry, countries });
        const raw = rawRecordSchema.parse(stored.raw);
        expect(cleaned.summary.trim().length, `${ref.projectId} summary`).toBeGreaterThan(100);
        expect(cleaned.summary, `${ref.projectId} summary differs from the registry description`).not.toBe(raw.description);
        expect(Object.keys(cleaned.metadata.emissions_reductions).length, `${ref.projectId} emissions`).toBeGreaterThan(0);
        expect(cleaned.metadata.reduction_activity.length).toBeGreaterThan(0);
        expect(cleaned.documentGroups).toHaveLength(4);
        expect(cleaned.documentGroups.flatMap((g) => g.documents).length).toBe(raw.documentGroups.flatMap((g) => g.documents).length);
      }
      expect(sources).toEqual({
        'CDM:1': 'estimate',
        'CDM:547': 'document',
        'CDM:9199': 'estimate',
        'Regen:6006': 'estimate',
        'Regen:6007': 'estimate',
        'Verra:5533': 'document',
        'Verra:1000000': 'estimate',
      });
      // The methodology library's estimate is 0: one 0 per crediting year rather than an empty map.
      const lib = await records.get({ registry: 'Verra', projectId: 1000000 });
      expect(lib?.enrichment.emissionsReductions).toMatchObject({ '2013': 0, '2022': 0 });
      // The CDM HFC-23 project's activity is found in its PDD.
      const gfl = await records.get({ registry: 'CDM', projectId: 1 });
      expect(gfl?.enrichment.reductionActivity).toContain('HFC-23 destruction');
    });

    it('leaves derived fields alone when no document changed, and recomputes when one did', async () => {
      const ref = { registry: 'Verra', projectId: 5533 };
      let calls = 0;
      const counting: Summarizer = {
        model: 'counting',
        async summarize(input) {
          calls++;
          return `Counted summary of ${input.passages.length} passages [1].`;
        },
        async close() {},
      };
      const hook = createEnrichHook({ summarizer: counting });
      const deps = { records, states, texts };
      await hook(ref, { deps, logger, documents: [] });
      expect(calls).toBe(0);
      const changed: DocumentWorkItem[] = [
        {
          ref,
          documentId: 'any',
          uri: `${BASE}/pdf/VCS5533_project_description.pdf`,
          title: 'VCS5533_project_description.pdf',
          documentType: 'Project Description',
          uploadDate: null,
          previous: null,
          outcome: { kind: 'indexed' },
        },
      ];
      await hook(ref, { deps, logger, documents: changed });
      expect(calls).toBe(1);
      expect((await records.get(ref))?.enrichment.summary).toMatch(/^Counted summary of \d passages\.$/);
    });

    it('falls back to the first passage when the summariser fails or returns nothing', async () => {
      const ref = { registry: 'Verra', projectId: 5533 };
      const stored = await records.get(ref);
      if (!stored) throw new Error('5533 missing');
      const failing: Summarizer = {
        model: 'broken',
        async summarize() {
          throw new Error('LLM down');
        },
        async close() {},
      };
      const e = await enrichProject({ ref, stored, texts, documents: states, summarizer: failing, records, logger });
      expect(e.summary?.length).toBeGreaterThan(100);
      const empty: Summarizer = { model: 'empty', summarize: async () => '  ', close: async () => undefined };
      const e2 = await enrichProject({ ref, stored, texts, documents: states, summarizer: empty, records, logger });
      expect(e2.summary).toBe(e.summary);
    });
  },
);

describe('enrichment without documents', () => {
  it("leaves the yearly map to the record's live fallback, keeps the description as summary, expands subcategories", async () => {
    const ref = { registry: 'Verra', projectId: 4086 };
    const raw = JSON.parse(
      corpusAvailable
        ? await readFile(corpusPath('records', 'verra_4086_raw.json'), 'utf8')
        : JSON.stringify({
            resourceIdentifier: '4086',
            participationSummaries: [
              {
                programCode: 'VCS',
                attributes: [
                  { code: 'EST_ANNUAL_EMISSION_REDCT', values: [{ type: 'string', value: '59906' }] },
                  { code: 'PROJECT_SUBCATERGORY_NAMES', values: [{ type: 'string', value: 'ALM' }] },
                  { code: 'CREDIT_PERIOD_INFO', values: [{ type: 'string', value: '1st, 02/03/2020 - 01/03/2030' }] },
                ],
              },
            ],
          }),
    ) as Record<string, unknown>;
    await records.upsert([{ ref, format: 'registry-json', raw: { registry: 'Verra', ...raw } }]);
    const stored = await records.get(ref);
    if (!stored) throw new Error('4086 missing');
    const e = await enrichProject({ ref, stored, texts, documents: states, summarizer, records, logger });
    expect(e.emissionsReductionsSource).toBe('estimate');
    expect(e.summary).toBeUndefined();
    expect(e.reductionActivity?.[0]).toBe('Agricultural Land Management');
    // Stored empty: the record's fallback spreads the current estimate when it is read.
    expect(e.emissionsReductions).toEqual({});
    const cleaned = deriveCleaned((await records.get(ref)) ?? stored, { requestedRegistry: 'Verra', countries });
    expect(cleaned.metadata.emissions_reductions['2021']).toBe(59906);
    expect(Object.keys(cleaned.metadata.emissions_reductions)).toEqual([
      '2020',
      '2021',
      '2022',
      '2023',
      '2024',
      '2025',
      '2026',
      '2027',
      '2028',
      '2029',
      '2030',
    ]);
    expect(cleaned.summary).toBe(cleaned.description);
  });
});

describe('enrichment when documents and records change', () => {
  it('drops a table the documents no longer hold, and follows a re-imported estimate without re-enrichment', async () => {
    const ref = { registry: 'Verra', projectId: 777 };
    const raw = (estimate: string) => ({
      registry: 'Verra',
      resourceIdentifier: '777',
      resourceName: 'Changing project',
      participationSummaries: [
        {
          programCode: 'VCS',
          attributes: [
            { code: 'EST_ANNUAL_EMISSION_REDCT', values: [{ type: 'string', value: estimate }] },
            { code: 'CREDIT_PERIOD_INFO', values: [{ type: 'string', value: '1st, 01/01/2021 - 31/12/2022' }] },
          ],
        },
      ],
    });
    await records.upsert([{ ref, format: 'registry-json', raw: raw('100') }]);
    const doc = { uri: 'https://example.org/777/pd.pdf', documentName: 'pd.pdf', documentType: 'Project Description' };
    const prose = 'The project restores wetlands along the river and monitors their carbon stocks every year with the community. '.repeat(
      3,
    );
    await index(ref, doc, [prose, 'Estimated GHG emission reductions (tCO2e)\n2021 1,111\n2022 2,222']);
    const enrich = async () => {
      const stored = await records.get(ref);
      if (!stored) throw new Error('777 missing');
      return enrichProject({ ref, stored, texts, documents: states, summarizer, records, logger });
    };
    const cleaned = async () => {
      const stored = await records.get(ref);
      if (!stored) throw new Error('777 missing');
      return deriveCleaned(stored, { requestedRegistry: 'Verra', countries });
    };
    expect((await enrich()).emissionsReductionsSource).toBe('document');
    expect((await cleaned()).metadata.emissions_reductions).toEqual({ '2021': 1111, '2022': 2222 });

    await index(ref, doc, [prose, 'The table moved to an annex that is not published.']);
    expect((await enrich()).emissionsReductionsSource).toBe('estimate');
    expect((await cleaned()).metadata.emissions_reductions).toEqual({ '2021': 100, '2022': 100 });

    await records.upsert([{ ref, format: 'registry-json', raw: raw('250') }]);
    expect((await cleaned()).metadata.emissions_reductions).toEqual({ '2021': 250, '2022': 250 });
    expect((await records.get(ref))?.enrichment.emissionsReductionsSource).toBe('estimate');
  });
});

describe('summary helpers', () => {
  it('strips citation markers', () => {
    expect(stripMarkers('The project plants trees [1]. It is in India [2, 3].')).toBe('The project plants trees. It is in India.');
  });

  it('ranks project descriptions first', () => {
    expect(documentRank({ documentType: 'Project Description', title: 'x.pdf' })).toBe(0);
    expect(documentRank({ documentType: 'Draft Project Description', title: 'x.pdf' })).toBe(1);
    expect(documentRank({ documentType: 'Other', title: 'PROJ_DESC_DRAFT_4086.pdf' })).toBe(3);
    expect(documentRank({ documentType: 'Validation Report', title: 'x.pdf' })).toBeGreaterThan(3);
  });

  it('takes passages under the summary heading, skipping the table of contents', () => {
    const toc = '1.1 Summary Description of the Project ........................ 4\n1.2 Audit History ........... 5';
    const body =
      'VCS Project Description\n1.1 Summary Description of the Project\n' +
      'The project restores degraded farmland in Purulia, West Bengal, by planting native and fruit trees with smallholder farmers. '.repeat(
        3,
      ) +
      '\n1.2 Audit History\nNone.';
    const passages = summaryPassages([
      {
        state: {
          registry: 'Verra',
          projectId: 1,
          documentId: 'd',
          uri: 'https://example.org/pd.pdf',
          title: 'pd.pdf',
          documentType: 'Project Description',
          uploadDate: null,
          status: 'indexed',
          reason: null,
          contentHash: null,
          pages: 3,
          chunks: 3,
          embedderId: null,
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
        pages: ['Cover page', toc, body],
      },
    ]);
    expect(passages[0]?.page).toBe(3);
    expect(passages[0]?.text).toMatch(/^The project restores degraded farmland/);
    expect(passages.every((p) => !/\.{5,}/.test(p.text))).toBe(true);
  });

  it('skips a contents page without dot leaders (CDM PDD style) and reads the heading in the body', () => {
    const toc = [
      'SECTION A. General description of the proposed A/R CDM project activity',
      'B. Duration of the project activity / Crediting period',
      'C. Application of an approved baseline and monitoring methodology',
      'D. Estimation of ex ante net anthropogenic GHG removals by sinks',
      'E. Environmental impacts of the proposed A/R CDM project activity',
      'Annex 1: Contact information on participants in the proposed A/R CDM project activity',
    ].join('\n');
    const body =
      'A.2. Description of the proposed A/R CDM project activity:\n' +
      'The proposed project reforests degraded hills in two watersheds of Guangxi with mixed native species planted by farmers. '.repeat(3);
    const state = {
      registry: 'CDM',
      projectId: 547,
      documentId: 'd',
      uri: 'https://example.org/pdd.pdf',
      title: 'pdd.pdf',
      documentType: 'Project Description',
      uploadDate: null,
      status: 'indexed' as const,
      reason: null,
      contentHash: null,
      pages: 2,
      chunks: 2,
      embedderId: null,
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const passages = summaryPassages([{ state, pages: [toc, body] }]);
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.every((p) => p.page === 2)).toBe(true);
    expect(passages[0]?.text).toMatch(/^The proposed project reforests/);
  });
});

describeWithService('enrichment on the PostgreSQL stores', pgAvailability, () => {
  const makeBackend = pgBackend(async (pool) => ({
    records: await createPgRecordStore({ pool }),
    states: await createPgDocumentStateStore({ pool }),
    texts: await createPgDocumentTextStore({ pool }),
  }));

  it('derives and stores the VCS 5533 fields from text kept in PostgreSQL', async () => {
    if (!corpusAvailable) throw new Error('corpus not found');
    const backend = await makeBackend();
    try {
      const pg = await backend.open();
      const line = (await readFile(corpusPath('records', 'eval-projects.raw.jsonl'), 'utf8'))
        .split('\n')
        .find((l) => l.includes('"resourceIdentifier": "5533"'));
      const raw = JSON.parse(line ?? '{}') as Record<string, unknown>;
      const ref = { registry: 'Verra', projectId: 5533 };
      await pg.records.upsert([{ ref, format: 'registry-json', raw }]);
      const uri = `${BASE}/pdf/VCS5533_project_description.pdf`;
      const documentId = documentIdFor(uri);
      await pg.texts.put(ref, documentId, await extract('VCS5533_project_description.pdf', true));
      await pg.states.put({
        registry: 'Verra',
        projectId: 5533,
        documentId,
        uri,
        title: 'VCS5533_project_description.pdf',
        documentType: 'Project Description',
        uploadDate: null,
        status: 'indexed',
        reason: null,
        contentHash: 'h',
        pages: 66,
        chunks: 1,
        embedderId: 'test',
      });
      const stored = await pg.records.get(ref);
      if (!stored) throw new Error('not stored');
      const e = await enrichProject({ ref, stored, texts: pg.texts, documents: pg.states, summarizer, records: pg.records, logger });
      expect(e.emissionsReductionsSource).toBe('document');
      const after = await pg.records.get(ref);
      expect(after?.enrichment.emissionsReductions?.['2042']).toBe(13884);
      expect(after?.enrichment.summary).toBe(e.summary);
      expect(after?.enrichment.reductionActivity).toEqual(e.reductionActivity);
    } finally {
      await backend.dispose();
    }
  });
});
