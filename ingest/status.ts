import { projectKey } from '../src/domain/project-ref.js';
import type { DocumentState } from '../src/ports/document-state-store.js';
import type { JobState, QueueStatus } from '../src/ports/ingest-queue.js';

/** `--status`: one row per document state; a table for people, JSON lines for programs. */

export function statusJsonLines(states: DocumentState[]): string {
  return states.map((s) => JSON.stringify(s)).join('\n') + (states.length > 0 ? '\n' : '');
}

function cell(value: string, width: number): string {
  const v = value.replace(/\s+/g, ' ');
  return v.length > width ? `${v.slice(0, width - 1)}\u2026` : v.padEnd(width);
}

/**
 * The `--status` table, fitted to `columns`: the narrow columns as wide as their content, the document title in the
 * rest; the reason beside it when the terminal leaves room for both (70 characters), else on its own line below the
 * document, so an 80-column terminal still shows 40 characters of every title.
 */
export function statusTable(states: DocumentState[], columns = process.stdout.columns ?? 160): string {
  const counts = new Map<string, number>();
  for (const s of states) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  const header = ['project', 'status', 'pages', 'chunks', 'document', 'reason'];
  const rows = states.map((s) => [
    projectKey(s),
    s.status,
    // A document read partly or wholly by OCR says how many of its pages were.
    s.pages === null ? '' : s.ocrPages ? `${s.pages} (${s.ocrPages} OCR)` : String(s.pages),
    s.chunks === null ? '' : String(s.chunks),
    s.title || s.uri,
    (s.reason ?? '').replace(/\s+/g, ' '),
  ]);
  const contentWidth = (i: number): number => Math.max((header[i] ?? '').length, ...rows.map((r) => (r[i] ?? '').length));
  const fixed = [Math.min(24, contentWidth(0)), contentWidth(1), contentWidth(2), contentWidth(3)];
  const rest = Math.max(20, columns - fixed.reduce((a, b) => a + b + 2, 0) - 1);
  const reasonBeside = rest >= 70 || rows.every((r) => r[5] === '');
  const documentWidth = reasonBeside ? Math.min(contentWidth(4), Math.max(30, Math.floor(rest * 0.45))) : rest;
  const widths = [...fixed, documentWidth, Math.max(10, rest - documentWidth - 2)];
  const line = (r: string[], upTo: number): string =>
    r
      .slice(0, upTo)
      .map((v, i) => cell(v, widths[i] ?? 20))
      .join('  ')
      .trimEnd();
  const shownColumns = reasonBeside ? 6 : 5;
  const out = [
    line(header, shownColumns),
    line(
      widths.map((w) => '-'.repeat(w)),
      shownColumns,
    ),
  ];
  const indent = ' '.repeat(fixed.reduce((a, b) => a + b + 2, 0));
  for (const r of rows) {
    out.push(line(r, shownColumns));
    if (!reasonBeside && r[5] !== '') out.push(`${indent}${cell(`reason: ${r[5]}`, Math.max(20, columns - indent.length - 1)).trimEnd()}`);
  }
  const totals = [...counts.entries()].map(([k, v]) => `${v} ${k}`).join(', ');
  out.push('', `${states.length} document(s)${totals ? `: ${totals}` : ''}`);
  return out.join('\n') + '\n';
}

function counts(c: Record<JobState, number>): string {
  return `${c.created} queued, ${c.retry} waiting to retry, ${c.active} active, ${c.completed} completed, ${c.failed} failed`;
}

/** `--status` on the scale-out stack: the job queue before the document table. */
export function queueStatusText(status: QueueStatus): string {
  const out = [
    `queue depth ${status.depth}`,
    `  documents: ${counts(status.queues.documents)}`,
    `  enrich:    ${counts(status.queues.enrich)}`,
  ];
  if (status.failed.length > 0) {
    out.push('failed jobs (newest first):');
    for (const f of status.failed) out.push(`  ${f.project} ${f.uri} after ${f.attempts} attempt(s): ${f.reason.replace(/\s+/g, ' ')}`);
  }
  return `${out.join('\n')}\n\n`;
}
