import type { CleanedRecord } from './cleaned-record.js';

/**
 * The words that situate a document's chunks for search, beyond the chunk text itself (VectorIndex ChunkRecord
 * `context`, indexed for full text and never cited). Questions name projects and documents in ways the passage
 * rarely repeats: "the Purulia tree-planting instance", "the Colombian validation report", "the peat swamp
 * methodology". The passage says "the project area is 29,018 ha". Two sources carry those names:
 * - the project's record: its name, registry and id, location, methodology, type and description;
 * - the document's own title block: the first lines of its first page with text ("VM0004 Methodology for
 *   Conservation Projects that Avoid Planned Land Use Conversion in Peat Swamp Forests").
 * Pure; bounded in length, so one long description cannot outweigh the passage.
 */

/** Longest project part, in characters (a description is cut at a word boundary). */
const MAX_PROJECT_CHARS = 600;
/** Longest title block, in characters. */
const MAX_HEADING_CHARS = 300;

function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/** The project's part of the context, from its cleaned record. */
export function projectSearchContext(cleaned: Pick<CleanedRecord, 'name' | 'registry' | 'resourceIdentifier' | 'location' | 'methodology' | 'type' | 'description'>): string {
  const lines = [
    cleaned.name,
    `${cleaned.registry} project ${cleaned.resourceIdentifier}`,
    cleaned.location,
    cleaned.methodology,
    cleaned.type,
    cleaned.description,
  ]
    .map((s) => (typeof s === 'string' ? s.replace(/\s+/g, ' ').trim() : ''))
    .filter((s) => s !== '');
  // Identical lines (a name repeated as the description) would count twice in BM25.
  return clip([...new Set(lines)].join('\n'), MAX_PROJECT_CHARS);
}

/**
 * The document's title block: the first lines of its first page that has text, up to MAX_HEADING_CHARS. Lines of
 * digits and punctuation only (page numbers, dates) are skipped.
 */
export function documentHeading(pages: readonly string[]): string {
  const first = pages.find((p) => p.trim() !== '');
  if (!first) return '';
  const out: string[] = [];
  let length = 0;
  for (const raw of first.split('\n')) {
    const line = raw.replace(/\s+/g, ' ').trim();
    if (!/\p{L}{2,}/u.test(line)) continue;
    out.push(line);
    length += line.length + 1;
    if (length >= MAX_HEADING_CHARS) break;
  }
  return clip(out.join('\n'), MAX_HEADING_CHARS);
}

/** Project part and title block, as one context string ('' when both are empty). */
export function chunkSearchContext(project: string, heading: string): string {
  return [project, heading].filter((s) => s.trim() !== '').join('\n');
}
