import { readFile } from 'node:fs/promises';
import { PDFParse } from 'pdf-parse';
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizePageText } from '../../src/domain/chunking.js';
import { findEmissionTable, findEmissionTables, parseQuantity, tableSum } from '../../src/domain/emission-table.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

describe('parseQuantity', () => {
  it.each([
    ['535,052', 535052],
    ['5,35,052', 535052],
    ['1,23,45,678', 12345678],
    ['7281', 7281],
    ['0', 0],
    ['-40,795', -40795],
    ['−3', -3],
    ['–9,065', -9065],
    ['(1,234)', -1234],
    ['12.5', 12.5],
    ['1,234.75', 1234.75],
  ])('reads %s as %d', (text, value) => {
    expect(parseQuantity(text)).toBe(value);
  });

  it.each(['', 'abc', '1,2', '12,34', '1.2.3', '2,0222', 'tCO2e', '31-Dec-'])('rejects %j', (text) => {
    expect(parseQuantity(text)).toBeNull();
  });
});

describeWithService('emission table of the real VCS 5533 project description', {
  available: corpusAvailable,
  why: `corpus not found at ${corpusPath()}`,
}, () => {
  let pages: string[] = [];
  beforeAll(async () => {
    const data = await readFile(corpusPath('pdf', 'VCS5533_project_description.pdf'));
    const parser = new PDFParse({ data: new Uint8Array(data) });
    try {
      pages = (await parser.getText()).pages.map((p) => p.text);
    } finally {
      await parser.destroy();
    }
  });

  it('extracts all 66 pages', () => {
    expect(pages).toHaveLength(66);
  });

  it('reads the section 1.11 table (calendar years, the registry estimate) when the estimate is given', () => {
    const table = findEmissionTable(pages, { annualEstimate: 26752 });
    expect(table).not.toBeNull();
    if (!table) return;
    expect(Object.keys(table.values)).toEqual(Array.from({ length: 21 }, (_, i) => String(2022 + i)));
    // Partial first and last years are kept at their own year.
    expect(table.values['2022']).toBe(7281);
    expect(table.values['2023']).toBe(20586);
    expect(table.values['2024']).toBe(21234);
    expect(table.values['2037']).toBe(27769);
    expect(table.values['2042']).toBe(13884);
    expect(table.pages).toEqual([9, 10]);
    // The total is written with Indian grouping, "5,35,052".
    expect(table.total).toBe(535052);
    expect(Math.abs(tableSum(table) - 535052)).toBeLessThanOrEqual(10);
    expect(table.rows.find((r) => r.year === 2042)?.page).toBe(10);
  });

  it('finds the section 4.4 vintage table too, with its net column and a row cut by a page break', () => {
    const tables = findEmissionTables(pages);
    expect(tables).toHaveLength(2);
    const vintage = tables[1];
    expect(vintage?.pages).toEqual([48, 49, 50]);
    expect(vintage?.values['2022']).toBe(5971);
    expect(vintage?.values['2023']).toBe(16881);
    // 01-Jan-2038 to 31-Dec-2038: the end year of this row's label is printed on page 50.
    expect(vintage?.values['2038']).toBe(22770);
    expect(vintage?.values['2039']).toBe(22770);
    expect(vintage?.values['2042']).toBe(11385);
    expect(Object.keys(vintage?.values ?? {})).toHaveLength(21);
    // The total row has an empty cell; "5 MONITORING" after it is a heading, not a cell.
    expect(vintage?.total).toBe(438743);
  });

  it('reads the same table from the text as the ingest pipeline stores it (normalised pages)', () => {
    const table = findEmissionTable(pages.map(normalizePageText), { annualEstimate: 26752 });
    expect(table?.pages).toEqual([9, 10]);
    expect(table?.values['2022']).toBe(7281);
    expect(table?.total).toBe(535052);
  });

  it('prefers the table closest to the annual estimate', () => {
    expect(findEmissionTable(pages, { annualEstimate: 22000 })?.pages).toEqual([48, 49, 50]);
    expect(findEmissionTable(pages, { annualEstimate: 26752 })?.pages).toEqual([9, 10]);
  });
});

