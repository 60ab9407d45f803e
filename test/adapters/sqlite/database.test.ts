import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../src/adapters/sqlite/database.js';

/** A DATA_DIR that cannot hold the database is named in the error, not left to SQLite's pathless message. */
describe('openSqlite with an unusable DATA_DIR', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sqlite-open-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('names a DATA_DIR that is a file', () => {
    const file = path.join(dir, 'data');
    writeFileSync(file, 'not a folder');
    expect(() => openSqlite({ dataDir: file })).toThrow(`cannot use DATA_DIR ${file} for the SQLite database: it is a file, not a folder`);
    // ... or whose parent is one.
    expect(() => openSqlite({ dataDir: path.join(file, 'below') })).toThrow(
      /cannot use DATA_DIR .*data\/below for the SQLite database: it is a file/,
    );
  });

  it('names the database file and DATA_DIR when SQLite cannot open the file', () => {
    // The database path is taken by a folder: SQLite says only "unable to open database file".
    mkdirSync(path.join(dir, 'carbon-docs.sqlite'));
    expect(() => openSqlite({ dataDir: dir })).toThrow(
      `cannot open the SQLite database ${path.join(dir, 'carbon-docs.sqlite')} (DATA_DIR ${dir}): unable to open database file; ` +
        'DATA_DIR must be a folder this process can write',
    );
  });
});
