import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateSqlite, openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import {
  PRELOAD_CHUNKS,
  VECTOR_MIGRATIONS,
  createSqliteVectorIndex,
  ftsTextExpression,
  scopeToken,
} from '../../../src/adapters/sqlite/vector-index.js';
import { loadConfig } from '../../../src/config.js';
import { EmbedderMismatchError } from '../../../src/errors.js';
import type { ChunkWithVector, VectorIndex } from '../../../src/ports/vector-index.js';
import {
  EMBEDDER,
  axis,
  chunk,
  randomUnitVector,
  vectorIndexContract,
  type VectorIndexStore,
} from '../../contract/vector-index.contract.js';
import { rng } from '../../support/rng.js';
import { repoRoot } from '../../support/corpus.js';
import { indexedContext } from '../../../src/adapters/full-text/chunk-context.js';

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'vector-index-'));
}

/**
 * The adapter with every query vector handed over as a promise, as the search service does: that is when it reads
 * the vectors ahead and scores them in memory (a vector at hand is scored in SQL).
 */
function pendingQueries(index: VectorIndex): VectorIndex {
  return { ...index, searchVector: (query, projects, topK, filter) => index.searchVector(Promise.resolve(query), projects, topK, filter) };
}

function sqliteStore(adapterOptions: { preloadChunks?: number } = {}, wrap = (i: VectorIndex) => i): () => Promise<VectorIndexStore> {
  return async () => {
    const dir = tempDir();
    const dbs: SqliteDatabase[] = [];
    return {
      async connect(opts) {
        // A connection of its own per adapter, as the API and the worker each have.
        const db = openSqlite({ dataDir: dir });
        dbs.push(db);
        return wrap(await createSqliteVectorIndex({ db, ...adapterOptions, ...opts }));
      },
      async dispose() {
        for (const db of dbs) db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

// Both ways of scoring vectors: in memory (usearch, the vectors read while the query embeds) and in SQL (sqlite-vec:
// a query vector at hand, or a candidate set above preloadChunks).
vectorIndexContract('SQLite + FTS5, pending queries, vectors scored in memory', sqliteStore({}, pendingQueries));
vectorIndexContract('SQLite + FTS5, vectors scored by sqlite-vec', sqliteStore());

describe('SQLite vector index specifics', () => {
  let dir: string;
  let db: SqliteDatabase;
  let index: VectorIndex;

  beforeEach(async () => {
    dir = tempDir();
    db = openSqlite({ dataDir: dir });
    index = await createSqliteVectorIndex({ db });
    await index.open(EMBEDDER);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('quotes every word so that user text is never FTS5 syntax', () => {
    expect(ftsTextExpression('VM0007 AND "x" OR NEAR(y)')).toBe('"vm0007" OR "x" OR "near y"');
    expect(ftsTextExpression('AMS-III.AU, 256,109 and 5,35,052.')).toBe('"ams iii au" OR "256 109" OR "5 35 052"');
    expect(ftsTextExpression('the of')).toBe('"the" OR "of"');
    expect(ftsTextExpression(' ()*: ')).toBeUndefined();
  });

  it('migrates once: a second adapter on the same file reuses the tables', async () => {
    await index.upsert([chunk({ id: 'a', projectId: 1, text: 'kept across adapters' })]);
    const again = await createSqliteVectorIndex({ db });
    await again.open(EMBEDDER);
    expect(await again.documentChunkIds({ registry: 'Verra', projectId: 1 }, 'doc-1')).toEqual(['a']);
    const rows = db.prepare("SELECT name FROM schema_migrations WHERE namespace = 'vectors'").all();
    expect(rows).toEqual([
      { name: '0001-chunks' },
      { name: '0002-chunk-context' },
      { name: '0003-fts-external-content' },
      { name: '0004-sentence-vectors' },
      { name: '0005-ocr' },
    ]);
  });

  it('upgrades an index of the first layout in place: existing chunks become findable by document title', async () => {
    const old = openSqlite({ dataDir: path.join(dir, 'old') });
    try {
      await migrateSqlite(old, 'vectors', VECTOR_MIGRATIONS.slice(0, 1));
      old.prepare('INSERT INTO vector_index_meta (key, value) VALUES (?, ?)').run('embedder', JSON.stringify(EMBEDDER));
      const insert = old.prepare(`INSERT INTO chunks (id, registry, project_id, document_id, document_title, document_type,
        uri, page, "offset", text, embedding) VALUES (?, 'Verra', 1, 'doc-1', ?, 'Validation Report', 'u', 1, 0, ?, ?)`);
      const oldFts = old.prepare('INSERT INTO chunks_fts (rowid, text, scope) VALUES (?, ?, ?)');
      const rows: [string, string, string][] = [
        ['a', 'CDM9199_colombia_forestry_validation_report.pdf', 'Twelve clarification requests were raised.'],
        ['b', 'CDM_GFL-HFC23_project_design_document.pdf', 'Thermal oxidation at 1200 degrees.'],
      ];
      for (const [id, title, text] of rows) {
        const { lastInsertRowid } = insert.run(id, title, text, Buffer.from(axis(0).buffer));
        oldFts.run(lastInsertRowid, text, scopeToken({ registry: 'Verra', projectId: 1 }));
      }
      const upgraded = await createSqliteVectorIndex({ db: old });
      await upgraded.open(EMBEDDER);
      const find = async (q: string) => (await upgraded.searchText(q, [{ registry: 'Verra', projectId: 1 }], 10)).map((r) => r.id);
      expect(await find('colombia')).toEqual(['a']);
      expect(await find('clarification requests')).toEqual(['a']);
      expect(await find('GFL design')).toEqual(['b']);
      // Generic document types are not context; "Validation Report" is.
      expect(await find('validation')).toEqual(['a', 'b']);
      const [first] = await upgraded.searchText('colombia', [{ registry: 'Verra', projectId: 1 }], 1);
      expect(first?.text).toBe('Twelve clarification requests were raised.');
    } finally {
      old.close();
    }
  });

  it('keeps the full-text table in step with chunks through replace and delete', async () => {
    await index.upsert([chunk({ id: 'a', projectId: 1, text: 'peatland rewetting' })]);
    await index.upsert([chunk({ id: 'a', projectId: 1, text: 'rice paddies' })]);
    await index.upsert([chunk({ id: 'b', projectId: 1, documentId: 'doc-2', text: 'rice and peatland' })]);
    const ftsRows = () => (db.prepare('SELECT count(*) AS n FROM chunks_fts').get() as { n: number }).n;
    expect(ftsRows()).toBe(2);
    await index.deleteDocument({ registry: 'Verra', projectId: 1 }, 'doc-1');
    expect(ftsRows()).toBe(1);
    const rows = await index.searchText('peatland rice', [{ registry: 'Verra', projectId: 1 }], 5);
    expect(rows.map((r) => r.id)).toEqual(['b']);
  });

  it('re-checks the exact project of every full-text hit, should two projects ever share a scope token', async () => {
    await index.upsert([chunk({ id: 'a', projectId: 1, text: 'peatland rewetting' })]);
    await index.upsert([chunk({ id: 'b', projectId: 2, text: 'peatland rewetting in the wet season' })]);
    const one = [{ registry: 'Verra', projectId: 1 }];
    // A forged collision: project 2's chunk carries project 1's token in the scope column.
    db.prepare("UPDATE chunks_fts SET scope = ? WHERE rowid = (SELECT rowid FROM chunks WHERE id = 'b')").run(scopeToken(one[0]!));
    expect((await index.searchText('peatland rewetting', one, 5)).map((r) => r.id)).toEqual(['a']);
    expect(
      (await index.searchText('peatland rewetting', [...one, { registry: 'Verra', projectId: 2 }], 5)).map((r) => r.id).sort(),
    ).toEqual(['a', 'b']);
  });

  it('keeps the vectors it read for the next search, and reads them again once this or another connection writes', async () => {
    const p1 = { registry: 'Verra', projectId: 1 };
    const p2 = { registry: 'Verra', projectId: 2 };
    const reader = pendingQueries(index);
    const ids = async (projects = [p1, p2]) => (await reader.searchVector(axis(1), projects, 3)).map((r) => r.id);
    await index.upsert([chunk({ id: 'a', projectId: 1, vector: axis(0) }), chunk({ id: 'b', projectId: 2, vector: axis(2) })]);
    expect(await ids()).toEqual(['a', 'b']);
    // This adapter's own write.
    await index.upsert([chunk({ id: 'c', projectId: 1, vector: axis(1) })]);
    expect(await ids()).toEqual(['c', 'a', 'b']);
    // Another connection's (the worker's): a new chunk, a deleted document, a replaced one.
    const workerDb = openSqlite({ dataDir: dir });
    try {
      const worker = await createSqliteVectorIndex({ db: workerDb });
      await worker.open(EMBEDDER);
      await worker.upsert([chunk({ id: 'd', projectId: 2, documentId: 'doc-2', vector: axis(1) })]);
      expect(await ids()).toEqual(['c', 'd', 'a']);
      await worker.deleteDocument(p1, 'doc-1');
      expect(await ids()).toEqual(['d', 'b']);
      await worker.replaceDocument(p2, 'doc-2', [chunk({ id: 'e', projectId: 2, documentId: 'doc-2', vector: axis(3) })]);
      expect(await ids()).toEqual(['b', 'e']);
      // One project's kept vectors serve a search of it alone, and of it with another.
      expect(await ids([p2])).toEqual(['b', 'e']);
      expect(await ids([p1])).toEqual([]);
    } finally {
      workerDb.close();
    }
  });

  /** BM25 scores of a few queries over project 1, rounded past float noise. */
  async function scores(ix: VectorIndex): Promise<[string, number][][]> {
    const p = [{ registry: 'Verra', projectId: 1 }];
    const out: [string, number][][] = [];
    for (const q of ['peatland rewetting', 'rice', 'validation report buffer', 'VM0007']) {
      out.push((await ix.searchText(q, p, 10)).map((r) => [r.id, Math.round(r.score * 1e9) / 1e9]));
    }
    return out;
  }

  const FINAL = [
    chunk({ id: 'a', projectId: 1, text: 'rice paddies flooded in the wet season' }),
    chunk({ id: 'b', projectId: 1, documentId: 'doc-2', text: 'rice and peatland rewetting under VM0007', context: 'Validation report' }),
    chunk({ id: 'c', projectId: 1, documentId: 'doc-2', text: 'the buffer pool holds 20 percent of credits' }),
  ];

  /** The scores of a fresh index holding just FINAL: what an index must rank like after any history of writes. */
  async function freshScores(): Promise<[string, number][][]> {
    const freshDir = tempDir();
    const freshDb = openSqlite({ dataDir: freshDir });
    try {
      const fresh = await createSqliteVectorIndex({ db: freshDb });
      await fresh.open(EMBEDDER);
      await fresh.upsert(FINAL);
      return await scores(fresh);
    } finally {
      freshDb.close();
      rmSync(freshDir, { recursive: true, force: true });
    }
  }

  it('ranks after replacements and deletions exactly as a fresh index of the same chunks (BM25 statistics stay exact)', async () => {
    // Churn: every chunk replaced several times with longer text, and a whole document added then deleted.
    for (let round = 0; round < 3; round++) {
      await index.upsert(FINAL.map((c) => ({ ...c, text: `${c.text} peatland peatland rewetting drainage canals ${round}`.repeat(3) })));
      await index.upsert(
        [1, 2, 3, 4].map((i) => chunk({ id: `x${i}`, projectId: 1, documentId: 'doc-9', text: 'rice rice rice validation' })),
      );
      await index.deleteDocument({ registry: 'Verra', projectId: 1 }, 'doc-9');
    }
    await index.upsert(FINAL);

    const want = await freshScores();
    expect(want[0]?.length).toBeGreaterThan(0);
    expect(await scores(index)).toEqual(want);
    // FTS5's own check that the index matches the chunks table, token for token.
    expect(() => db.prepare("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
  });

  it('upgrades an index of the second layout in place: the statistics it inflated are rebuilt, context kept', async () => {
    const oldDir = path.join(dir, 'old');
    const old = openSqlite({ dataDir: oldDir });
    try {
      await migrateSqlite(old, 'vectors', VECTOR_MIGRATIONS.slice(0, 2));
      old.prepare('INSERT INTO vector_index_meta (key, value) VALUES (?, ?)').run('embedder', JSON.stringify(EMBEDDER));
      // The second layout's writes: raw context in chunks, INSERT OR REPLACE into the contentless_delete table.
      const insert = old.prepare(`INSERT INTO chunks (id, registry, project_id, document_id, document_title, document_type,
        uri, page, "offset", text, context, embedding) VALUES (?, 'Verra', 1, ?, ?, ?, 'u', 1, 0, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET text = excluded.text RETURNING rowid`);
      const fts = old.prepare('INSERT OR REPLACE INTO chunks_fts (rowid, text, context, scope) VALUES (?, ?, ?, ?)');
      for (const round of [0, 1]) {
        for (const c of FINAL) {
          const text = round === 0 ? `${c.text} drainage drainage canals` : c.text;
          const { rowid } = insert.get(
            c.id,
            c.documentId,
            c.documentTitle,
            c.documentType,
            text,
            c.context ?? '',
            Buffer.from(c.vector.buffer),
          ) as { rowid: number };
          fts.run(rowid, text, indexedContext(c.documentTitle, c.documentType, c.context), scopeToken(c));
        }
      }
      const upgraded = await createSqliteVectorIndex({ db: old });
      await upgraded.open(EMBEDDER);

      expect(await scores(upgraded)).toEqual(await freshScores());
      // The context still finds its chunk, and the upgraded table follows later writes.
      expect((await upgraded.searchText('validation report', [{ registry: 'Verra', projectId: 1 }], 5)).map((r) => r.id)).toContain('b');
      await upgraded.deleteDocument({ registry: 'Verra', projectId: 1 }, 'doc-2');
      expect((await upgraded.searchText('rice', [{ registry: 'Verra', projectId: 1 }], 5)).map((r) => r.id)).toEqual(['a']);
      expect(() => old.prepare("INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('integrity-check', 1)").run()).not.toThrow();
    } finally {
      old.close();
    }
  });

  it('stems ordinary words (Porter) but never codes or numbers', async () => {
    await index.upsert([
      chunk({ id: 'a', projectId: 1, text: 'Emissions were reduced by monitoring' }),
      chunk({ id: 'b', projectId: 1, text: 'VM0007 and 2021' }),
    ]);
    const p = [{ registry: 'Verra', projectId: 1 }];
    expect((await index.searchText('emission reduction monitored', p, 5)).map((r) => r.id)).toEqual(['a']);
    expect((await index.searchText('VM000', p, 5)).map((r) => r.id)).toEqual([]);
    expect((await index.searchText('202', p, 5)).map((r) => r.id)).toEqual([]);
  });

  it('rejects a malformed chunk with a message naming the problem, and writes nothing of its batch', async () => {
    const bad = { ...chunk({ id: 'bad', projectId: 0 }), page: 0 } as ChunkWithVector;
    await expect(index.upsert([chunk({ id: 'ok', projectId: 1 }), bad])).rejects.toThrow(
      /invalid chunk "bad": projectId must be a positive integer; page must be a 1-based integer, got 0/,
    );
    expect((await index.countChunks([{ registry: 'Verra', projectId: 1 }])).get('Verra:1')).toBe(0);
  });

  it('refuses further writes and vector queries once another process re-indexed for another embedder', async () => {
    await index.upsert([chunk({ id: 'a', projectId: 1 })]);
    const otherDb = openSqlite({ dataDir: dir });
    try {
      const worker = await createSqliteVectorIndex({ db: otherDb, reindex: true });
      await worker.open({ embedderId: 'new-model', dimensions: 8 });
    } finally {
      otherDb.close();
    }
    await expect(index.searchVector(axis(0), [{ registry: 'Verra', projectId: 1 }], 3)).rejects.toThrow(EmbedderMismatchError);
    await expect(index.upsert([chunk({ id: 'b', projectId: 1 })])).rejects.toThrow(/re-index/);
  });

  it('reads ahead as many vectors by default as the configuration says by default', () => {
    expect(loadConfig({}).VECTOR_PRELOAD_CHUNKS).toBe(PRELOAD_CHUNKS);
  });

  it('scores a zero vector 0 (sqlite-vec alone gives NULL), ranked by that score, in memory and in SQL', async () => {
    await index.upsert([
      chunk({ id: 'zero', projectId: 1, vector: new Float32Array(EMBEDDER.dimensions) }),
      chunk({ id: 'against', projectId: 1, vector: axis(1) }),
    ]);
    const query = new Float32Array(EMBEDDER.dimensions);
    query[1] = -1;
    const inSql = await createSqliteVectorIndex({ db, preloadChunks: 0 });
    await inSql.open(EMBEDDER);
    for (const idx of [pendingQueries(index), index, inSql]) {
      const got = await idx.searchVector(query, [{ registry: 'Verra', projectId: 1 }], 5);
      expect(got.map((c) => [c.id, c.score])).toEqual([
        ['zero', 0],
        ['against', -1],
      ]);
    }
  });

  it('ranks the same in memory as in SQL, ties broken by chunk id, whatever the candidate count', async () => {
    const rand = rng(20261123);
    const shared = randomUnitVector(rand);
    const chunks: ChunkWithVector[] = [];
    for (let p = 1; p <= 4; p++) {
      for (let i = 0; i < 30; i++) {
        // Every fifth chunk shares one vector, so topK cuts through ties; one chunk per project is a zero vector.
        const vector = i % 5 === 0 ? shared : i === 7 ? new Float32Array(EMBEDDER.dimensions) : randomUnitVector(rand);
        chunks.push(chunk({ id: `p${p}-${String(29 - i).padStart(2, '0')}`, projectId: p, vector }));
      }
    }
    await index.upsert(chunks);
    const inSql = await createSqliteVectorIndex({ db, preloadChunks: 0 });
    // 60 candidates for two projects: above this limit the adapter falls back to SQL.
    const overLimit = await createSqliteVectorIndex({ db, preloadChunks: 59 });
    await Promise.all([inSql.open(EMBEDDER), overLimit.open(EMBEDDER)]);
    const projects = [
      { registry: 'Verra', projectId: 2 },
      { registry: 'Verra', projectId: 4 },
    ];
    // A zero query ties every chunk at 0.
    for (const query of [shared, randomUnitVector(rand), randomUnitVector(rand), new Float32Array(EMBEDDER.dimensions)]) {
      for (const k of [1, 3, 7, 12, 60, 100]) {
        const reference = await inSql.searchVector(query, projects, k);
        expect(reference).toHaveLength(Math.min(k, 60));
        for (const idx of [pendingQueries(index), pendingQueries(overLimit), index]) {
          const got = await idx.searchVector(query, projects, k);
          expect(got.map((c) => c.id)).toEqual(reference.map((c) => c.id));
          got.forEach((c, i) => expect(c.score).toBeCloseTo(reference[i]?.score ?? NaN, 6));
          expect(got[0]).toEqual({ ...reference[0], score: got[0]?.score });
        }
      }
    }
    // The shared vector's chunks tie at the top: they come in chunk-id order.
    const top = await index.searchVector(Promise.resolve(shared), projects, 3);
    expect(top.map((c) => c.id)).toEqual(['p2-04', 'p2-09', 'p2-14']);
  });

  it('reads the vectors when called, while the query vector is still pending; never returns a chunk deleted meanwhile', async () => {
    const ref = { registry: 'Verra', projectId: 1 };
    await index.upsert([
      chunk({ id: 'kept', projectId: 1, documentId: 'A', vector: axis(2) }),
      chunk({ id: 'deleted', projectId: 1, documentId: 'B', vector: axis(1) }),
    ]);
    let resolve: (v: Float32Array) => void = () => undefined;
    const pending = new Promise<Float32Array>((r) => (resolve = r));
    const search = index.searchVector(pending, [ref], 5);
    // Both written after the call: the new chunk was not among the vectors read, the deleted one is left out.
    await index.upsert([chunk({ id: 'written-later', projectId: 1, documentId: 'C', vector: axis(1) })]);
    await index.deleteDocument(ref, 'B');
    resolve(axis(1));
    expect((await search).map((c) => c.id)).toEqual(['kept']);
    expect((await index.searchVector(axis(1), [ref], 5)).map((c) => c.id)).toEqual(['written-later', 'kept']);
  });

  it('fails clearly when used before open() or after close()', async () => {
    const fresh = await createSqliteVectorIndex({ db });
    await expect(fresh.searchText('x', [{ registry: 'Verra', projectId: 1 }], 1)).rejects.toThrow(/call open/);
    await expect(fresh.open({ embedderId: '', dimensions: 3 })).rejects.toThrow(/embedderId/);
    await expect(fresh.open({ embedderId: 'e', dimensions: 0 })).rejects.toThrow(/dimensions/);
    await index.close();
    await expect(index.upsert([])).rejects.toThrow(/closed/);
  });

  it('lets the API read while a worker process writes: no SQLITE_BUSY, no lost write, atomic batches', async () => {
    const batches = 40;
    const batchSize = 50;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(repoRoot, 'test/adapters/fixtures/sqlite-vector-writer.ts'),
        dir,
        'worker',
        '1',
        String(batches),
        String(batchSize),
        String(EMBEDDER.dimensions),
      ],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let running = true;
    void exited.then(() => (running = false));

    // Meanwhile this process reads (as the API does) and writes its own project (a second writer).
    const worker = [{ registry: 'Verra', projectId: 1 }];
    const seen: number[] = [];
    let ownWrites = 0;
    const errors: unknown[] = [];
    while (running) {
      try {
        const n = (await index.countChunks(worker)).get('Verra:1') ?? 0;
        seen.push(n);
        await index.searchVector(axis(3), worker, 10);
        await index.searchText('mangrove batch', worker, 10);
        await index.upsert([chunk({ id: `api-${ownWrites}`, projectId: 2, text: 'second writer', vector: axis(1) })]);
        ownWrites++;
      } catch (err) {
        errors.push(err);
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    const code = await exited;
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(errors).toEqual([]);
    expect(JSON.parse(stdout)).toEqual({ written: batches * batchSize });
    const counts = await index.countChunks([...worker, { registry: 'Verra', projectId: 2 }]);
    expect(counts.get('Verra:1')).toBe(batches * batchSize);
    expect(counts.get('Verra:2')).toBe(ownWrites);
    // Reads saw whole batches only, never going backwards, and overlapped the writes.
    for (let i = 0; i < seen.length; i++) {
      expect((seen[i] ?? 0) % batchSize).toBe(0);
      if (i > 0) expect(seen[i] ?? 0).toBeGreaterThanOrEqual(seen[i - 1] ?? 0);
    }
    expect(seen.some((n) => n > 0 && n < batches * batchSize)).toBe(true);
    expect(ownWrites).toBeGreaterThan(0);
  });
});