describe('emission table: synthetic layouts', () => {
  it('reads a CDM-style table with negative values and a total row that is not a year', () => {
    const page = [
      'A.4.4.1. Estimated amount of emission reductions over the chosen crediting period',
      'Table 3 Ex ante estimated net anthropogenic GHG removals by sinks',
      'Years Annual estimation of net removals in tonnes of CO2 e',
      '2006 \t-40,795',
      '2007 \t54,394',
      '2008 \t(1,234)',
      '2009 \t−3',
      'Total estimated net anthropogenic GHG removals \t12,362',
      'B.1 Next section 2010 was a good year',
    ].join('\n');
    const table = findEmissionTable([page]);
    expect(table?.values).toEqual({ '2006': -40795, '2007': 54394, '2008': -1234, '2009': -3 });
    expect(table?.total).toBe(12362);
  });

  it('reads Indian digit grouping and decimal values', () => {
    const page = [
      'Calendar year of crediting period Estimated GHG emission reductions or removals (tCO2e)',
      '2021 1,20,500.5',
      '2022 5,35,052',
      '2023 10,00,000.25',
      'Total 16,55,552.75',
    ].join('\n');
    const table = findEmissionTable([page]);
    expect(table?.values).toEqual({ '2021': 120500.5, '2022': 535052, '2023': 1000000.25 });
    expect(table?.total).toBe(1655552.75);
  });

  it('sums partial-year periods of the same calendar year under that year', () => {
    const page = [
      'Vintage period Estimated reduction VCUs (tCO2e)',
      '01/01/2022 - 30/06/2022 1,000.5',
      '01/07/2022 - 31/12/2022 1,500.25',
      '01/01/2023 - 31/12/2023 3,000',
    ].join('\n');
    const table = findEmissionTable([page]);
    expect(table?.values).toEqual({ '2022': 2500.75, '2023': 3000 });
    expect(table?.rows).toHaveLength(3);
  });

  it('follows a table over a page break, ignoring running headers and page numbers', () => {
    const header = 'ACME Project Description v1.0';
    const pages = [
      `${header}\n1\nIntroduction text about the project.`,
      `${header}\n2\nEstimated GHG emission reductions (tCO2e)\nYear Baseline Project Net\n2020 100 10 90\n2021 200 20 180`,
      `${header}\n3\n2022 300 30 270\n2023 400 40 360\nTotal 1000 100 900`,
      `${header}\n4\nMonitoring plan.`,
    ];
    const table = findEmissionTable(pages);
    expect(table?.values).toEqual({ '2020': 90, '2021': 180, '2022': 270, '2023': 360 });
    expect(table?.pages).toEqual([2, 3]);
    expect(table?.rows.map((r) => r.page)).toEqual([2, 2, 3, 3]);
    expect(table?.total).toBe(900);
  });

  it('takes a plain four-digit value as a cell when the row is short of the column count', () => {
    const page = [
      'Estimated emission reductions (tCO2e)',
      'Year Baseline Net',
      '2020 5000 4000',
      '2021 3000 2000',
      '2022 2500 1999',
    ].join('\n');
    expect(findEmissionTable([page])?.values).toEqual({ '2020': 4000, '2021': 2000, '2022': 1999 });
  });

  it('rejects a table whose values are the next rows\' numbers (a "No. | Year" layout read wrongly)', () => {
    const page = ['Estimated net removals (t CO2-e)', 'No. Year Baseline Net', '1 2006 100 90', '2 2007 200 180', '3 2008 300 270', '4 2009 400 360'];
    expect(findEmissionTable([page.join('\n')])).toBeNull();
  });

  it('keeps rows apart when an earlier table of the document had more columns', () => {
    const pages = [
      `Estimated baseline removals and project emissions (tCO2e)\n2001 10 20 30 40\n2002 50 60 70 85\n${'Prose about the methods used in the study area, long enough to separate the two tables. '.repeat(4)}`,
      'Annual estimation of net GHG removals in tonnes of CO2 e\n2006 -40,795\n2007 54,394\n2008 57,811',
    ];
    const tables = findEmissionTables(pages);
    expect(tables).toHaveLength(2);
    expect(tables[0]?.values).toEqual({ '2001': 40, '2002': 85 });
    expect(tables[1]?.values).toEqual({ '2006': -40795, '2007': 54394, '2008': 57811 });
  });

  it('finds nothing in prose, in year lists without an emissions header, or in empty documents', () => {
    expect(findEmissionTable([])).toBeNull();
    expect(findEmissionTable(['', '   '])).toBeNull();
    expect(
      findEmissionTable(['In 2019 the project planted 1,200 trees and in 2020 it planted 2,400 more on 35 ha.']),
    ).toBeNull();
    expect(findEmissionTable(['Area planted per year (ha)\n2019 120\n2020 240\n2021 360'])).toBeNull();
  });
});
