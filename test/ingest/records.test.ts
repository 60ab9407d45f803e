import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importRecords, readRecordFiles, type RecordReadResult } from '../../ingest/records.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { Logger } from '../../src/logger.js';
import type { ProjectRecordInput, RecordStore, UpsertResult } from '../../src/ports/record-store.js';
import { corpusPath } from '../support/corpus.js';

const EVAL = corpusPath('records', 'eval-projects.raw.jsonl');
const VERRA_4086 = corpusPath('records', 'verra_4086_raw.json');
const evalLines = readFileSync(EVAL, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '');

/** A real pino logger writing JSON lines into an array, so tests can read what the import logged. */
function captureLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

async function collect(iter: AsyncIterable<RecordReadResult>): Promise<RecordReadResult[]> {
  const out: RecordReadResult[] = [];
  for await (const item of iter) out.push(item);
  return out;
}

describe('record import', () => {
  let dir: string;
  let db: SqliteDatabase;
  let store: RecordStore;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'h2-import-'));
    db = openSqlite({ dataDir: path.join(dir, 'data') });
    store = await createSqliteRecordStore({ db });
  });

  afterEach(async () => {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('imports the corpus JSONL with {BASE} replaced, then re-imports it as unchanged', async () => {
    const { logger, lines } = captureLogger();
    const first = await importRecords(store, EVAL, { replaceBase: 'http://127.0.0.1:8123/', logger });
    expect(first).toEqual({ inserted: 7, updated: 0, unchanged: 0, failed: [], placeholders: [] });
    expect(await store.list()).toEqual([
      { registry: 'CDM', projectId: 1 },
      { registry: 'CDM', projectId: 547 },
      { registry: 'CDM', projectId: 9199 },
      { registry: 'Regen', projectId: 6006 },
      { registry: 'Regen', projectId: 6007 },
      { registry: 'Verra', projectId: 5533 },
      { registry: 'Verra', projectId: 1000000 },
    ]);
    const vcs = await store.get({ registry: 'Verra', projectId: 5533 });
    expect(vcs?.format).toBe('registry-json');
    expect(vcs?.raw.resourceIdentifier).toBe('5533');
    expect(JSON.stringify(vcs?.raw)).not.toContain('{BASE}');
    const groups = vcs?.raw.documentGroups as { documents: { uri: string }[] }[];
    expect(groups[0]?.documents[0]?.uri).toBe('http://127.0.0.1:8123/pdf/VCS5533_project_description.pdf');
    // Fields SPEC 2.4 defines are kept as the file gives them, in its key order.
    const original = JSON.parse(evalLines[0] ?? '{}') as Record<string, unknown>;
    expect(Object.keys(vcs?.raw ?? {})).toEqual(Object.keys(original));
    expect(vcs?.raw.participationSummaries).toEqual(original.participationSummaries);
    expect(lines.find((l) => l.msg === 'records imported')).toMatchObject({ inserted: 7, failed: 0 });

    const updatedAt = vcs?.updatedAt;
    const again = await importRecords(store, EVAL, { replaceBase: 'http://127.0.0.1:8123' });
    expect(again).toEqual({ inserted: 0, updated: 0, unchanged: 7, failed: [], placeholders: [] });
    expect((await store.get({ registry: 'Verra', projectId: 5533 }))?.updatedAt).toBe(updatedAt);
    expect(await store.count()).toBe(7);
    // Another base is a real change of every record with documents.
    const moved = await importRecords(store, EVAL, { replaceBase: 'http://127.0.0.1:9999' });
    expect(moved).toEqual({ inserted: 0, updated: 7, unchanged: 0, failed: [], placeholders: [] });
  });

  it('keeps {BASE} when no base is given, and warns once that the uris are not fetchable', async () => {
    const { logger, lines } = captureLogger();
    expect(await importRecords(store, EVAL, { logger })).toMatchObject({ inserted: 7, failed: [] });
    expect(JSON.stringify((await store.get({ registry: 'CDM', projectId: 9199 }))?.raw)).toContain('{BASE}/pdf/');
    expect(lines.filter((l) => String(l.msg).includes('{BASE}'))).toHaveLength(1);
  });

  it('lists every document uri that still holds a {...} placeholder, with its record and source', async () => {
    const without = await importRecords(store, EVAL);
    expect(without.placeholders.length).toBe(evalLines.join('\n').split('{BASE}/').length - 1);
    expect(without.placeholders[0]).toEqual({
      source: `${EVAL}:1`,
      project: expect.stringMatching(/^\w[\w ]*:\d+$/),
      uri: expect.stringMatching(/^\{BASE\}\/pdf\/.+\.pdf$/),
    });
    expect((await importRecords(store, EVAL, { replaceBase: 'http://127.0.0.1:8123' })).placeholders).toEqual([]);
    // Another placeholder survives --replace-base, and is named too.
    const { logger, lines } = captureLogger();
    const record = {
      registry: 'Verra',
      resourceIdentifier: '77',
      resourceName: 'Placeholder project',
      documentGroups: [{ code: 'X', description: 'x', documents: [{ documentName: 'a.pdf', documentType: 'Other', uri: '{HOST}/a.pdf' }] }],
    };
    const file = write('one.json', JSON.stringify(record));
    const other = await importRecords(store, file, { replaceBase: 'http://127.0.0.1:8123', logger });
    expect(other.placeholders).toEqual([{ source: file, project: 'Verra:77', uri: '{HOST}/a.pdf' }]);
    expect(lines.filter((l) => String(l.msg).includes('placeholder'))).toHaveLength(1);
  });

  it('a JSON record without registry fails, naming the file and the --registry option', async () => {
    const result = await importRecords(store, VERRA_4086);
    expect(result.inserted).toBe(0);
    expect(result.failed).toEqual([{ source: VERRA_4086, error: expect.stringMatching(/missing "registry".*--registry/) }]);
    expect(await store.count()).toBe(0);
  });

  it('a JSON record without registry imports under a default registry, spelled any way', async () => {
    const result = await importRecords(store, VERRA_4086, { defaultRegistry: 'verra' });
    expect(result).toEqual({ inserted: 1, updated: 0, unchanged: 0, failed: [], placeholders: [] });
    const got = await store.get({ registry: 'Verra', projectId: 4086 });
    const original = JSON.parse(readFileSync(VERRA_4086, 'utf8')) as Record<string, unknown>;
    expect(got?.raw.registry).toBe('Verra');
    expect(got?.raw.description).toBe(original.description);
    expect(got?.raw.documentGroups).toEqual(original.documentGroups);
    expect(Object.keys(got?.raw ?? {}).slice(0, Object.keys(original).length)).toEqual(Object.keys(original));
    expect(await importRecords(store, VERRA_4086, { defaultRegistry: 'VCS' })).toMatchObject({ unchanged: 1 });
  });

  it('an unknown default registry is an error before anything is read', async () => {
    await expect(importRecords(store, VERRA_4086, { defaultRegistry: 'Moon Registry' })).rejects.toThrow(
      /unknown default registry "Moon Registry" \(known: Verra, Gold Standard/,
    );
  });

  it('reports each malformed JSONL line with file:line and imports the rest', async () => {
    const good = (i: number) => evalLines[i] ?? '';
    const withId = (id: unknown) => JSON.stringify({ ...(JSON.parse(good(0)) as object), resourceIdentifier: id });
    const file = write(
      'mixed.jsonl',
      [
        good(0), // 1
        '{"registry": "Verra", "resourceIdentifier": "12", ', // 2: truncated JSON
        good(1), // 3
        JSON.stringify({ registry: 'Verra', resourceName: 'no id' }), // 4: missing resourceIdentifier
        JSON.stringify({ registry: 'Moon Registry', resourceIdentifier: '5' }), // 5: unknown registry
        withId('VCS-12'), // 6: non-numeric id
        '   ', // 7: blank, skipped
        '[1, 2]', // 8: not an object
        withId('0'), // 9: not a positive id
        JSON.stringify({ registry: 'CDM', resourceIdentifier: 77, documentGroups: 'none' }), // 10: wrong shape
        JSON.stringify({ registry: 42, resourceIdentifier: '5' }), // 11: registry not a string
        good(2), // 12
      ].join('\n'),
    );
    const result = await importRecords(store, file);
    expect(result).toMatchObject({ inserted: 3, updated: 0, unchanged: 0 });
    expect(result.failed.map((f) => f.source)).toEqual([2, 4, 5, 6, 8, 9, 10, 11].map((n) => `${file}:${n}`));
    const errors = result.failed.map((f) => f.error);
    expect(errors[0]).toMatch(/^invalid JSON: /);
    expect(errors[1]).toMatch(/missing "resourceIdentifier"/);
    expect(errors[2]).toMatch(/unknown registry "Moon Registry" \(known: .*Verra/);
    expect(errors[3]).toMatch(/"resourceIdentifier" must be a positive integer or a string of digits \(got "VCS-12"\)/);
    expect(errors[4]).toMatch(/expected a JSON object .* got an array/);
    expect(errors[5]).toMatch(/got "0"/);
    expect(errors[6]).toMatch(/invalid record: documentGroups: /);
    expect(errors[7]).toMatch(/"registry" must be a registry name \(got 42\)/);
    expect(await store.list()).toEqual([
      { registry: 'CDM', projectId: 1 },
      { registry: 'CDM', projectId: 547 },
      { registry: 'Verra', projectId: 5533 },
    ]);
  });

  it('reads a JSON array with file#index sources, a BOM, CRLF lines and numeric ids', async () => {
    const records = [JSON.parse(evalLines[0] ?? '{}'), { nope: true }, { registry: 'gs', resourceIdentifier: 1234 }];
    const arrayFile = write('list.json', `\uFEFF${JSON.stringify(records, null, 2)}`);
    const items = await collect(readRecordFiles(arrayFile));
    expect(items.map((i) => i.source)).toEqual([`${arrayFile}#0`, `${arrayFile}#1`, `${arrayFile}#2`]);
    expect(items[1]?.error).toMatch(/missing "registry"/);
    const gs = items[2]?.record as ProjectRecordInput;
    expect(gs.ref).toEqual({ registry: 'Gold Standard', projectId: 1234 });
    expect(gs.raw.resourceIdentifier).toBe('1234');
    expect(gs.raw.registry).toBe('Gold Standard');
    // A record's own registry wins over the default.
    const withDefault = await collect(readRecordFiles(arrayFile, { defaultRegistry: 'CDM' }));
    expect(withDefault.map((i) => i.record?.ref.registry)).toEqual(['Verra', undefined, 'Gold Standard']);
    expect(withDefault[1]?.error).toMatch(/missing "resourceIdentifier"/);
    expect(gs.raw.childResources).toEqual([]);

    const crlf = write('crlf.jsonl', `\uFEFF${evalLines[0]}\r\n\r\n${evalLines[1]}\r\n`);
    const lines = await collect(readRecordFiles(crlf));
    expect(lines.map((i) => [i.source, i.error])).toEqual([
      [`${crlf}:1`, undefined],
      [`${crlf}:3`, undefined],
    ]);
  });

  it('a folder imports every *.json and *.jsonl in name order, ignoring other files; a broken file does not stop it', async () => {
    const folder = path.join(dir, 'records');
    mkdirSync(path.join(folder, 'nested'), { recursive: true });
    writeFileSync(path.join(folder, 'b.jsonl'), `${evalLines[1]}\n${evalLines[2]}\n`);
    writeFileSync(path.join(folder, 'a.json'), evalLines[0] ?? '');
    writeFileSync(path.join(folder, 'c.json'), '{"registry": "Verra",\n "resourceIdentifier": }');
    writeFileSync(path.join(folder, 'notes.txt'), 'not records');
    writeFileSync(path.join(folder, 'nested', 'd.jsonl'), evalLines[3] ?? '');
    const items = await collect(readRecordFiles(folder));
    expect(items.map((i) => path.relative(folder, i.source))).toEqual(['a.json', 'b.jsonl:1', 'b.jsonl:2', 'c.json']);
    expect(items[3]?.error).toMatch(/^invalid JSON/);
    const result = await importRecords(store, folder);
    expect(result).toMatchObject({ inserted: 3, failed: [{ source: path.join(folder, 'c.json') }] });
  });

  it('a path that cannot be used is one clear error', async () => {
    await expect(importRecords(store, path.join(dir, 'missing.jsonl'))).rejects.toThrow(/records path not found: .*missing\.jsonl/);
    mkdirSync(path.join(dir, 'empty'));
    await expect(importRecords(store, path.join(dir, 'empty'))).rejects.toThrow(/no \*\.json or \*\.jsonl files in folder/);
    const csv = write('projects.csv', 'a,b\n');
    await expect(importRecords(store, csv)).rejects.toThrow(/unsupported records file .*projects\.csv/);
    await expect(importRecords(store, EVAL, { batchSize: 0 })).rejects.toThrow(/batchSize must be a positive integer/);
  });

  it('the same project twice: the later record wins, with a warning naming both places', async () => {
    const base = JSON.parse(evalLines[0] ?? '{}') as Record<string, unknown>;
    const file = write('dupes.jsonl', [JSON.stringify(base), JSON.stringify({ ...base, resourceName: 'Later' })].join('\n'));
    const { logger, lines } = captureLogger();
    const result = await importRecords(store, file, { logger });
    expect(result).toMatchObject({ inserted: 1, updated: 1, unchanged: 0, failed: [] });
    expect((await store.get({ registry: 'Verra', projectId: 5533 }))?.raw.resourceName).toBe('Later');
    expect(lines.find((l) => l.msg === 'project appears again; the later record wins')).toMatchObject({
      source: `${file}:2`,
      firstAt: `${file}:1`,
      project: 'Verra:5533',
    });
  });

  it('upserts in batches and counts 1,200 records across them', async () => {
    const lines = Array.from({ length: 1200 }, (_, i) =>
      JSON.stringify({ registry: 'Verra', resourceIdentifier: String(i + 1), resourceName: `P${i + 1}` }),
    );
    const file = write('bulk.jsonl', lines.join('\n'));
    const batches: number[] = [];
    // A real store, observed: every call still goes through to SQLite.
    const observed: RecordStore = {
      ...store,
      upsert: async (records: ProjectRecordInput[]): Promise<UpsertResult> => {
        batches.push(records.length);
        return store.upsert(records);
      },
    };
    expect(await importRecords(observed, file)).toEqual({ inserted: 1200, updated: 0, unchanged: 0, failed: [], placeholders: [] });
    expect(batches).toEqual([500, 500, 200]);
    expect(await store.count()).toBe(1200);
    batches.length = 0;
    expect(await importRecords(observed, file, { batchSize: 1000 })).toMatchObject({ unchanged: 1200 });
    expect(batches).toEqual([1000, 200]);
  });
});
