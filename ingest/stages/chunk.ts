import { chunkPages } from '../../src/domain/chunking.js';
import type { Stage } from '../types.js';

/** Stage: page texts to page-aware chunks sized for the embedder. */
export const chunk: Stage = async (item, ctx) => {
  if (!item.pages) throw new Error(`chunk: document ${item.documentId} has no extracted pages`);
  const cut = chunkPages(item.pages, { maxTokens: ctx.chunkMaxTokens });
  if (cut.length === 0) {
    return { ...item, outcome: { kind: 'needs_ocr', reason: `no searchable text on any of ${item.pages.length} page(s)` } };
  }
  const ocrPages = new Set(item.ocrPages ?? []);
  const chunks = cut.map((c) => (ocrPages.has(c.page) ? { ...c, ocr: true } : c));
  return { ...item, chunks };
};

/**
 * Chunk size for an embedder: its input limit minus two special tokens ([CLS]/[SEP]), capped so that a chunk stays
 * a citable passage rather than a page-long blob even for models with long inputs.
 */
export function chunkTokenBudget(maxInputTokens: number, cap = 384): number {
  return Math.max(8, Math.min(cap, Math.floor(maxInputTokens) - 2));
}
