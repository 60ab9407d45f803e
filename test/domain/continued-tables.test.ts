import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunk } from '../../ingest/stages/chunk.js';
import { extractPdfPages } from '../../ingest/stages/extract.js';
import { toChunkRecords } from '../../ingest/stages/upsert.js';
import type { DocumentWorkItem, StageContext } from '../../ingest/types.js';
import { openSqlite } from '../../src/adapters/sqlite/database.js';
import { createSqliteVectorIndex } from '../../src/adapters/sqlite/vector-index.js';
import { chunkPages } from '../../src/domain/chunking.js';
import { continuedTableHeadings } from '../../src/domain/continued-tables.js';
import { EMBEDDER, randomUnitVector } from '../contract/vector-index.contract.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { rng } from '../support/rng.js';
import { describeWithService } from '../support/services.js';

/** A yearly estimate table as extracted from a project description: a cell a line, running header and page number on top. */
const HEADINGS = [
  'Vintage',
  'period Estimated',
  'baseline',
  'emissions',
  '(tCO2e)',
  'Estimated',
  'buffer pool',
  'allocation',
  '(tCO2e)',
  'Estimated',
  'total VCU',
  'issuance',
  '(tCO2e)',
];
const row = (year: number): string => `01-Jan-\n${year}\nto 31-\nDec-\n${year}\n0 27,769 0 4,998 22,770`;
const page = (n: number, ...body: string[]): string => ['VCS Project Description Template, v4.4', String(n), ...body].join('\n');

function document(): string[] {
  const pages = [
    page(1, 'The project plants native trees on degraded land owned by indigenous farmers.'),
    page(2, 'The estimated removals over the crediting period are given below.', ...HEADINGS, row(2023), row(2024)),
    page(3, row(2025), row(2026), row(2027), row(2028)),
    page(4, row(2029), row(2030), 'Total 0 535,052 0 96,309 438,743', '5 MONITORING', 'The project area is measured with GPS.'),
    page(5, 'Stakeholders were consulted in 2022 in the villages of the project area.'),
  ];
  return pages;
}

const at = (pages: string[], n: number, offset = 0) => ({ page: n, offset, text: (pages[n - 1] ?? '').slice(offset) });

describe('continuedTableHeadings', () => {
  it("gives a table's rows on later pages the column headings of the page where it starts", () => {
    const pages = document();
    const [p3, p4] = continuedTableHeadings(pages, [at(pages, 3), at(pages, 4)]);
    expect(p3).toBe(HEADINGS.join(' '));
    expect(p4).toBe(HEADINGS.join(' '));
  });

  it('gives none to prose, nor to a table whose headings are on its own page, nor to a document without tables', () => {
    const pages = document();
    expect(continuedTableHeadings(pages, [at(pages, 1), at(pages, 2), at(pages, 5)])).toEqual(['', '', '']);
    // The rows of page 2 after its headings: the page is found by them already.
    const rows = (pages[1] ?? '').indexOf('01-Jan-');
    expect(continuedTableHeadings(pages, [at(pages, 2, rows)])).toEqual(['']);
    expect(continuedTableHeadings([], [])).toEqual([]);
  });

  it('gives none to a table that starts at the top of its page, after a page that ends with words', () => {
    const pages = [
      page(1, 'The annual removals rise as the stands grow, and', 'are shown for each year in the table on the next page'),
      page(2, row(2023), row(2024), row(2025), row(2026)),
      page(3, 'Rules and lines of symbols are no headings.'),
    ];
    expect(continuedTableHeadings(pages, [at(pages, 2)])).toEqual(['']);
    // A rule between the rows and the page break changes nothing.
    const ruled = [
      page(1, ...HEADINGS, row(2022), '________________'),
      page(2, row(2023), row(2024), row(2025)),
      ...[3, 4, 5].map((n) => page(n, 'Monitoring follows the plan.')),
    ];
    expect(continuedTableHeadings(ruled, [at(ruled, 2)])).toEqual([HEADINGS.join(' ')]);
  });

  it('keeps the headings nearest the rows, within 300 characters, and looks back five pages at most', () => {
    const long = Array.from({ length: 60 }, (_, i) => `Column heading ${String.fromCharCode(65 + (i % 26))}`);
    const pages = [
      page(1, 'Opening prose of the report.', ...long, row(2020)),
      ...Array.from({ length: 3 }, (_, i) => page(i + 2, row(2021 + i))),
    ];
    const [heading] = continuedTableHeadings(pages, [at(pages, 4)]);
    expect(heading?.length).toBeLessThanOrEqual(300);
    expect(heading?.endsWith(long.at(-1) ?? '')).toBe(true);
    const far = [page(1, ...HEADINGS, row(2000)), ...Array.from({ length: 7 }, (_, i) => page(i + 2, row(2001 + i)))];
    expect(continuedTableHeadings(far, [at(far, 6), at(far, 8)])).toEqual([HEADINGS.join(' '), '']);
  });
});

