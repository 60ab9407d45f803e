import { PDFParse } from 'pdf-parse';
import { normalizePageText } from '../../src/domain/chunking.js';
import { continueTable, findTables, renderTableRows, withTableRows, type PageTable, type TextItem } from '../../src/domain/tables.js';
import { repetitionProblem } from '../../src/domain/text-plausibility.js';
import type { OcrEngine } from './ocr.js';

/**
 * Text per physical page with pdf-parse 2 (pdf.js), on the calling thread. The worker (extract-worker.ts) runs this
 * off the ingestion thread, under a time and a memory limit that only a thread or process boundary can enforce;
 * the page and text caps are checked here, page by page, so a document over them stops as soon as it is over.
 *
 * A page without a usable text layer (no text, or text that is mostly not text: see usableText) is rendered with
 * pdf.js and read by OCR when an OCR engine is given and the document's OCR page budget is not spent; its text then
 * replaces the layer's, and its number is listed in `ocrPages`.
 *
 * A page's tables, found from the positions of its text items or of the words OCR read (domain/tables.ts), have
 * their rows written out with their column headings and caption after the page's text (withTableRows), so a quoted
 * row says what its figures are.
 */

/** The loaded pdf.js document pdf-parse holds (its `load` is not in its typings); only what the tables need. */
interface PdfJsDocument {
  getPage(n: number): Promise<{
    getViewport(o: { scale: number }): { convertToViewportPoint(x: number, y: number): number[] };
    getTextContent(): Promise<{ items: ({ str: string; transform: number[]; width: number; height: number } | { type: string })[] }>;
    cleanup(): void;
  }>;
}

/** The text items of page `n` with their positions, in viewport units. */
export async function pageItems(parser: PDFParse, n: number): Promise<TextItem[]> {
  const doc = await (parser as unknown as { load(): Promise<PdfJsDocument> }).load();
  const page = await doc.getPage(n);
  const viewport = page.getViewport({ scale: 1 });
  const items: TextItem[] = [];
  for (const item of (await page.getTextContent()).items) {
    if (!('str' in item)) continue;
    const [x = 0, y = 0] = viewport.convertToViewportPoint(item.transform[4] ?? 0, item.transform[5] ?? 0);
    items.push({ str: item.str, x, y, width: item.width, height: item.height });
  }
  page.cleanup();
  return items;
}

export type ExtractResult =
  | {
      ok: true;
      pages: string[];
      /** 1-based numbers of the pages whose text was read by OCR, ascending. */
      ocrPages: number[];
    }
  /** `skipped`: the text was read but is not plausible prose (text-plausibility.ts); the same bytes are not read again. */
  | { ok: false; kind: 'failed' | 'needs_ocr' | 'skipped'; reason: string };

/** OCR limits of one document (OCR_* settings). */
export interface OcrCaps {
  /** Pages of one document given to OCR at most; the pages after that stay without text. */
  maxPages: number;
  /** Resolution a page is rendered at for OCR, in dots per inch. */
  dpi: number;
  /** A line read with a lower mean word confidence (0-100) is dropped (ocr.ts). */
  minConfidence: number;
  /** CPU time for reading one page; a page that takes more is left without text. */
  pageCpuMs: number;
}

/** Caps checked while extracting (the time and memory limits are the worker's: extract.ts). */
export interface ExtractCaps {
  /** A PDF with more pages fails before any page is read. */
  maxPages: number;
  /** A PDF whose extracted text grows past this many characters fails at the page that crosses it. */
  maxTextChars: number;
  /** A page with more characters of text than this fails the PDF: no real page holds that much. */
  maxPageChars: number;
  /** OCR of pages without a usable text layer; null: none (such pages stay empty). */
  ocr: OcrCaps | null;
}

export interface OcrHooks {
  engine: OcrEngine;
  /** Called before a page is rendered and read, so the caller can give the document that page's time. */
  onPage?: (page: number) => void;
}

/** Ends the `needs_ocr` reason of a document that OCR has not read yet (no OCR then, or OCR off). */
const OCR_NOT_TRIED = 'OCR needed';

/** True for a `needs_ocr` reason of a document that OCR has not tried: a later run with OCR on should read it. */
export function ocrNotTried(reason: string | null): boolean {
  return reason?.includes(`; ${OCR_NOT_TRIED}`) ?? false;
}

/** A page needs at least this many letters or digits to count as having text. */
const MIN_TEXT_CHARS_PER_PAGE = 20;
/**
 * Above this share of a page's non-blank characters being replacement characters, private-use glyphs or control
 * characters, the text layer is a font without a usable Unicode map, not text: the page is read by OCR.
 */
const MAX_GARBAGE_SHARE = 0.1;

const alnumCount = (t: string): number => t.match(/[\p{L}\p{N}]/gu)?.length ?? 0;

/** True when a page's text is enough to search: some letters or digits, and not mostly unmappable glyphs. */
export function usableText(text: string): boolean {
  if (alnumCount(text) < MIN_TEXT_CHARS_PER_PAGE) return false;
  const nonBlank = text.replace(/\s/g, '').length;
  const garbage = text.match(/[\uFFFD\p{Co}\p{Cc}]/gu)?.filter((c) => c !== '\n' && c !== '\t').length ?? 0;
  return garbage <= MAX_GARBAGE_SHARE * nonBlank;
}

