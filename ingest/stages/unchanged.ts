import type { Stage } from '../types.js';
import { ocrNotTried } from './extract-pdf.js';

/**
 * Ends a document whose downloaded bytes, uploadDate, title and type match its last completed run, with the same
 * embedder: nothing is re-extracted or re-embedded. A `pending` state never matches (its hash is null), so a
 * document interrupted mid-write is always redone. Title and type take part because every chunk carries them.
 */
export const skipUnchanged: Stage = async (item, ctx) => {
  const prev = item.previous;
  if (ctx.force || !prev || !item.content) return item;
  const same =
    prev.contentHash === item.content.contentHash &&
    prev.uploadDate === item.uploadDate &&
    prev.title === item.title &&
    prev.documentType === item.documentType &&
    prev.uri === item.uri;
  if (!same) return item;
  if (prev.status === 'indexed' && prev.embedderId === ctx.deps.embedder.id) return { ...item, outcome: { kind: 'unchanged' } };
  // The same bytes gave no text or were not a PDF last time; they will again. A document left for OCR before OCR
  // read it (a run without OCR, or with OCR_MAX_PAGES=0) is extracted again: this run may read it.
  if ((prev.status === 'needs_ocr' && !ocrNotTried(prev.reason)) || prev.status === 'skipped') {
    return { ...item, outcome: { kind: 'unchanged' } };
  }
  return item;
};
