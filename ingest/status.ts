import type { DocumentState } from '../src/ports/document-state-store.js';

/** `--status`: one row per document state; a table for people, JSON lines for programs. */

export function statusJsonLines(states: DocumentState[]): string {
  return states.map((s) => JSON.stringify(s)).join('\n') + (states.length > 0 ? '\n' : '');
}

function cell(value: string, width: number): string {
  const v = value.replace(/\s+/g, ' ');
  return v.length > width ? `${v.slice(0, width - 1)}\u2026` : v.padEnd(width);
}

export function statusTable(states: DocumentState[], columns = process.stdout.columns ?? 160): string {
  const counts = new Map<string, number>();
  for (const s of states) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
  const header = ['project', 'status', 'pages', 'chunks', 'document', 'reason'];
  const rows = states.map((s) => [
    `${s.registry}:${s.projectId}`,
    s.status,
    s.pages === null ? '' : String(s.pages),
    s.chunks === null ? '' : String(s.chunks),
    s.title || s.uri,
    s.reason ?? '',
  ]);
  const fixed = [16, 9, 6, 7];
  const rest = Math.max(30, columns - fixed.reduce((a, b) => a + b + 2, 0) - 2);
  const widths = [...fixed, Math.floor(rest * 0.45), Math.ceil(rest * 0.55)];
  const line = (r: string[]): string => r.map((v, i) => cell(v, widths[i] ?? 20)).join('  ').trimEnd();
  const out = [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  const totals = [...counts.entries()].map(([k, v]) => `${v} ${k}`).join(', ');
  out.push('', `${states.length} document(s)${totals ? `: ${totals}` : ''}`);
  return out.join('\n') + '\n';
}
