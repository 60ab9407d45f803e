import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStaticServer, type StaticServer } from '../support/static-server.js';
import { runCli, startCli } from '../ingest/support/cli.js';
import { makePdf } from '../ingest/support/make-pdf.js';

/**
 * Two `npm run ingest` processes on one DATA_DIR at once (issue 45): each document is downloaded, extracted and
 * embedded by one of them only, each says which documents it left to the other, and the store ends with every
 * document indexed once. The server answers nothing until both processes have asked for a document, so the runs overlap
 * whatever the machine's speed.
 */

const DOCS = 4;
const root = mkdtempSync(path.join(tmpdir(), 'concurrent-ingest-'));
let server: StaticServer;

const text = (doc: number, page: number): string =>
  Array.from(
    { length: 6 },
    (_, i) => `Document ${doc} page ${page} line ${i + 1}: the project restores mangroves along the coast of the delta.`,
  ).join('\n');
const pdfs = new Map<string, Buffer>();
for (let d = 1; d <= DOCS; d++) pdfs.set(`/doc${d}.pdf`, makePdf([text(d, 1), text(d, 2)]));

/** Responses wait until `gate` opens; `gateAfter` distinct documents asked for open it. */
let gateAfter = 0;
let openGate: () => void = () => undefined;
let gate = Promise.resolve();
const asked = new Set<string>();

function serve(req: IncomingMessage, res: ServerResponse): boolean {
  const p = new URL(req.url ?? '/', 'http://x').pathname;
  const body = pdfs.get(p);
  if (!body) return false;
  asked.add(p);
  if (asked.size >= gateAfter) openGate();
  void gate.then(() =>
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
      res.end(body);
    }, 100),
  );
  return true;
}

function recordsFile(base: string): string {
  const file = path.join(root, 'records.jsonl');
  const docs = [...pdfs.keys()].map((p) => ({
    documentName: p.slice(1),
    documentType: 'Project Description',
    uploadDate: '2025-01-01T00:00:00.000Z',
    uri: `${base}${p}`,
  }));
  const rec = (id: number, from: number, to: number) =>
    JSON.stringify({
      registry: 'Verra',
      resourceIdentifier: String(id),
      resourceName: `Concurrent project ${id}`,
      documentGroups: [{ code: 'VCS_PIPELINE_DOCUMENTS', description: 'Pipeline', documents: docs.slice(from, to) }],
    });
  writeFileSync(file, `${rec(8001, 0, DOCS / 2)}\n${rec(8002, DOCS / 2, DOCS)}\n`);
  return file;
}

function snapshot(dataDir: string): { chunks: unknown[]; chunkTotal: number; states: unknown[]; leases: number } {
  const db = new Database(path.join(dataDir, 'carbon-docs.sqlite'), { readonly: true });
  try {
    return {
      chunks: db.prepare('SELECT id, project_id, document_id, page, "offset", text FROM chunks ORDER BY id').all(),
      chunkTotal: (db.prepare('SELECT sum(chunks) AS n FROM document_states').get() as { n: number }).n,
      states: db.prepare('SELECT status, count(*) AS n FROM document_states GROUP BY status').all(),
      leases: (db.prepare('SELECT count(*) AS n FROM document_leases').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

/** The numbers of the summary line a run prints. */
function counts(stderr: string): { indexed: number; unchanged: number; left: number } {
  const m = /(\d+) document\(s\): (\d+) indexed, (\d+) unchanged, .*? removed(?:, (\d+) left to another ingest)?/.exec(stderr);
  expect(m, stderr).not.toBeNull();
  return { indexed: Number(m?.[2]), unchanged: Number(m?.[3]), left: Number(m?.[4] ?? 0) };
}

describe('two embedded ingests on one DATA_DIR', () => {
  let records: string;
  const env = (dataDir: string) => ({
    DATA_DIR: dataDir,
    DOWNLOAD_ALLOW_HOSTS: server.hostPort,
    DOWNLOAD_CONCURRENCY: '1',
    EMBEDDER: 'use',
  });

  beforeAll(async () => {
    server = await startStaticServer({ handlers: [serve] });
    records = recordsFile(server.baseUrl);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('share the documents: each is downloaded and indexed once, and says so', { timeout: 240_000 }, async () => {
    // One run downloads one document at a time: a second document asked for comes from the other run.
    gateAfter = 2;
    asked.clear();
    gate = new Promise<void>((resolve) => (openGate = resolve));
    server.requests.length = 0;
    const sharedDir = path.join(root, 'shared');
    // The records first, so both runs find the projects stored; then both runs at once over every stored project.
    const imported = await runCli(['--records', records, '--no-documents', '--no-progress'], env(sharedDir));
    expect(imported.code, imported.stderr).toBe(0);
    server.requests.length = 0;
    const [a, b] = await Promise.all([
      startCli(['--all', '--no-progress'], env(sharedDir)).done,
      startCli(['--all', '--no-progress'], env(sharedDir)).done,
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);

    // Each document was asked for once, by one of the two runs.
    const pdfRequests = server.requests.filter((p) => p.endsWith('.pdf')).sort();
    expect(pdfRequests).toEqual([...pdfs.keys()].sort());
    const ca = counts(a.stderr);
    const cb = counts(b.stderr);
    expect(ca.indexed + cb.indexed).toBe(DOCS);
    expect(ca.unchanged + cb.unchanged).toBe(0);
    expect(ca.left + cb.left).toBe(DOCS);
    expect(ca.left).toBeGreaterThan(0);
    expect(cb.left).toBeGreaterThan(0);
    // Each says so.
    for (const r of [a, b])
      expect(r.stderr).toMatch(/another ingest on the same DATA_DIR( \(.+\))? held or finished \d+ document\(s\); they were left to it/);

    const got = snapshot(sharedDir);
    // Every document's chunks, once each (chunk ids are unique), and nothing else.
    const byDocument = new Map<string, number>();
    for (const c of got.chunks as Array<{ document_id: string }>) byDocument.set(c.document_id, (byDocument.get(c.document_id) ?? 0) + 1);
    expect(byDocument.size).toBe(DOCS);
    expect(got.chunks.length).toBe(got.chunkTotal);
    expect(got.states).toEqual([{ status: 'indexed', n: DOCS }]);
    expect(got.leases).toBe(0);
  });
});
