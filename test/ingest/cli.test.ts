import { describe, expect, it } from 'vitest';
import { parseCliArgs, parseProjectList, UsageError } from '../../ingest/cli.js';
import { queueStatusText, statusJsonLines, statusTable } from '../../ingest/status.js';
import type { DocumentState } from '../../src/ports/document-state-store.js';

describe('parseCliArgs', () => {
  it('reads the documented flags', () => {
    expect(
      parseCliArgs(['--records', 'recs/', '--registry', 'vcs', '--replace-base', 'http://127.0.0.1:8080', '--no-documents']),
    ).toMatchObject({
      records: 'recs/',
      registry: 'vcs',
      replaceBase: 'http://127.0.0.1:8080',
      documents: false,
      all: false,
    });
    expect(parseCliArgs(['--all', '--reindex', '--no-progress'])).toMatchObject({ all: true, reindex: true, progress: false });
    expect(parseCliArgs(['--projects', 'Verra:4086, vcs:5533'])).toMatchObject({
      projects: [
        { registry: 'Verra', projectId: 4086 },
        { registry: 'Verra', projectId: 5533 },
      ],
    });
    expect(parseCliArgs(['--status', '--json'])).toMatchObject({ status: true, json: true });
    expect(parseCliArgs(['--registry', 'Verra', '--ids', '4086,5533'])).toMatchObject({
      registry: 'Verra',
      ids: '4086,5533',
      documents: true,
    });
    expect(parseCliArgs(['--export', 'gold-standard', 'projects.csv'])).toMatchObject({
      exportFile: { registry: 'gold-standard', file: 'projects.csv' },
    });
    expect(parseCliArgs(['--transactions', 'tx.csv'])).toMatchObject({ transactions: 'tx.csv' });
    expect(parseCliArgs(['--enrich', '--projects', 'Verra:4086'])).toMatchObject({
      enrich: true,
      projects: [{ registry: 'Verra', projectId: 4086 }],
    });
    expect(parseCliArgs(['--hide', 'Verra:4086,vcs:5533'])).toMatchObject({
      hide: {
        projects: [
          { registry: 'Verra', projectId: 4086 },
          { registry: 'Verra', projectId: 5533 },
        ],
        hidden: true,
      },
    });
    expect(parseCliArgs(['--unhide', 'Verra:4086'])).toMatchObject({
      hide: { projects: [{ registry: 'Verra', projectId: 4086 }], hidden: false },
    });
  });

  it.each([
    [[], /nothing to do/],
    [['--all', '--projects', 'Verra:1'], /exclude each other/],
    [['--status', '--all'], /--status only reads state/],
    [['--json', '--all'], /--json goes with --status/],
    [['--all', '--no-documents'], /only makes sense with --records/],
    [['--records'], /argument missing|--records/],
    [['--bogus'], /^unknown option --bogus \(see --help\)$/],
    [['--regsitry', 'Verra', '--ids', '1'], /^unknown option --regsitry; did you mean --registry\?$/],
    [['--all', '--reindx'], /^unknown option --reindex; did you mean --reindex\?$|^unknown option --reindx; did you mean --reindex\?$/],
    [['--records=x.jsonl', '--replace-bse=http://x'], /^unknown option --replace-bse; did you mean --replace-base\?$/],
    [['--all', '-x'], /^unknown option -x \(see --help\)$/],
    [['--registry', 'Nowhere', '--ids', '1'], /^--registry: unknown registry "Nowhere" \(known: .*Verra/],
    [['--records', 'r.jsonl', '--registry', 'Nowhere'], /^--registry: unknown registry "Nowhere"/],
    [['--registry', 'gold standard', '--ids', '1'], /--registry Gold Standard --ids: records can be fetched live from Verra only/],
    [['--registry', 'Verra', '--ids', '12,abc'], /--ids: "abc" is not a positive integer project id/],
    [['--projects', 'Verra:abc'], /project id must be a positive integer, got "abc"/],
    [['--projects', 'Mars:1'], /unknown registry "Mars"/],
    [['--projects', '4086'], /expected <registry>:<id>, got "4086"/],
    [['--ids', '4086'], /--ids needs --registry/],
    [['--export', 'Verra'], /--export needs a registry and one file/],
    [['--export', 'Mars', 'x.csv'], /--export: no export mapping for registry "Mars"/],
    [['--all', 'stray'], /unexpected argument "stray"/],
    [['--transactions', 'tx.csv', '--records', 'r.jsonl'], /one of --records/],
    [['--transactions', 'tx.csv', '--all'], /only import rows/],
    [['--enrich', '--all'], /--enrich runs alone/],
    [['--registry', 'Verra'], /nothing to do/],
    [['--hide', 'Verra:4086', '--unhide', 'Verra:5533'], /--hide and --unhide exclude each other/],
    [['--hide', 'Verra:4086', '--all'], /--hide \/ --unhide run alone \(got --all too\)/],
    [['--hide', 'Mars:1'], /--hide: unknown registry "Mars"/],
    [['--unhide', '4086'], /--unhide: expected <registry>:<id>, got "4086"/],
    [['--all', '--inline', '--wait'], /--inline and --wait exclude each other/],
    [['--status', '--wait'], /--wait goes with a run that indexes documents/],
    [['--records', 'r.jsonl', '--no-documents', '--inline'], /--inline goes with a run that indexes documents/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });

  it('reads --inline and --wait for runs that index documents', () => {
    expect(parseCliArgs(['--all', '--inline'])).toMatchObject({ all: true, inline: true, wait: false });
    expect(parseCliArgs(['--records', 'r.jsonl', '--wait'])).toMatchObject({ records: 'r.jsonl', inline: false, wait: true });
  });

  it('keeps registry names that contain spaces', () => {
    expect(parseProjectList('Gold Standard:12')).toEqual([{ registry: 'Gold Standard', projectId: 12 }]);
  });
});

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
