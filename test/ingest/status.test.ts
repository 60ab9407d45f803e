import { describe, expect, it } from 'vitest';
import { queueStatusText, statusJsonLines, statusTable } from '../../ingest/status.js';
import type { DocumentState } from '../../src/ports/document-state-store.js';

describe('queue status text', () => {
  it('shows the depth, jobs per state and each failed job with its reason', () => {
    const counts = { created: 2, retry: 1, active: 3, completed: 10, cancelled: 0, failed: 1 };
    const text = queueStatusText({
      queues: { documents: counts, enrich: { ...counts, created: 0, retry: 0, active: 0, completed: 4, failed: 0 } },
      depth: 3,
      failed: [
        {
          project: 'Verra:4086',
          documentId: 'd1',
          uri: 'https://x/a.pdf',
          attempts: 4,
          reason: 'download: HTTP 503\n(after 4 attempts)',
          failedAt: '2026-11-24T00:00:00.000Z',
        },
      ],
    });
    expect(text.split('\n').slice(0, 5)).toEqual([
      'queue depth 3',
      '  documents: 2 queued, 1 waiting to retry, 3 active, 10 completed, 1 failed',
      '  enrich:    0 queued, 0 waiting to retry, 0 active, 4 completed, 0 failed',
      'failed jobs (newest first):',
      '  Verra:4086 https://x/a.pdf after 4 attempt(s): download: HTTP 503 (after 4 attempts)',
    ]);
  });
});

describe('status output', () => {
  const state = (over: Partial<DocumentState>): DocumentState => ({
    registry: 'Verra',
    projectId: 4086,
    documentId: 'd',
    uri: 'https://registry.verra.org/x.pdf',
    title: 'PD.pdf',
    documentType: 'Project Description',
    uploadDate: null,
    status: 'indexed',
    reason: null,
    contentHash: 'h',
    pages: 66,
    chunks: 240,
    embedderId: 'use-lite-512',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...over,
  });

  it('prints JSON lines that parse back to the states', () => {
    const states = [
      state({}),
      state({ documentId: 'e', status: 'failed', reason: 'download: HTTP 404 Not Found', pages: null, chunks: null }),
    ];
    const lines = statusJsonLines(states).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l) as DocumentState)).toEqual(states);
    expect(statusJsonLines([])).toBe('');
  });

  it('prints a table with one row per document, reasons and totals', () => {
    const out = statusTable(
      [state({}), state({ documentId: 'e', title: 'scan.pdf', status: 'needs_ocr', reason: 'no text layer', chunks: null })],
      120,
    );
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^project\s+status\s+pages\s+chunks\s+document\s+reason$/);
    expect(out).toMatch(/Verra:4086\s+indexed\s+66\s+240\s+PD\.pdf/);
    expect(out).toMatch(/Verra:4086\s+needs_ocr\s+66\s+scan\.pdf\s+no text layer/);
    expect(out).toMatch(/2 document\(s\): 1 indexed, 1 needs_ocr/);
  });

  it('shows 40 characters of a title at 80 columns, the reason on its own line, no line wider than the terminal', () => {
    const title = 'Gold Standard Project Design Document version 3.1 final.pdf';
    const out = statusTable(
      [
        state({ title }),
        state({
          documentId: 'e',
          title: 'monitoring report 2021.pdf',
          status: 'failed',
          reason: 'download: HTTP 404 Not Found',
          pages: null,
          chunks: null,
        }),
      ],
      80,
    );
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^project\s+status\s+pages\s+chunks\s+document$/);
    expect(out).toContain(title.slice(0, 40));
    expect(out).toMatch(/Verra:4086\s+failed\s+monitoring report 2021\.pdf\n\s+reason: download: HTTP 404 Not Found\n/);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
  });
});
