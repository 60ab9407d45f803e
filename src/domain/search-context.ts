import type { CleanedRecord } from './cleaned-record.js';
import { oneLine } from './text.js';

/**
 * The project's words that situate its chunks for search, beyond the chunk text itself (VectorIndex ChunkRecord
 * `context`, indexed for full text next to the document title and type, never cited). Questions name projects in
 * ways the passage rarely repeats: "the Purulia tree-planting instance", "the Colombian validation report", "CDM
 * project 9199"; the passage says "the project area is 29,018 ha". The project's record carries those names: its
 * name, registry and id, location, methodology, type and description. Pure; bounded in length, so one long
 * description cannot outweigh the passage. Not the document's title block: cover pages repeat words (methodology,
 * version, sectoral scope) that match every question (bench/README.md "Measurements cited by code").
 */

/** Longest context, in characters (a description is cut at a word boundary). */
const MAX_PROJECT_CHARS = 600;

/** The project's part of the context, from its cleaned record. */
export function projectSearchContext(
  cleaned: Pick<CleanedRecord, 'name' | 'registry' | 'resourceIdentifier' | 'location' | 'methodology' | 'type' | 'description'>,
): string {
  const parts = [
    cleaned.name,
    `${cleaned.registry} project ${cleaned.resourceIdentifier}`,
    cleaned.location,
    cleaned.methodology,
    cleaned.type,
    cleaned.description,
  ]
    .map(oneLine)
    .filter((s) => s !== '');
  // Identical parts (a name repeated as the description) would count twice in BM25.
  const text = [...new Set(parts)].join(' ');
  if (text.length <= MAX_PROJECT_CHARS) return text;
  const cut = text.slice(0, MAX_PROJECT_CHARS);
  const space = cut.lastIndexOf(' ');
  return space > MAX_PROJECT_CHARS / 2 ? cut.slice(0, space) : cut;
}
