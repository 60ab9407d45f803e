import { PDFParse } from 'pdf-parse';
import { normalizePageText } from '../../src/domain/chunking.js';
import { repetitionProblem } from '../../src/domain/text-plausibility.js';

/**
 * Text per physical page with pdf-parse 2 (pdf.js), on the calling thread. The worker (extract-worker.ts) runs this
 * off the ingestion thread, under a time and a memory limit that only a thread or process boundary can enforce;
 * the page and text caps are checked here, page by page, so a document over them stops as soon as it is over.
 */

/** `skipped`: the text was read but is not plausible prose (text-plausibility.ts); the same bytes are not read again. */
export type ExtractResult = { ok: true; pages: string[] } | { ok: false; kind: 'failed' | 'needs_ocr' | 'skipped'; reason: string };

/** Caps checked while extracting (the time and memory limits are the worker's: extract.ts). */
export interface ExtractCaps {
  /** A PDF with more pages fails before any page is read. */
  maxPages: number;
  /** A PDF whose extracted text grows past this many characters fails at the page that crosses it. */
  maxTextChars: number;
  /** A page with more characters of text than this fails the PDF: no real page holds that much. */
  maxPageChars: number;
}

/** A page needs at least this many letters or digits to count as having text. */
const MIN_TEXT_CHARS_PER_PAGE = 20;

export async function extractPdfPagesHere(bytes: Uint8Array, caps: ExtractCaps): Promise<ExtractResult> {
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
    let chars = 0;
    for (let n = 1; n <= total; n++) {
      // One page per call, so the text cap is checked after each page. No page markers (pageJoiner '').
      const result = await parser.getText({ partial: [n], pageJoiner: '' });
      for (const p of result.pages) {
        if (p.num < 1 || p.num > total) continue;
        const text = normalizePageText(p.text);
        if (text.length > caps.maxPageChars) {
          return {
            ok: false,
            kind: 'failed',
            reason: `page ${p.num} of ${total} has ${text.length} characters of text, more than a page holds (limit ${caps.maxPageChars}, EXTRACT_MAX_PAGE_CHARS)`,
          };
        }
        pages[p.num - 1] = text;
        chars += text.length;
      }
      if (chars > caps.maxTextChars) {
        return {
          ok: false,
          kind: 'failed',
          reason: `PDF text exceeds the limit of ${caps.maxTextChars} characters at page ${n} of ${total} (EXTRACT_MAX_TEXT_CHARS)`,
        };
      }
    }
    const withText = pages.filter((t) => (t.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= MIN_TEXT_CHARS_PER_PAGE).length;
    if (withText === 0) {
      return { ok: false, kind: 'needs_ocr', reason: `no text layer on any of ${total} page(s); OCR needed` };
    }
    const repeated = repetitionProblem(pages);
    if (repeated !== undefined) return { ok: false, kind: 'skipped', reason: `${repeated}: not indexed` };
    return { ok: true, pages };
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