export async function extractPdfPagesHere(bytes: Uint8Array, caps: ExtractCaps, ocr?: OcrHooks): Promise<ExtractResult> {
  // pdf.js transfers (detaches) the buffer it is given; hand it a copy so the caller's bytes stay usable.
  const parser = new PDFParse({ data: new Uint8Array(bytes), verbosity: 0 });
  try {
    // `partial: [0]` names no page: the document is loaded and its page count read, no page is parsed yet.
    const total = (await parser.getText({ partial: [0], pageJoiner: '' })).total;
    if (total <= 0) return { ok: false, kind: 'failed', reason: 'PDF has no pages' };
    if (total > caps.maxPages) {
      return { ok: false, kind: 'failed', reason: `PDF has ${total} pages, more than the limit of ${caps.maxPages} (EXTRACT_MAX_PAGES)` };
    }
    const pages = new Array<string>(total).fill('');
    const ocrPages: number[] = [];
    let ocrTried = 0;
    let chars = 0;
    const tableRows = new Array<string[]>(total).fill([]);
    // The last table of the page before, whose headings a table continued at the top of the next page takes.
    let lastTable: PageTable | null = null;
    for (let n = 1; n <= total; n++) {
      // One page per call, so the text cap is checked after each page. No page markers (pageJoiner '').
      const result = await parser.getText({ partial: [n], pageJoiner: '' });
      let text = normalizePageText(result.pages.find((p) => p.num === n)?.text ?? '');
      // The positions of the words OCR read, when it read the page: its tables are found from them.
      let ocrItems: TextItem[] | null = null;
      if (!usableText(text) && ocr && caps.ocr && ocrTried < caps.ocr.maxPages) {
        ocrTried++;
        ocr.onPage?.(n);
        const shot = await parser.getScreenshot({ partial: [n], scale: caps.ocr.dpi / 72, imageBuffer: true, imageDataUrl: false });
        const image = shot.pages.find((p) => p.pageNumber === n)?.data;
        let read = '';
        let items: TextItem[] = [];
        try {
          const page = image ? await ocr.engine.recognize(image, caps.ocr.pageCpuMs) : null;
          read = normalizePageText(page?.text ?? '');
          items = page?.items ?? [];
        } catch (err) {
          // Named apart from a parse failure: the PDF is fine, the OCR engine is not (e.g. its model is missing).
          return {
            ok: false,
            kind: 'failed',
            reason: `OCR failed at page ${n} of ${total} (${err instanceof Error ? err.message : String(err)})`,
          };
        }
        if (usableText(read)) {
          text = read;
          ocrPages.push(n);
          ocrItems = items;
        } else if (alnumCount(text) >= MIN_TEXT_CHARS_PER_PAGE) {
          // A garbage layer that OCR could not replace is not kept either.
          text = '';
        }
      }
      if (text.length > caps.maxPageChars) {
        return {
          ok: false,
          kind: 'failed',
          reason: `page ${n} of ${total} has ${text.length} characters of text, more than a page holds (limit ${caps.maxPageChars}, EXTRACT_MAX_PAGE_CHARS)`,
        };
      }
      pages[n - 1] = text;
      chars += text.length;
      if (text !== '') {
        const tables = findTables(ocrItems ?? (await pageItems(parser, n))).map((t, i) => (i === 0 ? continueTable(t, lastTable) : t));
        tableRows[n - 1] = tables.flatMap(renderTableRows);
        lastTable = tables[tables.length - 1] ?? null;
      } else {
        lastTable = null;
      }
      if (chars > caps.maxTextChars) {
        return {
          ok: false,
          kind: 'failed',
          reason: `PDF text exceeds the limit of ${caps.maxTextChars} characters at page ${n} of ${total} (EXTRACT_MAX_TEXT_CHARS)`,
        };
      }
    }
    if (!pages.some(usableText)) {
      const reason =
        ocrTried === 0
          ? `no text layer on any of ${total} page(s); ${OCR_NOT_TRIED}${caps.ocr ? '' : ' (OCR is off: OCR_MAX_PAGES=0)'}`
          : `no text layer on any of ${total} page(s), and OCR read no confident text on the ${ocrTried} page(s) it tried`;
      return { ok: false, kind: 'needs_ocr', reason };
    }
    const repeated = repetitionProblem(pages);
    if (repeated !== undefined) return { ok: false, kind: 'skipped', reason: `${repeated}: not indexed` };
    // Rows are added once the page texts passed their checks, which judge the text as the PDF gives it.
    return { ok: true, pages: pages.map((p, i) => withTableRows(p, tableRows[i] ?? [])), ocrPages };
  } catch (err) {
    const e = err as { name?: unknown; message?: unknown };
    const name = typeof e?.name === 'string' ? e.name : 'Error';
    const message = typeof e?.message === 'string' ? e.message : String(err);
    if (name === 'PasswordException') return { ok: false, kind: 'failed', reason: 'PDF is encrypted with a password' };
    return { ok: false, kind: 'failed', reason: `PDF could not be parsed (${name}: ${message})` };
  } finally {
    await parser.destroy().catch(() => undefined);
  }
}
