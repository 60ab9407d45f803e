import { readFileSync } from 'node:fs';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractPdfPagesHere, pageItems, type ExtractCaps } from '../../ingest/stages/extract-pdf.js';
import { normalizePageText } from '../../src/domain/chunking.js';
import { findEmissionTable } from '../../src/domain/emission-table.js';
import {
  continueTable,
  findTables,
  renderTableRows,
  TABLE_ROWS_HEADING,
  withoutTableRows,
  withTableRows,
  type TextItem,
} from '../../src/domain/tables.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

const CAPS: ExtractCaps = { maxPages: 2000, maxTextChars: 50_000_000, maxPageChars: 1_000_000, ocr: null };

describe('withTableRows / withoutTableRows', () => {
  it('appends the rows under their heading line and takes them off again', () => {
    const page = 'Some text of the page.\n2023 12,345 9,870';
    const rows = ['Table 7 (Estimated GHG emission reductions), Year 2023: Net reductions (tCO2e) 9,870.'];
    const withRows = withTableRows(page, rows);
    expect(withRows).toBe(`${page}\n\n${TABLE_ROWS_HEADING}\n${rows[0]}`);
    expect(withoutTableRows(withRows)).toBe(page);
    expect(withTableRows(page, [])).toBe(page);
    expect(withoutTableRows(page)).toBe(page);
  });
});

describe('renderTableRows', () => {
  it('writes a row with its caption, its label and a heading before each figure, skipping empty cells', () => {
    const rows = renderTableRows({
      caption: 'Table 7: Estimated GHG emission reductions',
      headings: ['Year', 'Baseline emissions (tCO2e)', 'Leakage (tCO2e)', 'Net reductions (tCO2e)'],
      rows: [['2023', '12,345', '', '9,870']],
    });
    expect(rows).toEqual([
      'Table 7 (Estimated GHG emission reductions), Year 2023: Baseline emissions (tCO2e) 12,345, Net reductions (tCO2e) 9,870.',
    ]);
  });

  it('writes nothing for a table without headings over its figures', () => {
    expect(renderTableRows({ caption: 'Table 2', headings: ['Year', '', ''], rows: [['2023', '1', '2']] })).toEqual([]);
  });
});

describe('findTables on made-up positions', () => {
  const item = (str: string, x: number, y: number): TextItem => ({ str, x, y, width: str.length * 5, height: 10 });

  it('finds a grid of figures under its headings and caption, and no table in a paragraph', () => {
    const items = [
      item('A paragraph of prose that runs across the page and says nothing tabular.', 50, 50),
      item('Table 3: Areas planted', 50, 80),
      item('Species', 50, 100),
      item('Area 2006 (ha)', 200, 100),
      item('Area 2007 (ha)', 300, 100),
      item('Pine', 50, 115),
      item('850', 200, 115),
      item('150', 300, 115),
      item('Eucalyptus', 50, 130),
      item('1,000', 200, 130),
      item('2,340', 300, 130),
    ];
    const tables = findTables(items);
    expect(tables).toHaveLength(1);
    expect(renderTableRows(tables[0] as (typeof tables)[0])).toEqual([
      'Table 3 (Areas planted), Species Pine: Area 2006 (ha) 850, Area 2007 (ha) 150.',
      'Table 3 (Areas planted), Species Eucalyptus: Area 2006 (ha) 1,000, Area 2007 (ha) 2,340.',
    ]);
    expect(findTables(items.slice(0, 1))).toEqual([]);
  });
});

