import { describe, expect, it } from 'vitest';
import {
  canonicalHash,
  canonicalJson,
  checkDocumentState,
  checkPages,
  checkRef,
  documentStateFromRow,
  mergeEnrichment,
  parseJsonObject,
  prepareRecords,
  runsOfDistinctKeys,
  storedProjectFromRow,
} from '../../src/adapters/store-support.js';
import type { ProjectRecordInput } from '../../src/domain/stored-project.js';
import type { DocumentStateInput } from '../../src/ports/document-state-store.js';

describe('canonical JSON', () => {
  it('sorts keys at every level, so key order does not make a record "changed", but array order does', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(canonicalHash({ a: 1, b: 2 })).toBe(canonicalHash({ b: 2, a: 1 }));
    expect(canonicalHash([1, 2])).not.toBe(canonicalHash([2, 1]));
  });
});

describe('prepareRecords', () => {
  const ok: ProjectRecordInput = { ref: { registry: 'Verra', projectId: 1 }, format: 'registry-json', raw: { a: 1 } };

  it('serialises each record once with its hash', () => {
    expect(prepareRecords([ok, { ...ok, format: 'csv:verra' }])).toEqual([
      { registry: 'Verra', projectId: 1, format: 'registry-json', rawJson: '{"a":1}', rawHash: canonicalHash({ a: 1 }) },
      expect.objectContaining({ format: 'csv:verra' }),
    ]);
  });

  it('rejects the whole batch for one bad record, naming its index and the value received', () => {
    expect(() => prepareRecords([ok, { ...ok, ref: { registry: 'Verra', projectId: 0 } }])).toThrow(
      'records[1].ref.projectId must be a positive integer (got 0)',
    );
    expect(() => prepareRecords([{ ...ok, format: 'csv:' as 'csv:x' }])).toThrow(/records\[0\]\.format must be/);
    expect(() => prepareRecords([{ ...ok, raw: [] as unknown as Record<string, unknown> }])).toThrow(
      /records\[0\]\.raw must be a JSON object/,
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => prepareRecords([{ ...ok, raw: cyclic }])).toThrow(/cannot be stored as JSON/);
    expect(() => prepareRecords('x' as unknown as ProjectRecordInput[])).toThrow(/expects an array/);
  });
});

describe('input checks', () => {
  it('checkRef names where the reference is and what was wrong', () => {
    expect(() => checkRef(null, 'ref')).toThrow('ref must be {registry, projectId} (got null)');
    expect(() => checkRef({ registry: ' ', projectId: 1 }, 'ref')).toThrow('ref.registry must be a non-empty string (got " ")');
    expect(() => checkRef({ registry: 'Verra', projectId: 1.5 }, 'ref')).toThrow(/projectId must be a positive integer/);
    expect(() => checkRef({ registry: 'Verra', projectId: 1 }, 'ref')).not.toThrow();
  });

  it('checkDocumentState names the document and the first bad field, cutting a long value', () => {
    const state: DocumentStateInput = {
      registry: 'Verra',
      projectId: 1,
      documentId: 'd',
      uri: 'u',
      title: 't',
      documentType: 'Other',
      uploadDate: null,
      status: 'indexed',
      reason: null,
      contentHash: null,
      pages: 3,
      chunks: null,
      embedderId: null,
    };
    expect(() => checkDocumentState(state)).not.toThrow();
    expect(() => checkDocumentState({ ...state, status: 'done' as 'indexed' })).toThrow(
      /Verra:1\/d: status must be one of pending, indexed/,
    );
    expect(() => checkDocumentState({ ...state, pages: -1 })).toThrow(/pages must be a non-negative integer or null \(got -1\)/);
    expect(() => checkDocumentState({ ...state, reason: 'x'.repeat(200) as string, title: 5 as unknown as string })).toThrow(
      /title must be a string \(got 5\)/,
    );
    expect(() => checkPages(['a', 2])).toThrow('pages[1] must be a string (got 2)');
  });
});

describe('runsOfDistinctKeys', () => {
  it('starts a new run when a key repeats or the run is full, keeping order', () => {
    const runs = runsOfDistinctKeys(['a1', 'b1', 'a2', 'c1', 'd1', 'e1'], (s) => s[0] ?? '', 3);
    expect(runs).toEqual([['a1', 'b1'], ['a2', 'c1', 'd1'], ['e1']]);
    expect(runsOfDistinctKeys([], (s: string) => s, 3)).toEqual([]);
  });
});

describe('rows of either driver', () => {
  it('reads BIGINT strings and Dates (node-postgres) as numbers and ISO text (better-sqlite3)', () => {
    const row = {
      registry: 'Verra',
      project_id: '9007199254740991',
      document_id: 'd',
      uri: 'u',
      title: 't',
      document_type: 'Other',
      upload_date: null,
      status: 'indexed' as const,
      reason: null,
      content_hash: 'h',
      pages: 2,
      chunks: 4,
      ocr_pages: 0,
      embedder_id: 'use',
      updated_at: new Date('2026-11-24T00:00:00Z'),
    };
    const s = documentStateFromRow(row);
    expect(s).toMatchObject({ projectId: 9007199254740991, updatedAt: '2026-11-24T00:00:00.000Z' });
    expect(s).not.toHaveProperty('ocrPages');
    expect(documentStateFromRow({ ...row, ocr_pages: 2 }).ocrPages).toBe(2);
    const p = storedProjectFromRow({
      registry: 'Verra',
      project_id: 5,
      format: 'registry-json',
      raw_json: '{"a":1}',
      enrichment_json: '[]',
      hidden: 1,
      updated_at: 't',
    });
    expect(p).toEqual({
      ref: { registry: 'Verra', projectId: 5 },
      format: 'registry-json',
      raw: { a: 1 },
      enrichment: {},
      hidden: true,
      updatedAt: 't',
    });
    expect(parseJsonObject('null')).toEqual({});
  });

  it('mergeEnrichment replaces only the fields a patch defines', () => {
    expect(mergeEnrichment({ summary: 'a', issuances: 1 }, { issuances: 2, summary: undefined })).toEqual({ summary: 'a', issuances: 2 });
  });
});
