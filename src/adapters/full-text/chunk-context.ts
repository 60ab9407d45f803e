/**
 * The words that situate a chunk for full-text search, shared by both vector indexes so that they index the same
 * thing. A passage alone rarely names its project or document ("the project area is 29,018 ha"), while questions
 * do ("in the Colombian validation report"): indexing the document title and type with every chunk lets such
 * words select the right document without being part of the cited text.
 */
export function indexedContext(documentTitle: string, documentType: string, context: string | undefined): string {
  // Titles are often file names: drop the extension and split on underscores (FTS5's unicode61 splits on most
  // punctuation anyway; Qdrant's sparse terms split on whitespace only).
  const title = documentTitle.replace(/\.(pdf|docx?|xlsx?|zip|txt|html?)$/i, '').replace(/_+/g, ' ');
  // A generic type says nothing about the document and would only add a term shared by unrelated documents.
  const type = /^(other|unknown)$/i.test(documentType.trim()) ? '' : documentType;
  return [title, type, context ?? ''].filter((s) => s.trim() !== '').join('\n');
}
