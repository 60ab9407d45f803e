import { createHash } from 'node:crypto';
import type { ProjectEnrichment } from '../domain/cleaned-record.js';
import type { ProjectRef } from '../domain/project-ref.js';
import type { DocumentState, DocumentStateInput, DocumentStatus } from '../ports/document-state-store.js';
import type { ProjectRecordInput, RecordFormat, StoredProject } from '../ports/record-store.js';

/**
 * Pieces the SQLite and PostgreSQL stores share, so both backends agree on what "unchanged" means and reject the
 * same bad inputs with the same messages.
 */

/** JSON with object keys sorted at every level: two records that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const src = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(src).sort()) out[key] = sortKeys(src[key]);
    return out;
  }
  return value;
}

export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** Fields of `patch` that are defined replace those of `current`; undefined fields leave them as they are. */
export function mergeEnrichment(current: ProjectEnrichment, patch: ProjectEnrichment): ProjectEnrichment {
  const out: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value !== undefined) out[key] = value;
  }
  return out as ProjectEnrichment;
}

export function parseJsonObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const s = JSON.stringify(value);
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  } catch {
    return String(value);
  }
}

/** Throws a TypeError naming `where` and the value received unless `ref` is a usable project reference. */
export function checkRef(ref: unknown, where: string): asserts ref is ProjectRef {
  if (ref === null || typeof ref !== 'object') throw new TypeError(`${where} must be {registry, projectId} (got ${describe(ref)})`);
  const r = ref as Record<string, unknown>;
  if (typeof r.registry !== 'string' || r.registry.trim() === '') {
    throw new TypeError(`${where}.registry must be a non-empty string (got ${describe(r.registry)})`);
  }
  if (typeof r.projectId !== 'number' || !Number.isSafeInteger(r.projectId) || r.projectId <= 0) {
    throw new TypeError(`${where}.projectId must be a positive integer (got ${describe(r.projectId)})`);
  }
}

export interface PreparedRecord {
  registry: string;
  projectId: number;
  format: string;
  rawJson: string;
  rawHash: string;
}

/**
 * Validates a batch before anything is written (a bad record rejects the whole call, naming its index) and
 * serialises each raw record once.
 */
export function prepareRecords(records: readonly ProjectRecordInput[]): PreparedRecord[] {
  if (!Array.isArray(records)) throw new TypeError(`upsert expects an array of records (got ${describe(records)})`);
  return records.map((rec, i) => {
    const where = `records[${i}]`;
    if (rec === null || typeof rec !== 'object') throw new TypeError(`${where} must be an object (got ${describe(rec)})`);
    checkRef(rec.ref, `${where}.ref`);
    if (typeof rec.format !== 'string' || !(rec.format === 'registry-json' || /^csv:.+/.test(rec.format))) {
      throw new TypeError(`${where}.format must be "registry-json" or "csv:<source>" (got ${describe(rec.format)})`);
    }
    if (rec.raw === null || typeof rec.raw !== 'object' || Array.isArray(rec.raw)) {
      throw new TypeError(`${where}.raw must be a JSON object (got ${describe(rec.raw)})`);
    }
    let rawJson: string;
    try {
      rawJson = JSON.stringify(rec.raw);
    } catch (err) {
      throw new TypeError(`${where}.raw cannot be stored as JSON: ${(err as Error).message}`);
    }
    return {
      registry: rec.ref.registry,
      projectId: rec.ref.projectId,
      format: rec.format,
      rawJson,
      rawHash: canonicalHash(rec.raw),
    };
  });
}

export function checkEnrichment(patch: unknown): asserts patch is ProjectEnrichment {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
    throw new TypeError(`enrichment patch must be an object (got ${describe(patch)})`);
  }
}

export const DOCUMENT_STATUSES: readonly DocumentStatus[] = ['pending', 'indexed', 'failed', 'skipped', 'needs_ocr'];

const nullableString = (v: unknown): boolean => v === null || typeof v === 'string';
const nullableCount = (v: unknown): boolean => v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);

