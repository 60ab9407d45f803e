import { PDFParse } from 'pdf-parse';
import { normalizePageText } from '../../src/domain/chunking.js';
import type { Stage } from '../types.js';

/**
 * Text per physical page with pdf-parse 2 (pdf.js). A PDF that parses but carries no text layer is `needs_ocr`;
 * one that does not parse (truncated, encrypted, corrupt) fails with pdf.js's reason.
 */

export type ExtractResult =
  | { ok: true; pages: string[] }
  | { ok: false; kind: 'failed' | 'needs_ocr'; reason: string };

/** A page needs at least this many letters or digits to count as having text. */
const MIN_TEXT_CHARS_PER_PAGE = 20;

export async function extractPdfPages(bytes: Uint8Array): Promise<ExtractResult> {
  // pdf.js transfers (detaches) the buffer it is given; hand it a copy so the caller's bytes stay usable.
  const parser = new PDFParse({ data: new Uint8Array(bytes), verbosity: 0 });
  try {
    // No page markers in the text (pageJoiner ''): pages come back separately anyway.
    const result = await parser.getText({ pageJoiner: '' });
    if (result.total <= 0) return { ok: false, kind: 'failed', reason: 'PDF has no pages' };
    const pages = new Array<string>(result.total).fill('');
    for (const p of result.pages) {
      if (p.num >= 1 && p.num <= result.total) pages[p.num - 1] = normalizePageText(p.text);
    }
    const withText = pages.filter((t) => (t.match(/[\p{L}\p{N}]/gu)?.length ?? 0) >= MIN_TEXT_CHARS_PER_PAGE).length;
    if (withText === 0) {
      return { ok: false, kind: 'needs_ocr', reason: `no text layer on any of ${result.total} page(s); OCR needed` };
    }
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

/** Stage: downloaded bytes to page texts. */
export const extract: Stage = async (item) => {
  if (!item.content) throw new Error(`extract: document ${item.documentId} has no downloaded content`);
  const r = await extractPdfPages(item.content.bytes);
  if (!r.ok) {
    return { ...item, outcome: r.kind === 'needs_ocr' ? { kind: 'needs_ocr', reason: r.reason } : { kind: 'failed', reason: `extract: ${r.reason}` } };
  }
  return { ...item, pages: r.pages };
};