describe('the chunk and upsert stages', () => {
  it("index a continued table's headings with its chunks, so that full-text search finds its last page by them", async () => {
    const pages = document();
    const base = {
      ref: { registry: 'Verra', projectId: 5533 },
      documentId: 'pd',
      uri: 'https://registry.verra.org/pd.pdf',
      title: 'pd.pdf',
      documentType: 'Project Description',
      uploadDate: null,
      previous: null,
      pages,
      projectContext: 'Project to Afforest Degraded Lands in West Bengal',
    } satisfies DocumentWorkItem;
    const chunked = await chunk(base, { chunkMaxTokens: 256 } as StageContext);
    const rand = rng(7);
    const records = toChunkRecords({ ...chunked, vectors: (chunked.chunks ?? []).map(() => randomUnitVector(rand)) });
    const last = records.find((r) => r.page === 4);
    expect(last?.context).toBe(`Project to Afforest Degraded Lands in West Bengal\n${HEADINGS.join(' ')}`);
    expect(records.find((r) => r.page === 5)?.context).toBe('Project to Afforest Degraded Lands in West Bengal');

    const db = openSqlite({ dataDir: ':memory:' });
    try {
      const index = await createSqliteVectorIndex({ db });
      await index.open(EMBEDDER);
      await index.replaceDocument(base.ref, base.documentId, records);
      const hits = await index.searchText('total buffer pool allocation VCU issuance', [base.ref], 3);
      expect(hits.map((h) => h.page)).toContain(4);
      // The headings are never the cited text.
      expect(hits.every((h) => !h.text.includes('allocation') || h.page === 2)).toBe(true);
    } finally {
      db.close();
    }
  });
});

describeWithService('continued tables of the corpus PDFs', { available: corpusAvailable, why: 'corpus not found' }, () => {
  let vcs: string[] = [];
  beforeAll(async () => {
    const r = await extractPdfPages(new Uint8Array(readFileSync(corpusPath('pdf', 'VCS5533_project_description.pdf'))));
    if (!r.ok) throw new Error(r.reason);
    vcs = r.pages;
  }, 60_000);

  it("gives VCS 5533's estimate table on pages 49-50 its headings from page 48, and few chunks any", () => {
    const chunks = chunkPages(vcs, { maxTokens: 254 });
    const headings = continuedTableHeadings(vcs, chunks);
    const total = chunks.findIndex((c) => c.text.includes('Total 0 535,052'));
    expect(chunks[total]?.page).toBe(50);
    expect(headings[total]).toMatch(/Estimated\s+buffer pool\s+allocation/u);
    expect(headings[total]).toMatch(/total VCU\s+issuance/u);
    // Prose and the pages where tables start get none.
    expect(headings.filter((h) => h !== '').length).toBeLessThan(chunks.length / 10);
    expect(headings[chunks.findIndex((c) => c.page === 47)]).toBe('');
  });
});
