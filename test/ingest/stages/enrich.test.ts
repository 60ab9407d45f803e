import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIngest } from '../../../ingest/pipeline.js';
import { createEnrichHook } from '../../../ingest/stages/enrich.js';
import type { IngestDeps } from '../../../ingest/types.js';
import { createEmbedder } from '../../../src/deps.js';
import { createCountryLookup } from '../../../src/adapters/geo/country-lookup.js';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../../src/adapters/sqlite/vector-index.js';
import { createExtractiveSummarizer } from '../../../src/adapters/summarizers/extractive.js';
import { deriveCleaned } from '../../../src/domain/derive-cleaned.js';
import type { ProjectRef } from '../../../src/domain/project-ref.js';
import { createHttpDownloader } from '../../../src/adapters/download/http-downloader.js';
import { createUrlPolicy } from '../../../src/adapters/download/url-policy.js';
import { createPdfExtractor } from '../../../ingest/stages/extract.js';
import { createLogger } from '../../../src/logger.js';
import type { Summarizer } from '../../../src/ports/summarizer.js';
import { makePdf } from '../support/make-pdf.js';
import { startStaticServer, type StaticServer } from '../../support/static-server.js';

/**
 * The derived fields through the real ingest pipeline: real HTTP downloads, pdf-parse extraction, the USE embedder,
 * SQLite stores, and the enrichment hook as `afterProject`. The documents are small generated PDFs (so the file runs
 * in seconds; the real VCS 5533 description is covered in enrich-project.test.ts on the text the extract stage
 * stores): one laid out like a VCS PD 4.4 table (dates broken at hyphens, a row cut by a page break, running headers),
 * one whose table changes between runs, and a project without any table.
 */

const logger = createLogger({ level: 'silent', name: 'test' });
const countries = createCountryLookup();
const files = new Map<string, Buffer>();
let server: StaticServer;
let db: SqliteDatabase;
let deps: IngestDeps;
let summaries = 0;

const SMALL: ProjectRef = { registry: 'Verra', projectId: 90001 };
const VINTAGE: ProjectRef = { registry: 'Verra', projectId: 90002 };
const NO_TABLE: ProjectRef = { registry: 'CDM', projectId: 90003 };

/** A VCS PD 4.4-style vintage table as narrow cells print: every cell on its own line, dates broken at hyphens. */
function vintageDescription(): Buffer {
  const header = 'VCS Project Description Template, v4.4';
  const cells = (start: string, end: string, net: string) => [
    ...start.split(/(?<=-)/),
    'to',
    ...end.split(/(?<=-)/),
    '0',
    '9,000',
    '0',
    '1,000',
    net,
  ];
  return makePdf([
    [
      header,
      '1',
      '1.1 Summary Description of the Project',
      'The project plants mangroves along the coast of Kenya with fishing communities, restoring nurseries.',
      'Mangrove restoration protects the shore and stores carbon; mangrove restoration also brings back fish.',
    ].join('\n'),
    [
      header,
      '2',
      'Vintage period Estimated baseline emissions (tCO2e) Estimated project removals (tCO2e) Estimated leakage (tCO2e)',
      'Estimated buffer (tCO2e) Estimated total VCU issuance (tCO2e)',
      ...cells('15-July-2022', '31-Dec-2022', '4,000'),
      ...cells('01-Jan-2023', '31-Dec-2023', '8,000'),
      ...cells('01-Jan-2024', '31-Dec-', '8,000'),
    ].join('\n'),
    [header, '3', '2024', ...cells('01-Jan-2025', '14-July-2025', '3,500'), 'Total 0 27,000 0 3,000 23,500', '5 MONITORING'].join('\n'),
  ]);
}

const summarizer: Summarizer = (() => {
  const real = createExtractiveSummarizer();
  return {
    model: real.model,
    summarize: (input, signal) => {
      summaries++;
      return real.summarize(input, signal);
    },
    close: () => real.close(),
  };
})();

function description(values: [number, string][]): Buffer {
  return makePdf([
    [
      '1.1 Summary Description of the Project',
      'The project installs improved cookstoves in rural households of Malawi, replacing open fires.',
      'Improved cookstoves reduce the use of non-renewable fuelwood and the emissions that come with it.',
      'The project is run by a local cooperative together with the households who use the stoves every day.',
    ].join('\n'),
    ['Estimated GHG emission reductions (tCO2e)', 'Year Baseline Project Net', ...values.map(([y, v]) => `${y} ${v}`)].join('\n'),
  ]);
}

function record(ref: ProjectRef, name: string, estimate: string, period: string, docs: [string, string, string][]) {
  return {
    ref,
    format: 'registry-json' as const,
    raw: {
      registry: ref.registry,
      resourceIdentifier: String(ref.projectId),
      resourceName: name,
      description: 'Registry description.',
      participationSummaries: [
        {
          programCode: 'VCS',
          attributes: [
            { code: 'EST_ANNUAL_EMISSION_REDCT', values: [{ type: 'string', value: estimate }] },
            { code: 'CREDIT_PERIOD_INFO', values: [{ type: 'string', value: period }] },
          ],
        },
      ],
      documentGroups: [
        {
          code: 'VCS_PIPELINE_DOCUMENTS',
          description: 'VCS Pipeline Documents',
          documents: docs.map(([documentName, documentType, path]) => ({
            documentName,
            documentType,
            uploadDate: '2024-01-01T00:00:00.000Z',
            uri: `${server.baseUrl}${path}`,
          })),
        },
      ],
    },
  };
}