describeWithService('tables of the corpus PDFs, from their text positions', { available: corpusAvailable, why: 'corpus not found' }, () => {
  const parsers: PDFParse[] = [];
  async function tablesOf(file: string, page: number) {
    const parser = new PDFParse({ data: new Uint8Array(readFileSync(corpusPath('pdf', file))), verbosity: 0 });
    parsers.push(parser);
    return findTables(await pageItems(parser, page));
  }
  afterAll(async () => {
    await Promise.all(parsers.map((p) => p.destroy()));
  });

  it("reads VCS 5533's estimate table on page 48 with its eight column headings, a wrapped period as one label", async () => {
    const [table] = await tablesOf('VCS5533_project_description.pdf', 48);
    expect(table?.headings).toEqual([
      'Vintage period',
      'Estimated baseline emissions (tCO2e)',
      'Estimated project emissions (tCO2e)',
      'Estimated leakage emissions (tCO2e)',
      'Estimated buffer pool allocation (tCO2e)',
      'Estimated reduction VCUs (tCO2e)',
      'Estimated removal VCUs (tCO2e)',
      'Estimated total VCU issuance (tCO2e)',
    ]);
    expect(renderTableRows(table as NonNullable<typeof table>)[1]).toBe(
      'Vintage period 01-Jan-2023 to 31-Dec-2023: Estimated baseline emissions (tCO2e) 0, Estimated project emissions (tCO2e) 20,586, ' +
        'Estimated leakage emissions (tCO2e) 0, Estimated buffer pool allocation (tCO2e) 3,706, Estimated reduction VCUs (tCO2e) 0, ' +
        'Estimated removal VCUs (tCO2e) 16,881, Estimated total VCU issuance (tCO2e) 16,881.',
    );
  });

  it('gives the rows continued on page 50 the headings of page 48, through page 49', async () => {
    const [p48] = await tablesOf('VCS5533_project_description.pdf', 48);
    const [p49] = await tablesOf('VCS5533_project_description.pdf', 49);
    const [p50] = await tablesOf('VCS5533_project_description.pdf', 50);
    expect(p49?.headings.every((h) => h === '')).toBe(true);
    const continued = continueTable(p50 as NonNullable<typeof p50>, continueTable(p49 as NonNullable<typeof p49>, p48 ?? null));
    const total = renderTableRows(continued).find((r) => r.includes('Total'));
    expect(total).toContain('Vintage period Total: ');
    expect(total).toContain('Estimated buffer pool allocation (tCO2e) 96,309');
    expect(total).toContain('Estimated total VCU issuance (tCO2e) 438,743');
  });

  it("reads Botany Farm's SOC results with its caption, the title over a group of columns left out of the headings", async () => {
    const [table] = await tablesOf('REGEN_C06-006_botany_farm_monitoring_report_2023.pdf', 7);
    const rows = renderTableRows(table as NonNullable<typeof table>);
    expect(rows).toContain(
      'Table 1 (SOC Results), Field 26 Acre: Crop Type Winter Wheat, Area [ha] 10.36, Gross Mean [t/ha] 79.31, Net Mean [t/ha] 75.36, ' +
        'Gross Total [t] 821.84, Net Total [t] 780.92, Stone Content [%] 0.00%.',
    );
  });

  it("reads the Guangxi planting table's wrapped headings merged per column", async () => {
    const tables = await tablesOf('CDM0547_guangxi_reforestation_project_design_document.pdf', 24);
    const rows = tables.flatMap(renderTableRows);
    expect(rows).toContain(
      'Species/Model P. massoniana + Quercus sp.: Species ratio 6:4, Area to be planted in 2006 (ha) 100, Area to be planted in 2007 (ha) 800, Total area (ha) 900.',
    );
  });

  it('finds no table of figures on a page of prose', async () => {
    // The GFL registration request form's first page: prose and form fields, no figures in columns.
    expect((await tablesOf('CDM_GFL-HFC23_registration_request_form.pdf', 1)).flatMap(renderTableRows)).toEqual([]);
  });
});

describeWithService('table rows in the extracted pages', { available: corpusAvailable, why: 'corpus not found' }, () => {
  let pages: string[] = [];
  beforeAll(async () => {
    const r = await extractPdfPagesHere(new Uint8Array(readFileSync(corpusPath('pdf', 'VCS5533_project_description.pdf'))), CAPS);
    if (!r.ok) throw new Error(r.reason);
    pages = r.pages;
  }, 120_000);

  it("appends page 50's rows, headings carried from page 48, after the page's own text", () => {
    const page = pages[49] ?? '';
    const own = withoutTableRows(page);
    expect(own).toContain('Total 0 535,052 0 96,309 438,743 438,743');
    expect(page.slice(own.length)).toMatch(/Vintage period Total: .*Estimated buffer pool allocation \(tCO2e\) 96,309/u);
  });

  it('leaves the emission table of the derived fields as read from the text layer alone', async () => {
    const parser = new PDFParse({ data: new Uint8Array(readFileSync(corpusPath('pdf', 'VCS5533_project_description.pdf'))), verbosity: 0 });
    const layer = (await parser.getText({ pageJoiner: '' }).finally(() => parser.destroy())).pages.map((p) => normalizePageText(p.text));
    const table = findEmissionTable(pages.map(withoutTableRows));
    expect(table?.values['2023']).toBe(20586);
    expect(table?.total).toBe(535052);
    expect(table).toEqual(findEmissionTable(layer));
  });
});
