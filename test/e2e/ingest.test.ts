import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { documentIdFor } from '../../src/domain/chunking.js';
import type { DocumentState } from '../../src/ports/document-state-store.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';
import { startStaticServer, type StaticServer } from '../support/static-server.js';
import { runCli, type CliResult } from '../ingest/support/cli.js';

/**
 * The worker end to end: the real CLI as a child process, corpus PDFs over local HTTP, the embedded SQLite store
 * and the default USE embedder. A subset of the corpus (one small PDF) keeps the file well under a minute; the
 * fault documents ride along in a third project and must each fail with their reason while the rest succeeds.
 */

interface Question {
  id: string;
  file: string;
  pages: number[];
  evidence: string;
}

const SUBSET: Record<string, string[]> = {
  'CDM:1': ['CDM_GFL-HFC23_registration_request_form.pdf'],
};
const MAX_BYTES = 2_000_000;

let server: StaticServer;
let dataDir: string;
let recordsFile: string;
let env: Record<string, string>;
let first: CliResult;
let status: CliResult;

function faults(req: IncomingMessage, res: ServerResponse): boolean {
  const p = new URL(req.url ?? '/', 'http://x').pathname;
  if (p === '/fault/truncated.pdf') {
    const full = readFileSync(corpusPath('pdf', 'methodology_VM0001.pdf'));
    const half = full.subarray(0, Math.floor(full.length / 2));
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': half.length });
    res.end(half);
    return true;
  }
  if (p === '/fault/login.pdf') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Sign in</title>');
    return true;
  }
  if (p === '/fault/slow.pdf') {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    res.write('%PDF-1.4\n');
    return true; // never ends
  }
  if (p === '/fault/huge.pdf') {
    res.writeHead(200, { 'content-type': 'application/pdf' });
    const block = Buffer.alloc(256 * 1024, 0x20);
    block.write('%PDF-1.4\n');
    let sent = 0;
    const pump = (): void => {
      while (sent < 3 * MAX_BYTES) {
        sent += block.length;
        if (!res.write(block)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
    return true;
  }
  return false;
}

function faultDocs(base: string) {
  const doc = (name: string, uri: string, type = 'Other') => ({
    documentName: name,
    documentType: type,
    uploadDate: '2024-01-01T00:00:00.000Z',
    uri,
  });
  return [
    doc('truncated.pdf', `${base}/fault/truncated.pdf`),
    doc('login.pdf', `${base}/fault/login.pdf`),
    doc('missing.pdf', `${base}/pdf/no-such-file.pdf`),
    doc('slow.pdf', `${base}/fault/slow.pdf`),
    doc('huge.pdf', `${base}/fault/huge.pdf`),
    doc('private.pdf', 'http://192.168.1.20/internal/doc.pdf'),
    doc('Project area.kml', `${base}/fault/area.kml`, 'KML File'),
  ];
}

function statesOf(stdout: string): DocumentState[] {
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as DocumentState);
}

/** The page text as the chunks of that page cover it (overlaps merged by offset). */
function pageFromChunks(db: Database.Database, documentId: string, page: number): string {
  const rows = db
    .prepare('SELECT "offset" AS o, text FROM chunks WHERE document_id = ? AND page = ? ORDER BY "offset"')
    .all(documentId, page) as { o: number; text: string }[];
  const chars: string[] = [];
  for (const r of rows) for (let i = 0; i < r.text.length; i++) chars[r.o + i] = r.text.charAt(i);
  return Array.from(chars, (c) => c ?? ' ').join('');
}

describeWithService('ingest CLI end to end', { available: corpusAvailable, why: 'corpus not found' }, () => {
  beforeAll(async () => {
    server = await startStaticServer({ root: corpusPath('pdf'), mount: '/pdf', handlers: [faults] });
    dataDir = mkdtempSync(path.join(tmpdir(), 'ingest-e2e-'));
    const lines = readFileSync(corpusPath('records', 'eval-projects.raw.jsonl'), 'utf8').trim().split('\n');
    const out: string[] = [];
    for (const line of lines) {
      const rec = JSON.parse(line) as {
        registry: string;
        resourceIdentifier: string;
        documentGroups: { documents: { documentName: string }[] }[];
      };
      const keep = SUBSET[`${rec.registry}:${rec.resourceIdentifier}`];
      if (!keep) continue;
      for (const g of rec.documentGroups) g.documents = g.documents.filter((d) => keep.includes(d.documentName));
      out.push(JSON.stringify(rec));
    }
    out.push(
      JSON.stringify({
        registry: 'Verra',
        resourceIdentifier: '990001',
        resourceName: 'Fault documents',
        documentGroups: [{ code: 'VCS_OTHER_DOCUMENTS', description: 'Other', documents: faultDocs('{BASE}') }],
      }),
    );
    recordsFile = path.join(dataDir, 'records.jsonl');
    writeFileSync(recordsFile, `${out.join('\n')}\n`);
    env = {
      DATA_DIR: dataDir,
      DOWNLOAD_ALLOW_HOSTS: server.hostPort,
      DOWNLOAD_MAX_BYTES: String(MAX_BYTES),
      DOWNLOAD_TIMEOUT_MS: '4000',
      DOWNLOAD_RETRIES: '0',
      EMBEDDER: 'use',
    };
    first = await runCli(['--records', recordsFile, '--replace-base', server.baseUrl, '--no-progress'], env);
    status = await runCli(['--status', '--json'], env);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('completes the run with a summary, and exit code 3 because documents failed', () => {
    expect(first.stderr).toMatch(/records: 2 inserted/);
    expect(first.stderr).toMatch(/2 project\(s\), 8 document\(s\): 1 indexed, 0 unchanged, 1 skipped, 0 need OCR, 6 failed, 0 removed/);
    expect(first.stderr).toMatch(/ingest: 6 document\(s\) failed \(exit code 3\)/);
    expect(first.stderr).not.toMatch(/placeholder/);
    expect(first.code, first.stderr).toBe(3);
  });

  it('warns about {BASE} left in document uris, fails those documents saying so, and exits 3', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ingest-base-'));
    try {
      const r = await runCli(['--records', recordsFile, '--projects', 'CDM:1', '--no-progress'], { ...env, DATA_DIR: dir });
      expect(r.stderr).toMatch(/^warning: \d+ document uri\(s\) still hold a placeholder such as \{BASE\} \(first: \{BASE\}\/pdf\//m);
      expect(r.stderr).toMatch(/--replace-base <url>/);
      expect(r.stderr).toMatch(/failed CDM:1 \{BASE\}\/pdf\/\S+: download: the uri still holds the placeholder \{BASE\}/);
      expect(r.code, r.stderr).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records each fault document as failed with its reason, and the KML file as skipped', async () => {
    expect(status.code, status.stderr).toBe(0);
    const byTitle = new Map(
      statesOf(status.stdout)
        .filter((s) => s.projectId === 990001)
        .map((s) => [s.title, s]),
    );
    const expectState = (title: string, status: string, reason: RegExp): void => {
      const s = byTitle.get(title);
      expect(s?.status, title).toBe(status);
      expect(s?.reason ?? '', title).toMatch(reason);
    };
    expectState('truncated.pdf', 'failed', /^extract: PDF could not be parsed/);
    expectState('login.pdf', 'failed', /^download: content is not a PDF \(content-type text\/html/);
    expectState('missing.pdf', 'failed', /^download: HTTP 404/);
    expectState('slow.pdf', 'failed', /^download: timed out after 4000 ms/);
    expectState('huge.pdf', 'failed', /^download: document is larger than the 2000000-byte limit/);
    expectState('private.pdf', 'failed', /^download: host 192\.168\.1\.20:80 is not in the download allow-list/);
    expectState('Project area.kml', 'skipped', /^not a PDF \(document type KML File\)$/);
    expect(server.requests).not.toContain('/fault/area.kml');
  });

  it('indexes the corpus documents with chunks on the pages the qa-dev evidence is on', async () => {
    const states = statesOf(status.stdout).filter((s) => s.registry === 'CDM' && s.projectId === 1);
    expect(states.map((s) => [s.title, s.status, s.pages])).toEqual([['CDM_GFL-HFC23_registration_request_form.pdf', 'indexed', 11]]);
    const questions = readFileSync(corpusPath('qa-dev.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Question)
      .filter((q) => q.id === 'dev-022');
    expect(questions).toHaveLength(1);
    const db = new Database(path.join(dataDir, 'carbon-docs.sqlite'), { readonly: true });
    try {
      const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();
      for (const q of questions) {
        const documentId = documentIdFor(`${server.baseUrl}/pdf/${q.file}`);
        const found = q.pages.some((p) => norm(pageFromChunks(db, documentId, p)).includes(norm(q.evidence)));
        expect(found, `${q.id} evidence in chunks of ${q.file} pages ${q.pages.join(',')}`).toBe(true);
        const counted = db.prepare('SELECT count(*) AS n FROM chunks WHERE document_id = ?').get(documentId) as { n: number };
        expect(counted.n).toBe(states.find((s) => s.title === q.file)?.chunks);
      }
      // Chunks of failed documents never reach the index.
      const stray = db.prepare('SELECT count(*) AS n FROM chunks WHERE project_id = 990001').get() as { n: number };
      expect(stray.n).toBe(0);
    } finally {
      db.close();
    }
  });

  it('a second run over the same projects re-embeds nothing', async () => {
    const r = await runCli(['--projects', 'CDM:1', '--no-progress'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/1 document\(s\): 0 indexed, 1 unchanged/);
  });

  it('reports bad arguments with exit code 2 and bad configuration with exit code 1', async () => {
    const bad = await runCli(['--projects', 'Nowhere:1'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--projects: unknown registry "Nowhere"/);
    const config = await runCli(['--all'], { ...env, DOWNLOAD_MAX_BYTES: 'lots' });
    expect(config.code).toBe(1);
    expect(config.stderr).toMatch(/DOWNLOAD_MAX_BYTES: .*\(got "lots"\)/);
  });

  it('names a mistyped option and an unknown registry with exit code 2, and a file given as DATA_DIR', async () => {
    const typo = await runCli(['--regsitry', 'Verra', '--ids', '4086'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^ingest: unknown option --regsitry; did you mean --registry\?$/m);
    const registry = await runCli(['--registry', 'Nowhere', '--ids', '4086'], env);
    expect(registry.code).toBe(2);
    expect(registry.stderr).toMatch(/^ingest: --registry: unknown registry "Nowhere" \(known: /m);
    // A usage error, not a fatal one: no JSON log line, no stack trace.
    expect(registry.stdout).toBe('');
    expect(registry.stderr).not.toMatch(/\n\s+at /);
    const file = path.join(dataDir, 'records.jsonl');
    const dataDirFile = await runCli(['--status'], { ...env, DATA_DIR: file });
    expect(dataDirFile.code).toBe(1);
    expect(dataDirFile.stderr).toContain(`ingest: cannot use DATA_DIR ${file} for the SQLite database: it is a file, not a folder`);
  });

  it('hides and unhides a stored project, and exits 1 naming a project the store does not hold', async () => {
    const hide = await runCli(['--hide', 'Verra:990001'], env);
    expect(hide.code, hide.stderr).toBe(0);
    expect(hide.stderr).toMatch(/^hidden: 1 project\(s\) \(Verra:990001\)$/m);
    const again = await runCli(['--unhide', 'Verra:990001,Verra:123'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^unhidden: 1 project\(s\) \(Verra:990001\)$/m);
    expect(again.stderr).toMatch(/not in the store \(import their records first\): Verra:123/);
  });

  it('imports a registry export and its transactions, then recomputes derived fields, each from the CLI', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ingest-derived-'));
    try {
      const local = { DATA_DIR: dir, EMBEDDER: 'use' };
      const exp = await runCli(['--export', 'verra', corpusPath('registry-exports', 'verra', 'projects.csv')], local);
      expect(exp.code, exp.stderr).toBe(0);
      expect(exp.stderr).toMatch(/^Verra export: 50 rows, 50 inserted/m);
      const tx = await runCli(['--transactions', corpusPath('registry-exports', 'verra', 'transactions.csv')], local);
      expect(tx.code, tx.stderr).toBe(0);
      // The corpus's transaction sample names 56 projects, most of them outside its 50-row export.
      const m = /^transactions \(verra\): 200 rows, (\d+) projects updated, (\d+) not in the store/m.exec(tx.stderr);
      expect(m, tx.stderr).not.toBeNull();
      expect(Number(m?.[1]) + Number(m?.[2])).toBe(56);
      const enrich = await runCli(['--enrich'], local);
      expect(enrich.code, enrich.stderr).toBe(0);
      expect(enrich.stderr).toMatch(/^enrichment: 50 projects recomputed, 0 failed/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
