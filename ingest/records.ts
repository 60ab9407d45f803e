import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { projectKey } from '../src/domain/project-ref.js';
import { rawRecordSchema } from '../src/domain/raw-record.js';
import { canonicalRegistry, knownRegistryNames } from '../src/domain/registries.js';
import type { Logger } from '../src/logger.js';
import type { ProjectRecordInput, RecordStore } from '../src/ports/record-store.js';

/**
 * Import of registry records (SPEC 2.4 shape plus `registry`) from JSON / JSONL files into the record store.
 * Every record is checked on its own: a malformed one is reported with its file and line (or array index) and the
 * others are still imported. Re-importing is idempotent (the store reports unchanged records).
 */

/** One record read from a file: `source` is `file:line` (JSONL), `file#index` (JSON array) or `file` (JSON object). */
export interface RecordReadResult {
  source: string;
  record?: ProjectRecordInput;
  error?: string;
}

export interface ReadRecordsOptions {
  /** Registry of records that carry no `registry` field (e.g. `Verra`); without it such records fail. */
  defaultRegistry?: string;
  /** Replaces `{BASE}` in every document uri (the corpus and demo records use it for where PDFs are served). */
  replaceBase?: string;
}

export interface ImportRecordsOptions extends ReadRecordsOptions {
  logger?: Logger;
  /** Records per store.upsert call. @default 500 */
  batchSize?: number;
}

export interface ImportRecordsResult {
  inserted: number;
  updated: number;
  unchanged: number;
  failed: { source: string; error: string }[];
  /**
   * Document uris that still hold a `{...}` placeholder after `replaceBase` (`{BASE}` without --replace-base, or
   * another name): they cannot be downloaded. One entry per uri, in reading order.
   */
  placeholders: { source: string; project: string; uri: string }[];
}

/** A `{NAME}` placeholder left in a document uri (the corpus and demo records use `{BASE}`). */
export const URI_PLACEHOLDER = /\{[A-Za-z_][\w-]*\}/;

const JSONL_EXT = new Set(['.jsonl', '.ndjson']);
const JSON_EXT = new Set(['.json']);
const BASE_PLACEHOLDER = '{BASE}';

/** Files an import reads for `inputPath`: the file itself, or every *.json / *.jsonl directly in the folder, sorted. */
export async function recordFiles(inputPath: string): Promise<string[]> {
  let info;
  try {
    info = await stat(inputPath);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `records path not found: ${inputPath}` : `cannot read records path ${inputPath}: ${String(err)}`);
  }
  if (info.isFile()) {
    const ext = path.extname(inputPath).toLowerCase();
    if (!JSONL_EXT.has(ext) && !JSON_EXT.has(ext)) {
      throw new Error(`unsupported records file ${inputPath}: expected a .json, .jsonl or .ndjson file`);
    }
    return [inputPath];
  }
  if (!info.isDirectory()) throw new Error(`records path is neither a file nor a folder: ${inputPath}`);
  const entries = await readdir(inputPath, { withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && (JSONL_EXT.has(path.extname(e.name).toLowerCase()) || JSON_EXT.has(path.extname(e.name).toLowerCase())))
    .map((e) => e.name)
    .sort()
    .map((name) => path.join(inputPath, name));
  if (files.length === 0) throw new Error(`no *.json or *.jsonl files in folder ${inputPath}`);
  return files;
}

function canonicalDefault(defaultRegistry: string | undefined): string | undefined {
  if (defaultRegistry === undefined) return undefined;
  const canonical = canonicalRegistry(defaultRegistry);
  if (canonical === null) {
    throw new Error(`unknown default registry "${defaultRegistry}" (known: ${knownRegistryNames().join(', ')})`);
  }
  return canonical;
}

function short(value: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Checks one parsed JSON value and turns it into a record for the store, or says what is wrong with it.
 * `defaultRegistry` must already be canonical.
 */
export function toRecordInput(
  value: unknown,
  opts: { defaultRegistry?: string; replaceBase?: string },
): { record: ProjectRecordInput } | { error: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { error: `expected a JSON object (a raw project record), got ${kindOf(value)}` };
  }
  const input = value as Record<string, unknown>;

  let registry: string;
  const given = input.registry;
  if (given === undefined || given === null) {
    if (opts.defaultRegistry === undefined) {
      return { error: 'missing "registry": the record does not name its registry and no default registry was given (--registry <name>)' };
    }
    registry = opts.defaultRegistry;
  } else if (typeof given !== 'string' || given.trim() === '') {
    return { error: `"registry" must be a registry name (got ${short(given)})` };
  } else {
    const canonical = canonicalRegistry(given);
    if (canonical === null) return { error: `unknown registry "${given}" (known: ${knownRegistryNames().join(', ')})` };
    registry = canonical;
  }

  const id = input.resourceIdentifier;
  if (id === undefined || id === null) return { error: 'missing "resourceIdentifier" (the project id)' };
  const projectId = typeof id === 'number' ? id : typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(projectId) || projectId <= 0) {
    return { error: `"resourceIdentifier" must be a positive integer or a string of digits (got ${short(id)})` };
  }

  const parsed = rawRecordSchema.safeParse({ ...input, registry, resourceIdentifier: String(projectId) });
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const listed = issues
      .slice(0, 5)
      .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(record)'}: ${i.message}`)
      .join('; ');
    return { error: `invalid record: ${listed}${issues.length > 5 ? `; and ${issues.length - 5} more` : ''}` };
  }
  // The input's own key order first (raw responses keep it), then the fields the schema fills in with defaults.
  const raw: Record<string, unknown> = { ...input, ...parsed.data };
  if (opts.replaceBase !== undefined) {
    const base = opts.replaceBase.replace(/\/+$/, '');
    raw.documentGroups = parsed.data.documentGroups.map((g) => ({
      ...g,
      documents: g.documents.map((d) => ({ ...d, uri: d.uri.split(BASE_PLACEHOLDER).join(base) })),
    }));
  }
  return { record: { ref: { registry, projectId }, format: 'registry-json', raw } };
}