/** Throws a TypeError naming the first bad field of a document state, with the value received. */
export function checkDocumentState(state: DocumentStateInput): void {
  if (state === null || typeof state !== 'object') throw new TypeError(`document state must be an object (got ${describe(state)})`);
  checkRef(state, 'document state');
  const fail = (field: string, expected: string): never => {
    throw new TypeError(
      `document state ${state.registry}:${state.projectId}/${String(state.documentId)}: ${field} must be ${expected} ` +
        `(got ${describe((state as unknown as Record<string, unknown>)[field])})`,
    );
  };
  if (typeof state.documentId !== 'string' || state.documentId === '') fail('documentId', 'a non-empty string');
  if (typeof state.uri !== 'string') fail('uri', 'a string');
  if (typeof state.title !== 'string') fail('title', 'a string');
  if (typeof state.documentType !== 'string') fail('documentType', 'a string');
  if (!nullableString(state.uploadDate)) fail('uploadDate', 'a string or null');
  if (!DOCUMENT_STATUSES.includes(state.status)) fail('status', `one of ${DOCUMENT_STATUSES.join(', ')}`);
  if (!nullableString(state.reason)) fail('reason', 'a string or null');
  if (!nullableString(state.contentHash)) fail('contentHash', 'a string or null');
  if (!nullableCount(state.pages)) fail('pages', 'a non-negative integer or null');
  if (!nullableCount(state.chunks)) fail('chunks', 'a non-negative integer or null');
  if (state.ocrPages !== undefined && !nullableCount(state.ocrPages)) fail('ocrPages', 'a non-negative integer or absent');
  if (!nullableString(state.embedderId)) fail('embedderId', 'a string or null');
}

export function checkDocumentId(documentId: unknown): asserts documentId is string {
  if (typeof documentId !== 'string' || documentId === '') {
    throw new TypeError(`documentId must be a non-empty string (got ${describe(documentId)})`);
  }
}

export function checkPages(pages: unknown): asserts pages is string[] {
  if (!Array.isArray(pages)) throw new TypeError(`pages must be an array of strings (got ${describe(pages)})`);
  pages.forEach((p, i) => {
    if (typeof p !== 'string') throw new TypeError(`pages[${i}] must be a string (got ${describe(p)})`);
  });
}

/** Splits `items` into runs in which no key repeats, keeping order: a key seen again starts the next run. */
export function runsOfDistinctKeys<T>(items: readonly T[], key: (item: T) => string, maxRun: number): T[][] {
  const runs: T[][] = [];
  let current: T[] = [];
  let seen = new Set<string>();
  for (const item of items) {
    const k = key(item);
    if (seen.has(k) || current.length >= maxRun) {
      runs.push(current);
      current = [];
      seen = new Set();
    }
    seen.add(k);
    current.push(item);
  }
  if (current.length > 0) runs.push(current);
  return runs;
}

/**
 * A `document_states` row as either driver returns it: node-postgres gives BIGINT as a string and TIMESTAMPTZ as a
 * Date, better-sqlite3 gives numbers and the stored ISO text.
 */
export type DocumentStateRow = {
  registry: string;
  project_id: number | string;
  document_id: string;
  uri: string;
  title: string;
  document_type: string;
  upload_date: string | null;
  status: DocumentStatus;
  reason: string | null;
  content_hash: string | null;
  pages: number | null;
  chunks: number | null;
  /** Absent in a row read before the column existed (never: a migration adds it with 0). */
  ocr_pages?: number | null;
  embedder_id: string | null;
  updated_at: string | Date;
};

const isoTime = (t: string | Date): string => (t instanceof Date ? t.toISOString() : t);

export function documentStateFromRow(row: DocumentStateRow): DocumentState {
  return {
    registry: row.registry,
    projectId: Number(row.project_id),
    documentId: row.document_id,
    uri: row.uri,
    title: row.title,
    documentType: row.document_type,
    uploadDate: row.upload_date,
    status: row.status,
    reason: row.reason,
    contentHash: row.content_hash,
    pages: row.pages,
    chunks: row.chunks,
    ...(row.ocr_pages ? { ocrPages: row.ocr_pages } : {}),
    embedderId: row.embedder_id,
    updatedAt: isoTime(row.updated_at),
  };
}

/** A `projects` row as either driver returns it (`hidden` is a BOOLEAN in PostgreSQL, 0/1 in SQLite). */
export type ProjectRow = {
  registry: string;
  project_id: number | string;
  format: string;
  raw_json: string;
  enrichment_json: string;
  hidden: boolean | number;
  updated_at: string | Date;
};

export function storedProjectFromRow(row: ProjectRow): StoredProject {
  return {
    ref: { registry: row.registry, projectId: Number(row.project_id) },
    format: row.format as RecordFormat,
    raw: parseJsonObject(row.raw_json),
    enrichment: parseJsonObject(row.enrichment_json) as ProjectEnrichment,
    hidden: row.hidden === true || row.hidden === 1,
    updatedAt: isoTime(row.updated_at),
  };
}
