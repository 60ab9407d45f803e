import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PDFParse } from 'pdf-parse';
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizePageText } from '../../src/domain/chunking.js';
import { findEmissionTable, findEmissionTables, parseQuantity, tableSum } from '../../src/domain/emission-table.js';
import { DEMO_DOCUMENTS } from '../../scripts/make-demo-pdfs.js';
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

describeWithService(
  'emission table of the real VCS 5533 project description',
  {
    available: corpusAvailable,
    why: `corpus not found at ${corpusPath()}`,
  },
  () => {
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
      const table = findEmissionTable(pages, 26752);
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
      const table = findEmissionTable(pages.map(normalizePageText), 26752);
      expect(table?.pages).toEqual([9, 10]);
      expect(table?.values['2022']).toBe(7281);
      expect(table?.total).toBe(535052);
    });

    it('prefers the table closest to the annual estimate', () => {
      expect(findEmissionTable(pages, 22000)?.pages).toEqual([48, 49, 50]);
      expect(findEmissionTable(pages, 26752)?.pages).toEqual([9, 10]);
    });
  },
);

async function pdfPages(file: string): Promise<string[]> {
  const parser = new PDFParse({ data: new Uint8Array(await readFile(file)) });
  try {
    return (await parser.getText()).pages.map((p) => normalizePageText(p.text));
  } finally {
    await parser.destroy();
  }
}

describe('emission tables of the demo project descriptions (Year | Reductions | Cumulative)', () => {
  // The yearly figures scripts/make-demo-pdfs.ts writes in each table's middle column; the last one is their
  // running total, which was read as the yearly value (900004: 2023 -> 158,480, the whole period).
  const demoTables = DEMO_DOCUMENTS.flatMap((doc) => {
    const rows = doc.pages
      .flat()
      .flatMap((line) => (typeof line === 'object' && 'row' in line && /^\d{4}$/.test(line.row[0] ?? '') ? [line.row] : []));
    if (rows.length === 0) return [];
    const yearly = Object.fromEntries(rows.map((r) => [r[0], parseQuantity(r[1] ?? '')]));
    return [{ file: doc.file, yearly, cumulative: parseQuantity(rows[rows.length - 1]?.[2] ?? '') }];
  });

  it('covers the four demo project descriptions with a table', () => {
    expect(demoTables.map((t) => t.file.match(/9000\d\d/)?.[0])).toEqual(['900001', '900002', '900003', '900004']);
  });

  it.each(demoTables.map((t) => [t.file, t] as const))('%s: the yearly column, not the cumulative one', async (file, t) => {
    const table = findEmissionTable(await pdfPages(path.join('demo', 'documents', file)));
    expect(table?.values).toEqual(t.yearly);
    expect(tableSum(table as NonNullable<typeof table>)).toBe(t.cumulative);
  });
});

describeWithService(
  'emission tables of the corpus PDFs',
  { available: corpusAvailable, why: `corpus not found at ${corpusPath()}` },
  () => {
    it('reads both CDM 547 tables (one value column; five lettered columns, E = C + D - B) as net removals', async () => {
      const tables = findEmissionTables(await pdfPages(corpusPath('pdf', 'CDM0547_guangxi_reforestation_project_design_document.pdf')));
      expect(tables.map((t) => t.pages)).toEqual([[27], [71]]);
      for (const t of tables) {
        expect(t.values['2006']).toBe(-40795);
        expect(t.values['2007']).toBe(54394);
        expect(t.values['2024']).toBe(-95668);
        expect(t.total).toBe(773842);
      }
      expect(tables[1]?.values).toEqual(tables[0]?.values);
    });

    it('finds no table in the corpus PDFs that is a running total of its own rows', async () => {
      for (const file of [
        'VCS5533_project_description.pdf',
        'CDM0547_guangxi_reforestation_project_design_document.pdf',
        'CDM_GFL-HFC23_project_design_document.pdf',
      ]) {
        for (const t of findEmissionTables(await pdfPages(corpusPath('pdf', file)))) {
          const values = Object.values(t.values);
          const increasing = values.every((v, i) => i === 0 || v > (values[i - 1] ?? 0));
          const sumsItself = values.every((v, i) => i === 0 || v >= values.slice(0, i).reduce((a, b) => a + b, 0) - 1);
          expect({ file, pages: t.pages, cumulative: increasing && sumsItself }).toEqual({ file, pages: t.pages, cumulative: false });
        }
      }
    });
  },
);

