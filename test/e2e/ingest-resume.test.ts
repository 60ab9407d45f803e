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
 * Kill -9 at several points of a run, then run again: the index must hold exactly the chunks of an uninterrupted
 * run (same ids, pages, offsets and texts; none missing, none extra) and every document must end indexed.
 * Small generated PDFs keep each run to seconds; the server answers slowly so kills land mid-run.
 */

const DOCS = 4;
let server: StaticServer;
const root = mkdtempSync(path.join(tmpdir(), 'ingest-resume-'));

const text = (doc: number, page: number): string =>
  Array.from(
    { length: 6 },
    (_, i) => `Document ${doc} page ${page} line ${i + 1}: the project reduces emissions by planting native species on degraded land.`,
  ).join('\n');

const pdfs = new Map<string, Buffer>();
for (let d = 1; d <= DOCS; d++) pdfs.set(`/doc${d}.pdf`, makePdf([text(d, 1), text(d, 2)]));

function serve(req: IncomingMessage, res: ServerResponse): boolean {
  const body = pdfs.get(new URL(req.url ?? '/', 'http://x').pathname);
  if (!body) return false;
  // A little latency spreads the run out so that the kills below fall at different stages.
  setTimeout(() => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
    res.end(body);
  }, 150);
  return true;
}

function recordsFile(dir: string, base: string): string {
  const file = path.join(dir, 'records.jsonl');
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
      resourceName: `Resume project ${id}`,
      documentGroups: [{ code: 'VCS_PIPELINE_DOCUMENTS', description: 'Pipeline', documents: docs.slice(from, to) }],
    });
  writeFileSync(file, `${rec(7001, 0, 2)}\n${rec(7002, 2, DOCS)}\n`);
  return file;
}

interface ChunkRow {
  id: string;
  project_id: number;
  document_id: string;
  page: number;
  offset: number;
  text: string;
}

function snapshot(dataDir: string): { chunks: ChunkRow[]; states: { status: string; n: number }[] } {
  const db = new Database(path.join(dataDir, 'carbon-docs.sqlite'), { readonly: true });
  try {
    const chunks = db.prepare('SELECT id, project_id, document_id, page, "offset", text FROM chunks ORDER BY id').all() as ChunkRow[];
    const states = db.prepare('SELECT status, count(*) AS n FROM document_states GROUP BY status').all() as { status: string; n: number }[];
    return { chunks, states };
  } finally {
    db.close();
  }
}

describe('ingest survives kill -9', () => {
  let env: (dataDir: string) => Record<string, string>;
  let records: string;

  beforeAll(async () => {
    server = await startStaticServer({ handlers: [serve] });
    records = recordsFile(root, server.baseUrl);
    env = (dataDir) => ({ DATA_DIR: dataDir, DOWNLOAD_ALLOW_HOSTS: server.hostPort, DOWNLOAD_CONCURRENCY: '1', EMBEDDER: 'use' });
  });

  afterAll(async () => {
    await server?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('re-running after kills gives exactly the chunk set of an uninterrupted run', { timeout: 120_000 }, async () => {
    const cleanDir = path.join(root, 'clean');
    const clean = await runCli(['--records', records, '--no-progress'], env(cleanDir));
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stderr).toMatch(new RegExp(`${DOCS} document\\(s\\): ${DOCS} indexed`));
    const expected = snapshot(cleanDir);
    expect(expected.chunks.length).toBeGreaterThanOrEqual(DOCS * 2);

    const killedDir = path.join(root, 'killed');
    // Kill when the log shows k documents finished (k = 0: while the first one is still in flight).
    let killedMidRun = 0;
    for (const after of [0, 2]) {
      const { child, done } = startCli(['--records', records, '--no-progress'], env(killedDir));
      let seen = 0;
      child.stdout?.on('data', (d: Buffer) => {
        seen += (d.toString().match(/"msg":"document (indexed|unchanged)"/g) ?? []).length;
        if (seen >= after && (after > 0 || /ingest starting/.test(d.toString()))) child.kill('SIGKILL');
      });
      const r = await done;
      if (r.signal === 'SIGKILL') killedMidRun++;
    }
    expect(killedMidRun).toBe(2);
    const partial = snapshot(killedDir);
    expect(partial.chunks.length).toBeLessThan(expected.chunks.length + 1);

    const resumed = await runCli(['--all', '--no-progress'], env(killedDir));
    expect(resumed.code, resumed.stderr).toBe(0);
    const got = snapshot(killedDir);
    expect(got.chunks).toEqual(expected.chunks);
    expect(got.states).toEqual([{ status: 'indexed', n: DOCS }]);
  });
});
