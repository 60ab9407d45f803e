import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPdfExtractor, DEFAULT_OCR_CAPS, extractPdfPages } from '../../../ingest/stages/extract.js';
import { createTesseractOcr, ocrTextItems, type OcrLine } from '../../../ingest/stages/ocr.js';
import { findTables, renderTableRows, TABLE_ROWS_HEADING, withoutTableRows } from '../../../src/domain/tables.js';
import type { PdfExtractor } from '../../../ingest/types.js';
import { corpusAvailable, corpusPath } from '../../support/corpus.js';
import { imageOnlyCopy, noisePdf, scanPages, wordRecall } from '../../support/scanned-pdf.js';
import { describeWithService } from '../../support/services.js';

/**
 * OCR through the real extraction processes and tesseract.js, on image-only copies of a real corpus PDF made here
 * (pages rendered at 150 dpi, turned by 1 degree, rebuilt as JPEG pages without a text layer). A few pages each, so
 * the file stays within seconds of OCR per page.
 */

const FILE = 'VCS5533_project_description.pdf';
/** Pages 4 and 10 carry the answer of qa-dev dev-002. */
const PAGES = [4, 10];

describeWithService('OCR of pages without a text layer', { available: corpusAvailable, why: `corpus not found at ${corpusPath()}` }, () => {
  let original: Uint8Array;
  let layer: string[];
  let noOcr: PdfExtractor;

  beforeAll(async () => {
    original = new Uint8Array(readFileSync(corpusPath('pdf', FILE)));
    const r = await extractPdfPages(original);
    if (!r.ok) throw new Error(r.reason);
    layer = r.pages;
    noOcr = createPdfExtractor({ ocr: null });
  }, 300_000);

  afterAll(async () => {
    await noOcr?.close();
  });

  it('reads every page of an image-only copy, its words matching the text layer at 90% or more', async () => {
    const copy = await imageOnlyCopy(original, { pages: PAGES, dpi: 150, skewDegrees: 1 });
    const r = await extractPdfPages(copy);
    if (!r.ok) throw new Error(r.reason);
    expect(r.ocrPages).toEqual([1, 2]);
    PAGES.forEach((n, i) => {
      const recall = wordRecall(withoutTableRows(layer[n - 1] ?? ''), withoutTableRows(r.pages[i] ?? ''));
      expect(recall, `page ${n}: ${recall.toFixed(3)}`).toBeGreaterThanOrEqual(0.9);
    });
    // The figure dev-002 asks for, as OCR read it.
    expect(r.pages[0]).toMatch(/26,?752/);
  }, 300_000);

  it('reads only the scanned pages of a mixed PDF and keeps the text layer of the others', async () => {
    const mixed = await imageOnlyCopy(original, { pages: [12, 4], dpi: 150, keepText: [2] });
    const r = await extractPdfPages(mixed);
    if (!r.ok) throw new Error(r.reason);
    expect(r.ocrPages).toEqual([1]);
    expect(r.pages[1]).toBe(layer[3]);
    expect(wordRecall(layer[11] ?? '', r.pages[0] ?? '')).toBeGreaterThanOrEqual(0.9);
  }, 300_000);

  it("writes out the rows of a scanned table with their headings, from the words' positions OCR gives", async () => {
    // Page 48 holds the estimate table (eight columns; unit-tested on the text layer in test/domain/tables.test.ts).
    const copy = await imageOnlyCopy(original, { pages: [48], dpi: 150, skewDegrees: 0.8 });
    const r = await extractPdfPages(copy);
    if (!r.ok) throw new Error(r.reason);
    expect(r.ocrPages).toEqual([1]);
    const rows = (r.pages[0] ?? '').split(TABLE_ROWS_HEADING)[1]?.trim().split('\n') ?? [];
    const row2023 = rows.find((row) => row.includes('2023'));
    // OCR's own misreadings stay ("tCOze" for "tCO2e"): the row says which column each figure is in.
    expect(row2023, rows.join('\n')).toMatch(/^Vintage period .*2023: .*removal VCUs \(tCO.e\) 16,?881/);
    expect(row2023).toMatch(/buffer pool allocation \(tCO.e\) 3,?706/);
  }, 300_000);

  it('gives a page of noise no text: a PDF of noise alone still needs OCR', async () => {
    const noise = await extractPdfPages(await noisePdf(7));
    expect(noise).toEqual({
      ok: false,
      kind: 'needs_ocr',
      reason: 'no text layer on any of 1 page(s), and OCR read no confident text on the 1 page(s) it tried',
    });
  }, 300_000);

  it('drops the lines of a photograph that tesseract reads with low confidence, at the default threshold', async () => {
    const engine = createTesseractOcr({ minConfidence: DEFAULT_OCR_CAPS.minConfidence });
    try {
      const [cover] = await scanPages(new Uint8Array(readFileSync(corpusPath('pdf', 'REGEN_fonthill_farms_project_plan.pdf'))), [1], 150);
      if (!cover) throw new Error('page did not render');
      const read = await engine.recognize(cover, 60_000);
      // The cover's photograph reads as lines of symbols; its printed title and publisher read cleanly.
      expect(read.keptLines).toBeGreaterThan(0);
      expect(read.lines - read.keptLines).toBeGreaterThanOrEqual(5);
      expect(read.text).toContain('Regen Registry');
    } finally {
      await engine.close();
    }
  }, 300_000);

  it('gives a page up at its CPU time, and reads the next page with a new tesseract worker', async () => {
    const engine = createTesseractOcr({ minConfidence: DEFAULT_OCR_CAPS.minConfidence });
    try {
      const [page] = await scanPages(original, [4], 150);
      if (!page) throw new Error('page did not render');
      expect(await engine.recognize(page, 1)).toMatchObject({ text: '', skipped: 'cpu-limit' });
      const read = await engine.recognize(page, 600_000);
      expect(wordRecall(withoutTableRows(layer[3] ?? ''), read.text)).toBeGreaterThanOrEqual(0.9);
    } finally {
      await engine.close();
    }
  }, 300_000);

  it('leaves an image-only PDF as needs_ocr when OCR is off', async () => {
    const copy = await imageOnlyCopy(original, { pages: [4], dpi: 100 });
    expect(await noOcr.extract(copy)).toEqual({
      ok: false,
      kind: 'needs_ocr',
      reason: 'no text layer on any of 1 page(s); OCR needed (OCR is off: OCR_MAX_PAGES=0)',
    });
  }, 300_000);

  it('stops reading by OCR at the page budget of a document', async () => {
    const budget = createPdfExtractor({ ocr: { ...DEFAULT_OCR_CAPS, maxPages: 1 } });
    try {
      const copy = await imageOnlyCopy(original, { pages: [4, 10], dpi: 100 });
      const r = await budget.extract(copy);
      if (!r.ok) throw new Error(r.reason);
      expect(r.ocrPages).toEqual([1]);
      expect(r.pages[1]).toBe('');
    } finally {
      await budget.close();
    }
  }, 300_000);
});