function failure(source: string, error: string): RecordReadResult {
  return { source, error };
}

async function* readJsonl(file: string, opts: { defaultRegistry?: string; replaceBase?: string }): AsyncGenerator<RecordReadResult> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const rawLine of lines) {
    lineNo++;
    const line = lineNo === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
    if (line.trim() === '') continue;
    const source = `${file}:${lineNo}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      yield failure(source, `invalid JSON: ${(err as Error).message.slice(0, 200)}`);
      continue;
    }
    yield { source, ...toRecordInput(value, opts) };
  }
}

async function* readJson(file: string, opts: { defaultRegistry?: string; replaceBase?: string }): AsyncGenerator<RecordReadResult> {
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const hint = text.trimStart().startsWith('{') && text.trim().includes('\n{') ? ' (one record per line? name it .jsonl)' : '';
    yield failure(file, `invalid JSON: ${(err as Error).message.slice(0, 200)}${hint}`);
    return;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield { source: `${file}#${i}`, ...toRecordInput(item, opts) };
    return;
  }
  yield { source: file, ...toRecordInput(value, opts) };
}

/**
 * Reads records from a .json file (one record or an array), a .jsonl file (one record per line) or a folder (every
 * *.json / *.jsonl in it, sorted by name). Throws only for a path that cannot be used at all; a file that cannot be
 * read or parsed, or a record that fails validation, is yielded as an error and reading goes on.
 */
export async function* readRecordFiles(inputPath: string, opts: ReadRecordsOptions = {}): AsyncGenerator<RecordReadResult> {
  const recordOpts = { defaultRegistry: canonicalDefault(opts.defaultRegistry), replaceBase: opts.replaceBase };
  for (const file of await recordFiles(inputPath)) {
    const ext = path.extname(file).toLowerCase();
    try {
      yield* JSONL_EXT.has(ext) ? readJsonl(file, recordOpts) : readJson(file, recordOpts);
    } catch (err) {
      // An I/O error part-way (permissions, a file removed while reading): report it, go on with the next file.
      yield failure(file, `cannot read file: ${(err as Error).message}`);
    }
  }
}

/** The record's document uris that still hold a placeholder. */
function placeholderUris(record: ProjectRecordInput): string[] {
  const groups = Array.isArray(record.raw.documentGroups) ? (record.raw.documentGroups as unknown[]) : [];
  const out: string[] = [];
  for (const g of groups) {
    const docs =
      typeof g === 'object' && g !== null && Array.isArray((g as { documents?: unknown }).documents)
        ? (g as { documents: unknown[] }).documents
        : [];
    for (const d of docs) {
      const uri = typeof d === 'object' && d !== null ? (d as { uri?: unknown }).uri : undefined;
      if (typeof uri === 'string' && URI_PLACEHOLDER.test(uri)) out.push(uri);
    }
  }
  return out;
}

/**
 * Reads every record under `inputPath` and upserts the valid ones in batches. The result counts what the store did
 * and lists each record that could not be imported with its source and reason. Store failures (DependencyError)
 * abort the import: it can be run again, since imports are idempotent.
 */
export async function importRecords(store: RecordStore, inputPath: string, opts: ImportRecordsOptions = {}): Promise<ImportRecordsResult> {
  const batchSize = opts.batchSize ?? 500;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error(`batchSize must be a positive integer (got ${batchSize})`);
  const log = opts.logger;
  const result: ImportRecordsResult = { inserted: 0, updated: 0, unchanged: 0, failed: [], placeholders: [] };
  const firstSeen = new Map<string, string>();
  let placeholderWarned = false;
  let batch: ProjectRecordInput[] = [];

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const r = await store.upsert(batch);
    result.inserted += r.inserted;
    result.updated += r.updated;
    result.unchanged += r.unchanged;
    log?.debug({ records: batch.length, ...r }, 'record batch stored');
    batch = [];
  };

  for await (const item of readRecordFiles(inputPath, opts)) {
    if (item.record === undefined) {
      const error = item.error ?? 'unreadable record';
      result.failed.push({ source: item.source, error });
      log?.warn({ source: item.source, error }, 'record not imported');
      continue;
    }
    const key = projectKey(item.record.ref);
    const earlier = firstSeen.get(key);
    if (earlier === undefined) firstSeen.set(key, item.source);
    else log?.warn({ source: item.source, project: key, firstAt: earlier }, 'project appears again; the later record wins');
    const unresolved = placeholderUris(item.record);
    for (const uri of unresolved) result.placeholders.push({ source: item.source, project: key, uri });
    if (!placeholderWarned && unresolved.length > 0) {
      placeholderWarned = true;
      log?.warn(
        { source: item.source, uri: unresolved[0] },
        opts.replaceBase === undefined && unresolved.some((u) => u.includes(BASE_PLACEHOLDER))
          ? `document uris contain ${BASE_PLACEHOLDER}; pass replaceBase to make them fetchable`
          : 'document uris still contain a {...} placeholder: they cannot be downloaded',
      );
    }
    batch.push(item.record);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  log?.info(
    { path: inputPath, inserted: result.inserted, updated: result.updated, unchanged: result.unchanged, failed: result.failed.length },
    'records imported',
  );
  return result;
}
