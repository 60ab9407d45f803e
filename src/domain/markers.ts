/**
 * Citation markers in answers: `[n]`, and grouped forms `[1, 2]` or `[1][3]`. An answer may only cite passages that
 * exist (CONTRACT 2: every marker refers to a citation in the list), so markers are validated after generation.
 */

/** `[1]`, `[1,2]`, `[1, 2, 3]`; not `[a]` nor `[1-3]` (ranges are rewritten first, see expandRanges). */
const MARKER_GROUP = /\[(\s*\d{1,4}\s*(?:,\s*\d{1,4}\s*)*)\]/g;
const RANGE_GROUP = /\[\s*(\d{1,4})\s*[-\u2013]\s*(\d{1,4})\s*\]/g;

/** Rewrites `[2-4]` as `[2, 3, 4]` so range citations are validated like the others (bounded to 50 numbers). */
function expandRanges(text: string): string {
  return text.replace(RANGE_GROUP, (whole, a: string, b: string) => {
    const [from, to] = [Number(a), Number(b)];
    return to < from || to - from > 50 ? whole : `[${Array.from({ length: to - from + 1 }, (_, i) => from + i).join(', ')}]`;
  });
}

/** Marker numbers in order of first appearance. */
export function extractMarkers(text: string): number[] {
  const seen = new Set<number>();
  for (const m of expandRanges(text).matchAll(MARKER_GROUP)) {
    for (const part of (m[1] ?? '').split(',')) seen.add(Number(part.trim()));
  }
  return [...seen];
}

export interface MarkerValidation {
  text: string;
  /** Marker numbers that referred to no citation and were removed. */
  removed: number[];
}

/**
 * Removes markers that refer to no citation id; a group keeps its valid members (`[1, 9]` -> `[1]` when 9 is unknown)
 * and is dropped when none remain. Whitespace left before punctuation by a removal is tidied.
 */
export function validateMarkers(text: string, validIds: Iterable<number>): MarkerValidation {
  const valid = new Set(validIds);
  const removed = new Set<number>();
  const out = expandRanges(text).replace(MARKER_GROUP, (_whole, inner: string) => {
    const ids = inner.split(',').map((s) => Number(s.trim()));
    const ok = ids.filter((id) => valid.has(id));
    for (const id of ids) if (!valid.has(id)) removed.add(id);
    return ok.length === 0 ? '' : ok.map((id) => `[${id}]`).join('');
  });
  const tidied = out
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/[ \t]+$/gm, '')
    .trim();
  return { text: tidied, removed: [...removed].sort((a, b) => a - b) };
}