describe('ocrTextItems', () => {
  /** A line of words at the given left edges, on a baseline that drops `slope` pixels a pixel (a sheet fed askew). */
  function line(y: number, slope: number, words: [string, number][]): OcrLine {
    const right = Math.max(...words.map(([, x]) => x)) + 60;
    const left = words[0]?.[1] ?? 0;
    return {
      baseline: { x0: left, y0: y + slope * left, x1: right, y1: y + slope * right },
      bbox: { x0: left, y0: y + slope * left - 20, x1: right, y1: y + slope * right + 5 },
      words: words.map(([text, x]) => ({ text, bbox: { x0: x, y0: y + slope * x - 20, x1: x + 50, y1: y + slope * x + 5 } })),
    };
  }

  it("puts a row's cells read as separate lines back on one line and its columns under each other, the skew taken out", () => {
    const slope = Math.tan((1.2 * Math.PI) / 180);
    // Tesseract often reads each column of a table as a block of its own: every cell is a line of one word.
    const cells = (y: number, texts: string[]): OcrLine[] => texts.map((t, i) => line(y, slope, [[t, 100 + i * 300]]));
    const lines = [
      line(60, slope, [
        ['Table', 100],
        ['5:', 160],
        ['Areas', 220],
      ]),
      ...cells(120, ['Year', 'Planted', 'Cut']),
      ...cells(160, ['2021', '1,200', '30']),
      ...cells(200, ['2022', '1,450', '25']),
    ];
    const [table] = findTables(ocrTextItems(lines));
    expect(table?.headings).toEqual(['Year', 'Planted', 'Cut']);
    expect(renderTableRows(table as NonNullable<typeof table>)).toEqual([
      'Table 5 (Areas), Year 2021: Planted 1,200, Cut 30.',
      'Table 5 (Areas), Year 2022: Planted 1,450, Cut 25.',
    ]);
  });

  it('gives no items for no lines, and leaves an unturned page as it is', () => {
    expect(ocrTextItems([])).toEqual([]);
    const items = ocrTextItems([
      line(100, 0, [
        ['Year', 100],
        ['2021', 400],
      ]),
    ]);
    expect(items.map((i) => [i.str, i.x, i.y, i.width, i.height])).toEqual([
      ['Year', 100, 100, 50, 25],
      ['2021', 400, 100, 50, 25],
    ]);
  });
});
