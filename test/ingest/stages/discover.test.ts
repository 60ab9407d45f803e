import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discover, nonPdfReason, projectContextOf } from '../../../ingest/stages/discover.js';
import type { IngestDeps } from '../../../ingest/types.js';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { createSqliteVectorIndex } from '../../../src/adapters/sqlite/vector-index.js';
import { chunkIdFor, documentIdFor } from '../../../src/domain/chunking.js';
import type { ProjectRef } from '../../../src/domain/project-ref.js';
import { createLogger } from '../../../src/logger.js';

/** The discover stage over real SQLite stores: what a stored project lists, and what it no longer lists. */

const logger = createLogger({ level: 'silent', name: 'test' });
const REF: ProjectRef = { registry: 'Verra', projectId: 4242 };
const BASE = 'https://registry.verra.org/app/document';

interface Doc {
  name: string;
  uri: string;
  type?: string;
}

function record(docs: Doc[], groups = 1) {
  const documents = docs.map((d) => ({
    documentName: d.name,
    documentType: d.type ?? 'Project Description',
    uploadDate: '2024-01-01T00:00:00.000Z',
    uri: d.uri,
  }));
  return {
    ref: REF,
    format: 'registry-json' as const,
    raw: {
      registry: 'Verra',
      resourceIdentifier: String(REF.projectId),
      resourceName: 'Numbat Wetlands Restoration',
      documentGroups: Array.from({ length: groups }, (_, i) => ({ code: `GROUP_${i}`, description: `Group ${i}`, documents })),
    },
  };
}

let db: SqliteDatabase;
let deps: IngestDeps;

beforeEach(async () => {
  db = openSqlite({ dataDir: ':memory:' });
  const index = await createSqliteVectorIndex({ db });
  await index.open({ embedderId: 'test-4d', dimensions: 4 });
  deps = {
    records: await createSqliteRecordStore({ db }),
    states: await createSqliteDocumentStateStore({ db }),
    texts: await createSqliteDocumentTextStore({ db }),
    index,
    // Discover never embeds; the stage's context type carries the embedder for the later stages.
    embedder: undefined as never,
  };
});
afterEach(() => {
  db.close();
});

describe('discover', () => {
  it('lists each document once (a file listed in two groups too), with the project context, and records it pending', async () => {
    await deps.records.upsert([
      record(
        [
          { name: 'pd.pdf', uri: `${BASE}/pd.pdf` },
          { name: 'empty', uri: '  ' },
          { name: 'vr.pdf', uri: `${BASE}/vr.pdf`, type: 'Validation Report' },
        ],
        2,
      ),
    ]);
    const work = await discover(REF, { deps, logger });
    expect(work.removed).toBe(0);
    expect(work.items.map((i) => [i.title, i.documentType, i.documentId])).toEqual([
      ['pd.pdf', 'Project Description', documentIdFor(`${BASE}/pd.pdf`)],
      ['vr.pdf', 'Validation Report', documentIdFor(`${BASE}/vr.pdf`)],
    ]);
    for (const item of work.items) {
      expect(item.previous).toBeNull();
      expect(item.outcome).toBeUndefined();
      expect(item.projectContext).toContain('Numbat Wetlands Restoration');
    }
    const states = await deps.states.list({ projects: [REF] });
    expect(states.map((s) => s.status)).toEqual(['pending', 'pending']);
  });

  it('hands each document its previous state on the next run', async () => {
    await deps.records.upsert([record([{ name: 'pd.pdf', uri: `${BASE}/pd.pdf` }])]);
    await discover(REF, { deps, logger });
    const id = documentIdFor(`${BASE}/pd.pdf`);
    const state = await deps.states.get(REF, id);
    if (!state) throw new Error('pending state missing');
    await deps.states.put({ ...state, status: 'indexed', contentHash: 'abc', pages: 3, chunks: 7, embedderId: 'test-4d' });
    const [item] = (await discover(REF, { deps, logger })).items;
    expect(item?.previous).toMatchObject({ status: 'indexed', contentHash: 'abc', chunks: 7 });
  });

  it('skips files that are not PDFs by type or extension, without a download', async () => {
    await deps.records.upsert([
      record([
        { name: 'Area.kml', uri: `${BASE}/area`, type: 'KML File' },
        { name: 'calc.xlsx', uri: `${BASE}/calc.xlsx?version=2`, type: 'Other' },
        { name: 'pd.pdf', uri: `${BASE}/pd.pdf` },
      ]),
    ]);
    const outcomes = (await discover(REF, { deps, logger })).items.map((i) => i.outcome ?? null);
    expect(outcomes).toEqual([
      { kind: 'skipped', reason: 'not a PDF (document type KML File)' },
      { kind: 'skipped', reason: 'not a PDF (xlsx file)' },
      null,
    ]);
  });

  it('removes the chunks, text and state of a document the project no longer lists', async () => {
    const goneUri = `${BASE}/old.pdf`;
    await deps.records.upsert([
      record([
        { name: 'old.pdf', uri: goneUri },
        { name: 'pd.pdf', uri: `${BASE}/pd.pdf` },
      ]),
    ]);
    await discover(REF, { deps, logger });
    const goneId = documentIdFor(goneUri);
    await deps.texts.put(REF, goneId, ['page one']);
    await deps.index.upsert([
      {
        id: chunkIdFor({ ...REF, documentId: goneId, page: 1, offset: 0 }),
        registry: REF.registry,
        projectId: REF.projectId,
        documentId: goneId,
        documentTitle: 'old.pdf',
        documentType: 'Project Description',
        uri: goneUri,
        page: 1,
        offset: 0,
        text: 'page one',
        vector: new Float32Array([1, 0, 0, 0]),
      },
    ]);
    await deps.records.upsert([record([{ name: 'pd.pdf', uri: `${BASE}/pd.pdf` }])]);

    const work = await discover(REF, { deps, logger });
    expect(work.removed).toBe(1);
    expect(work.items.map((i) => i.title)).toEqual(['pd.pdf']);
    expect(await deps.index.documentChunkIds(REF, goneId)).toEqual([]);
    expect(await deps.texts.get(REF, goneId)).toBeNull();
    expect(await deps.states.get(REF, goneId)).toBeNull();
  });

  it('lists nothing for a project the store does not hold, and leaves its states alone', async () => {
    const work = await discover({ registry: 'Verra', projectId: 1 }, { deps, logger });
    expect(work).toEqual({ ref: { registry: 'Verra', projectId: 1 }, items: [], removed: 0 });
  });
});

describe('nonPdfReason', () => {
  it('judges the type first, then the extension of the URL path, then of a string that is no URL', () => {
    expect(nonPdfReason('https://x.org/a.pdf', 'ERR Calculation Spreadsheet')).toBe(
      'not a PDF (document type ERR Calculation Spreadsheet)',
    );
    expect(nonPdfReason('https://x.org/boundary.KMZ', 'Other')).toBe('not a PDF (kmz file)');
    expect(nonPdfReason('https://x.org/file.pdf?name=a.csv', 'Other')).toBeNull();
    expect(nonPdfReason('not a url/map.geojson', 'Other')).toBe('not a PDF (geojson file)');
    expect(nonPdfReason('https://x.org/report', 'Monitoring Report')).toBeNull();
  });
});

describe('projectContextOf', () => {
  it('names the project from its stored record', async () => {
    await deps.records.upsert([record([])]);
    const stored = await deps.records.get(REF);
    if (!stored) throw new Error('record missing');
    expect(projectContextOf(stored, REF, undefined)).toContain('Numbat Wetlands Restoration');
  });
});
