import type { CleanedRecord } from './cleaned-record.js';
import { oneLine } from './text.js';

/**
 * The project's words that situate its chunks for search, beyond the chunk text itself (VectorIndex ChunkRecord
 * `context`, indexed for full text next to the document title and type, never cited). Questions name projects in
 * ways the passage rarely repeats: "the Purulia tree-planting instance", "the Colombian validation report", "CDM
 * project 9199"; the passage says "the project area is 29,018 ha". The project's record carries those names: its
 * name, registry and id, location, methodology, type and description. Pure; bounded in length, so one long
 * description cannot outweigh the passage.
 *
 * It raised full-text recall on the question set (bench/README.md "Measurements cited by code"). The document's title block (first lines
 * of page 1) was tried as well and lowered it: cover pages repeat generic words (methodology, version, sectoral
 * scope) that match every question.
 */

/** Longest project part, in characters (a description is cut at a word boundary). */
const MAX_PROJECT_CHARS = 600;

function clip(text: string, max: number): string {
  const t = oneLine(text);
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/** The project's part of the context, from its cleaned record. */
export function projectSearchContext(
  cleaned: Pick<CleanedRecord, 'name' | 'registry' | 'resourceIdentifier' | 'location' | 'methodology' | 'type' | 'description'>,
): string {
  const lines = [
    cleaned.name,
    `${cleaned.registry} project ${cleaned.resourceIdentifier}`,
    cleaned.location,
    cleaned.methodology,
    cleaned.type,
    cleaned.description,
  ]
    .map((s) => (typeof s === 'string' ? oneLine(s) : ''))
    .filter((s) => s !== '');
  // Identical lines (a name repeated as the description) would count twice in BM25.
  return clip([...new Set(lines)].join('\n'), MAX_PROJECT_CHARS);
}
