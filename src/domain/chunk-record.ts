/** One chunk of one page of one document, as stored in the index. */
export interface ChunkRecord {
  /** Deterministic id from (registry, projectId, documentId, page, offset): domain/chunking.ts chunkIdFor. */
  id: string;
  registry: string;
  projectId: number;
  documentId: string;
  documentTitle: string;
  documentType: string;
  uri: string;
  /** 1-based physical page. */
  page: number;
  /** Character offset of the chunk in its page's text. */
  offset: number;
  text: string;
  /**
   * Words that situate the chunk beyond its own text (project name, section heading), indexed for search with the
   * chunk but never returned: citations quote `text` only. Adapters add the document title and type themselves.
   */
  context?: string;
  /** The chunk's page was read by OCR: its text is what OCR read, not the PDF's text layer. */
  ocr?: boolean;
}

export interface ScoredChunk extends ChunkRecord {
  /**
   * Higher is better. Vector search: the mean of the chunk's cosine and its best sentence's cosine (the chunk's cosine
   * alone when it has no sentence vectors), in [-1, 1]. Text search: BM25-style relevance (positive).
   */
  score: number;
}
