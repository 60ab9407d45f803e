import { chunkPages } from '../../src/domain/chunking.js';
import { continuedTableHeadings } from '../../src/domain/continued-tables.js';
import { withoutTableRows } from '../../src/domain/tables.js';
import type { Stage } from '../types.js';

/** Stage: page texts to page-aware chunks sized for the embedder, each with the headings of a table it continues. */
export const chunk: Stage = async (item, ctx) => {
  if (!item.pages) throw new Error(`chunk: document ${item.documentId} has no extracted pages`);
  const cut = chunkPages(item.pages, { maxTokens: ctx.chunkMaxTokens });
  if (cut.length === 0) {
    return { ...item, outcome: { kind: 'needs_ocr', reason: `no searchable text on any of ${item.pages.length} page(s)` } };
  }
  // A table's rows on the pages after its headings are found by those headings (read from the pages as the PDF
  // gives them: the rows written out with their headings, after each page's text, have theirs already).
  const headings = continuedTableHeadings(item.pages.map(withoutTableRows), cut);
  const ocrPages = new Set(item.ocrPages ?? []);
  const chunks = cut.map((c, i) => ({
    ...c,
    ...(headings[i] ? { context: headings[i] } : {}),
    ...(ocrPages.has(c.page) ? { ocr: true } : {}),
  }));
  return { ...item, chunks };
};

/**
 * Chunk size for an embedder: its input limit minus two special tokens ([CLS]/[SEP]), capped so that a chunk stays
 * a citable passage rather than a page-long blob even for models with long inputs.
 */
export function chunkTokenBudget(maxInputTokens: number, cap = 384): number {
  return Math.max(8, Math.min(cap, Math.floor(maxInputTokens) - 2));
}
