import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { afterEach } from 'vitest';
import { importRecords } from '../../ingest/records.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import type { AppDeps } from '../../src/http/types.js';
import type { AppEnv } from '../../src/http/env.js';
import type { Logger } from '../../src/logger.js';
import type { RecordStore } from '../../src/ports/record-store.js';
import { createMetadataService } from '../../src/services/metadata.js';
import { corpusPath } from '../support/corpus.js';

/** The corpus's seven raw records (Verra 5533 and 1000000, CDM 1, 547 and 9199, Regen 6006 and 6007). */
export const EVAL_RECORDS = corpusPath('records', 'eval-projects.raw.jsonl');

export interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  err?: { type?: string; message?: string; stack?: string };
  [key: string]: unknown;
}

/** A pino logger writing JSON lines into an array, so tests can check what was logged. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

export interface TestApp {
  app: OpenAPIHono<AppEnv>;
  records: RecordStore;
  db: SqliteDatabase;
  logs: LogLine[];
  close(): Promise<void>;
}

/**
 * The real app over a real SQLite store in a temp DATA_DIR holding the corpus records. `env` is read by the real
 * loadConfig; `override` swaps deps (a failing service for the 500 test, extra readiness checks).
 */
export async function createTestApp(env: Record<string, string> = {}, override: (deps: AppDeps) => AppDeps = (d) => d): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'h3-http-'));
  const config = loadConfig({ DEMO_DATA: 'false', DATA_DIR: dataDir, MAX_BODY_BYTES: '4096', ...env });
  const { logger, lines } = captureLogger();
  const db = openSqlite({ dataDir });
  const records = await createSqliteRecordStore({ db });
  const imported = await importRecords(records, EVAL_RECORDS);
  if (imported.failed.length > 0 || imported.inserted !== 7) {
    throw new Error(`fixture import went wrong: ${JSON.stringify(imported)}`);
  }
  const deps: AppDeps = {
    config,
    logger,
    metadata: createMetadataService({ records, countries: createCountryLookup() }),
    readiness: [{ name: 'record store', check: () => records.ping() }],
  };
  const app = createApp(override(deps));
  return {
    app,
    records,
    db,
    logs: lines,
    async close() {
      await records.close();
      if (db.open) db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** createTestApp for a test file: every app it opens is closed after each test. Call at the top of the file. */
export function testAppsClosedAfterEach(): (...args: Parameters<typeof createTestApp>) => Promise<TestApp> {
  const open: TestApp[] = [];
  afterEach(async () => {
    for (const t of open.splice(0)) await t.close();
  });
  return async (...args) => {
    const t = await createTestApp(...args);
    open.push(t);
    return t;
  };
}

/** POST a JSON body (or raw text, when `body` is a string) with the given headers. */
export function postJson(app: OpenAPIHono<AppEnv>, p: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return Promise.resolve(
    app.request(p, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

export interface ErrorJson {
  error: { code: string; message: string; details: Array<Record<string, unknown>>; requestId?: string };
}

/** Reads an error response, checking the shape every error shares (CONTRACT 3). */
export async function errorOf(res: Response): Promise<ErrorJson['error']> {
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('application/json')) throw new Error(`error response is not JSON: ${type}`);
  const body = (await res.json()) as ErrorJson;
  if (typeof body.error?.code !== 'string' || typeof body.error.message !== 'string' || !Array.isArray(body.error.details)) {
    throw new Error(`not an error body: ${JSON.stringify(body)}`);
  }
  return body.error;
}

/** Top-level keys of a JSON object in the order the text has them (JSON.parse would sort integer-like keys). */
export function topLevelKeysInOrder(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const str = JSON.parse(text.slice(i, j + 1)) as string;
      if (depth === 1 && text[j + 1] === ':') keys.push(str);
      i = j + 1;
      continue;
    }
    if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') depth--;
    i++;
  }
  return keys;
}
