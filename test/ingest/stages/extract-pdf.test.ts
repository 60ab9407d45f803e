import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { extractPdfPagesHere, ocrNotTried, usableText, type ExtractCaps } from '../../../ingest/stages/extract-pdf.js';
import { corpusAvailable, corpusPath } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';
import { manyPagesPdf, repeatedLinePdf } from '../support/hostile-pdf.js';
import { makePdf } from '../support/make-pdf.js';

/** pdf.js on the calling thread, as the extraction worker runs it; the worker's time and memory limits are extract.ts's. */
const CAPS: ExtractCaps = { maxPages: 50, maxTextChars: 1_000_000, maxPageChars: 100_000, ocr: null };
const LINE = 'The project distributes efficient cookstoves to rural households in Malawi.';

describe('extractPdfPagesHere', () => {
  it('gives the text of each page, and leaves the caller its bytes', async () => {
    const bytes = makePdf([LINE, 'The crediting period is ten years, from 2018 to 2028.']);
    const r = await extractPdfPagesHere(bytes, CAPS);
    expect(r).toEqual({ ok: true, pages: [LINE, 'The crediting period is ten years, from 2018 to 2028.'], ocrPages: [] });
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect((await extractPdfPagesHere(bytes, CAPS)).ok).toBe(true);
  });

  it('fails a PDF over the page cap before reading a page, and one whose text passes the text or page cap', async () => {
    expect(await extractPdfPagesHere(manyPagesPdf(60), CAPS)).toEqual({
      ok: false,
      kind: 'failed',
      reason: 'PDF has 60 pages, more than the limit of 50 (EXTRACT_MAX_PAGES)',
    });
    const three = makePdf([LINE, LINE, LINE]);
    const text = await extractPdfPagesHere(three, { ...CAPS, maxTextChars: LINE.length + 10 });
    expect(text).toMatchObject({ ok: false, kind: 'failed', reason: expect.stringMatching(/at page 2 of 3 \(EXTRACT_MAX_TEXT_CHARS\)$/) });
    const page = await extractPdfPagesHere(three, { ...CAPS, maxPageChars: 20 });
    expect(page).toMatchObject({ ok: false, reason: expect.stringMatching(/^page 1 of 3 has \d+ characters of text/) });
  });

  it('leaves a PDF without a text layer for OCR, saying OCR is off, and skips a document of one repeated line', async () => {
    expect(await extractPdfPagesHere(makePdf(['', ''], { textLayer: false }), CAPS)).toEqual({
      ok: false,
      kind: 'needs_ocr',
      reason: 'no text layer on any of 2 page(s); OCR needed (OCR is off: OCR_MAX_PAGES=0)',
    });
    expect(await extractPdfPagesHere(repeatedLinePdf(60_000), CAPS)).toMatchObject({ ok: false, kind: 'skipped' });
  });

  it("fails bytes that are not a PDF with the parser's reason", async () => {
    const r = await extractPdfPagesHere(new TextEncoder().encode('not a pdf at all'), CAPS);
    expect(r).toMatchObject({ ok: false, kind: 'failed', reason: expect.stringMatching(/^PDF could not be parsed/) });
  });
});

describeWithService('extractPdfPagesHere on a corpus PDF', { available: corpusAvailable, why: 'corpus not found' }, () => {
  it('reads the 11 pages of the GFL HFC-23 registration request form', async () => {
    const bytes = readFileSync(corpusPath('pdf', 'CDM_GFL-HFC23_registration_request_form.pdf'));
    const r = await extractPdfPagesHere(bytes, CAPS);
    if (!r.ok) throw new Error(r.reason);
    expect(r.pages).toHaveLength(11);
    expect(r.pages.every(usableText)).toBe(true);
  }, 60_000);
});

it('counts a page as text only when it has letters or digits enough and is not mostly unmappable glyphs', () => {
  expect(usableText('The project is expected to remove 26,752 tCO2e a year.')).toBe(true);
  expect(usableText('12')).toBe(false);
  // A font without a Unicode map: pdf.js gives private-use code points or replacement characters.
  expect(usableText('\uE001\uE002\uE003 \uE004\uE005 abc def ghi jkl mno pqr stu vwx'.replace(/[a-z]/g, '\uFFFD'))).toBe(false);
  expect(usableText(`${'\uFFFD'.repeat(30)} Project description version 4.2 of 2023`)).toBe(false);
});

it('re-extracts a document left for OCR only when OCR has not tried it yet', () => {
  expect(ocrNotTried('no text layer on any of 3 page(s); OCR needed')).toBe(true);
  expect(ocrNotTried('no text layer on any of 3 page(s); OCR needed (OCR is off: OCR_MAX_PAGES=0)')).toBe(true);
  expect(ocrNotTried('no text layer on any of 1 page(s), and OCR read no confident text on the 1 page(s) it tried')).toBe(false);
  expect(ocrNotTried('no searchable text on any of 2 page(s)')).toBe(false);
  expect(ocrNotTried(null)).toBe(false);
});