function serve(req: IncomingMessage, res: ServerResponse): boolean {
  const body = files.get(new URL(req.url ?? '/', 'http://x').pathname);
  if (!body) return false;
  res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
  res.end(body);
  return true;
}

const extractor = createPdfExtractor();
const run = () =>
  runIngest({
    deps,
    projects: [VINTAGE, SMALL, NO_TABLE],
    logger,
    downloader: createHttpDownloader({ policy: createUrlPolicy([server.hostPort]), retries: 0, timeoutMs: 20_000 }),
    extractor,
    afterProject: createEnrichHook({ summarizer, countries }),
  });

describe('derived fields through the ingest pipeline', () => {
  beforeAll(async () => {
    server = await startStaticServer({ handlers: [serve] });
    db = openSqlite({ dataDir: ':memory:' });
    deps = {
      records: await createSqliteRecordStore({ db }),
      states: await createSqliteDocumentStateStore({ db }),
      texts: await createSqliteDocumentTextStore({ db }),
      index: await createSqliteVectorIndex({ db }),
      embedder: await createEmbedder({ kind: 'use' }, { modelsDir: './models', allowRemoteModels: false, openai: {} }),
    };
    files.set('/vintage/pd.pdf', vintageDescription());
    files.set(
      '/none/report.pdf',
      makePdf([
        'Validation report. The project destroys HFC-23 by thermal oxidation of HFC-23 at a chemical plant in Gujarat, India.\nThe validation team visited the plant and found the monitoring plan complete and the project additional.',
      ]),
    );
    await deps.records.upsert([
      record(VINTAGE, 'Kenya mangroves', '4000', '1st, 15/07/2022 - 14/07/2025', [['pd.pdf', 'Project Description', '/vintage/pd.pdf']]),
      record(NO_TABLE, 'HFC-23 destruction', '3000000', '1st, 01/01/2004 - 31/12/2010', [
        ['report.pdf', 'Validation Report', '/none/report.pdf'],
      ]),
    ]);
    files.set(
      '/small/pd.pdf',
      description([
        [2024, '1,000 100 900'],
        [2025, '2,000 200 1,800'],
      ]),
    );
    await deps.records.upsert([
      record(SMALL, 'Malawi cookstoves', '1350', '1st, 01/01/2024 - 31/12/2033', [['pd.pdf', 'Project Description', '/small/pd.pdf']]),
    ]);
  }, 120_000);

  afterAll(async () => {
    await extractor.close();
    await deps?.embedder.close();
    await deps?.texts.close();
    await deps?.states.close();
    await deps?.index.close();
    await deps?.records.close();
    db?.close();
    await server?.close();
  });

  it('fills summary, yearly reductions and activities of every project after ingestion', async () => {
    const summary = await run();
    expect(summary.documents.indexed).toBe(3);
    expect(summary.failures).toEqual([]);
    const cleaned = async (ref: ProjectRef) => {
      const stored = await deps.records.get(ref);
      if (!stored) throw new Error(`${ref.projectId} missing`);
      return { stored, c: deriveCleaned(stored, { requestedRegistry: ref.registry, countries }) };
    };

    const vintage = await cleaned(VINTAGE);
    expect(vintage.stored.enrichment.emissionsReductionsSource).toBe('document');
    // The 2024 row's end date is printed on the next page; the partial first and last years keep their values.
    expect(vintage.c.metadata.emissions_reductions).toEqual({ '2022': 4000, '2023': 8000, '2024': 8000, '2025': 3500 });
    expect(vintage.c.summary).toMatch(/mangroves/);
    expect(vintage.c.metadata.reduction_activity).toContain('Mangrove restoration');

    const small = await cleaned(SMALL);
    expect(small.c.metadata.emissions_reductions).toEqual({ '2024': 900, '2025': 1800 });
    expect(small.c.summary).toMatch(/cookstoves/);
    expect(small.c.summary).not.toBe(small.c.description);
    expect(small.c.metadata.reduction_activity).toContain('Improved cookstoves');

    const none = await cleaned(NO_TABLE);
    expect(none.stored.enrichment.emissionsReductionsSource).toBe('estimate');
    expect(Object.keys(none.c.metadata.emissions_reductions)).toEqual(['2004', '2005', '2006', '2007', '2008', '2009', '2010']);
    expect(none.c.summary).toMatch(/HFC-23/);
    for (const { c } of [vintage, small, none]) expect(c.documentGroups).toHaveLength(4);
    expect(summaries).toBe(3);
  }, 120_000);

  it('keeps derived fields when nothing changed, and recomputes them when a document changes', async () => {
    const unchanged = await run();
    expect(unchanged.documents.unchanged).toBe(3);
    expect(summaries).toBe(3);

    files.set(
      '/small/pd.pdf',
      description([
        [2024, '1,000 100 900'],
        [2025, '2,000 200 1,700'],
        [2026, '3,000 300 2,700'],
      ]),
    );
    const changed = await run();
    expect(changed.documents.indexed).toBe(1);
    expect(summaries).toBe(4);
    const small = await deps.records.get(SMALL);
    expect(small?.enrichment.emissionsReductions).toEqual({ '2024': 900, '2025': 1700, '2026': 2700 });
  }, 120_000);
});
