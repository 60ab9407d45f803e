import { projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import type { RecordStore } from '../src/ports/record-store.js';

/**
 * `npm run ingest -- --hide Verra:4086` / `--unhide ...`: sets the operator's `hidden` flag of stored projects (the
 * cleaned record's `hidden`). What it changes is in the README ("Hiding a project"). A project the store does not
 * hold is listed, not created.
 */

export interface HideResult {
  /** Projects whose flag changed. */
  changed: string[];
  /** Projects whose flag already had that value. */
  unchanged: string[];
  /** Projects the store does not hold. */
  notFound: string[];
}

export async function setProjectsHidden(records: RecordStore, refs: ProjectRef[], hidden: boolean): Promise<HideResult> {
  const result: HideResult = { changed: [], unchanged: [], notFound: [] };
  const found = await records.getMany(refs);
  for (const ref of refs) {
    const key = projectKey(ref);
    const stored = found.get(key);
    if (!stored) {
      result.notFound.push(key);
    } else if (stored.hidden === hidden) {
      result.unchanged.push(key);
    } else {
      await records.setHidden(ref, hidden);
      result.changed.push(key);
    }
  }
  return result;
}

/** One line per outcome, for stderr. */
export function formatHideResult(r: HideResult, hidden: boolean): string {
  const verb = hidden ? 'hidden' : 'unhidden';
  const lines = [`${verb}: ${r.changed.length} project(s)${r.changed.length > 0 ? ` (${r.changed.join(', ')})` : ''}`];
  if (r.unchanged.length > 0) lines.push(`  already ${verb}: ${r.unchanged.join(', ')}`);
  if (r.notFound.length > 0) lines.push(`  not in the store (import their records first): ${r.notFound.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
