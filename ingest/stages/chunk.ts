import { chunkPages } from '../../src/domain/chunking.js';
import { splitPageFurniture } from '../../src/domain/page-furniture.js';
import type { Stage } from '../types.js';

/**
 * Stage: page texts to page-aware chunks sized for the embedder. Page furniture (running headers and footers, page
 * numbers, contents leaders: domain/page-furniture.ts) is removed first, so it is never quoted; the stored page
 * texts are the cleaned ones too, so chunk offsets keep pointing into them. The running lines themselves become the
 * chunks' document context, searched but never cited: they name the document ("VM0007, v1.6").
 */
export const chunk: Stage = async (item, ctx) => {
  if (!item.pages) throw new Error(`chunk: document ${item.documentId} has no extracted pages`);
  const { pages, runningLines } = splitPageFurniture(item.pages);
  const chunks = chunkPages(pages, { maxTokens: ctx.chunkMaxTokens });
  if (chunks.length === 0) {
    return { ...item, outcome: { kind: 'needs_ocr', reason: `no searchable text on any of ${pages.length} page(s)` } };
  }
  return { ...item, pages, chunks, ...(runningLines.length > 0 ? { documentContext: runningLines.join('\n') } : {}) };
};

/**
 * Chunk size for an embedder: its input limit minus two special tokens ([CLS]/[SEP]), capped so that a chunk stays
 * a citable passage rather than a page-long blob even for models with long inputs.
 */
export function chunkTokenBudget(maxInputTokens: number, cap = 384): number {
  return Math.max(8, Math.min(cap, Math.floor(maxInputTokens) - 2));
}