describe('emission table: synthetic layouts', () => {
  it('takes the yearly column when the header names a cumulative one, wherever it stands', () => {
    const netThenCumulative = [
      'Estimated net GHG removals (tCO2e)',
      'Year Net removals Cumulative',
      '2020 100 100',
      '2021 250 350',
      '2022 300 650',
    ];
    expect(findEmissionTable([netThenCumulative.join('\n')])?.values).toEqual({ '2020': 100, '2021': 250, '2022': 300 });
    const cumulativeFirst = [
      'Estimated emission reductions (tCO2e)',
      'Year Cumulative Annual',
      '2020 100 100',
      '2021 350 250',
      '2022 650 300',
    ];
    expect(findEmissionTable([cumulativeFirst.join('\n')])?.values).toEqual({ '2020': 100, '2021': 250, '2022': 300 });
    // Four columns; the cumulative one sums the net column, not the baseline.
    const wide = [
      'Estimated emission reductions (tCO2e)',
      'Vintage Baseline Net Cumulative (tCO2e)',
      '2020 500 100 100',
      '2021 600 250 350',
      '2022 700 300 650',
      'Total 1800 650 650',
    ];
    const table = findEmissionTable([wide.join('\n')]);
    expect(table?.values).toEqual({ '2020': 100, '2021': 250, '2022': 300 });
    expect(table?.total).toBe(650);
    // Rounded cells still sum to their running total within a unit.
    const rounded = [
      'Estimated annual removals (tCO2e)',
      'Year Annual removals Cumulative',
      '2020 10.4 10.4',
      '2021 20.3 30.7',
      '2022 30.3 61',
    ];
    expect(findEmissionTable([rounded.join('\n')])?.values).toEqual({ '2020': 10.4, '2021': 20.3, '2022': 30.3 });
  });

  it('takes the column before a cumulative column named last when the cells do not add up (a row missing)', () => {
    const page = ['Estimated emission reductions (tCO2e)', 'Year Reductions Cumulative', '2021 200 300', '2022 300 600', '2023 400 1000'];
    expect(findEmissionTable([page.join('\n')])?.values).toEqual({ '2021': 200, '2022': 300, '2023': 400 });
  });

  it('keeps the last column when no column is named cumulative', () => {
    const page = ['Estimated emission reductions (tCO2e)', 'Year Baseline Net', '2020 100 100', '2021 250 350', '2022 300 650'];
    expect(findEmissionTable([page.join('\n')])?.values).toEqual({ '2020': 100, '2021': 350, '2022': 650 });
  });

  it('reads "1 March 2024 to 28 February 2031" in the prose before a table as a date, not a row of 28', () => {
    const page = [
      'Table 3.1: Estimated emission reductions (tCO2e) over the crediting period 1',
      'March 2024 to 28 February 2031. The average is 57,300 tCO2e per year.',
      'Year Reductions',
      '2024 14,200',
      '2025 43,800',
    ];
    expect(findEmissionTable([page.join('\n')])?.values).toEqual({ '2024': 14200, '2025': 43800 });
  });

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
    const page = ['Estimated emission reductions (tCO2e)', 'Year Baseline Net', '2020 5000 4000', '2021 3000 2000', '2022 2500 1999'].join(
      '\n',
    );
    expect(findEmissionTable([page])?.values).toEqual({ '2020': 4000, '2021': 2000, '2022': 1999 });
  });

  it('rejects a table whose values are the next rows\' numbers (a "No. | Year" layout read wrongly)', () => {
    const page = [
      'Estimated net removals (t CO2-e)',
      'No. Year Baseline Net',
      '1 2006 100 90',
      '2 2007 200 180',
      '3 2008 300 270',
      '4 2009 400 360',
    ];
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
    expect(findEmissionTable(['In 2019 the project planted 1,200 trees and in 2020 it planted 2,400 more on 35 ha.'])).toBeNull();
    expect(findEmissionTable(['Area planted per year (ha)\n2019 120\n2020 240\n2021 360'])).toBeNull();
  });
});
