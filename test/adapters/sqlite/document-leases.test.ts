import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteDocumentLeases } from '../../../src/adapters/sqlite/document-leases.js';
import { openSqlite, type SqliteDatabase } from '../../../src/adapters/sqlite/database.js';
import type { DocumentLeases } from '../../../src/ports/document-leases.js';
import { leaseHolderGone, newLeaseHolder } from '../../../ingest/lease-holder.js';

const ref = { registry: 'Verra', projectId: 4086 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('SQLite document leases', () => {
  let db: SqliteDatabase;
  let leases: DocumentLeases;
  beforeEach(async () => {
    db = openSqlite({ dataDir: ':memory:' });
    leases = await createSqliteDocumentLeases({ db });
  });
  afterEach(() => db.close());

  it('one holder at a time: the other is told who holds the document, until it is released', async () => {
    expect(await leases.claim(ref, 'doc1', 'a', 60_000)).toEqual({ taken: true });
    const refused = await leases.claim(ref, 'doc1', 'b', 60_000);
    expect(refused).toMatchObject({ taken: false, holder: 'a' });
    // Another document, or the same id in another project, is free.
    expect(await leases.claim(ref, 'doc2', 'b', 60_000)).toEqual({ taken: true });
    expect(await leases.claim({ registry: 'Verra', projectId: 1 }, 'doc1', 'b', 60_000)).toEqual({ taken: true });
    // The holder may claim again; the other may not release it.
    expect(await leases.claim(ref, 'doc1', 'a', 60_000)).toEqual({ taken: true });
    await leases.release(ref, 'doc1', 'b');
    expect((await leases.claim(ref, 'doc1', 'b', 60_000)).taken).toBe(false);
    await leases.release(ref, 'doc1', 'a');
    expect(await leases.claim(ref, 'doc1', 'b', 60_000)).toEqual({ taken: true });
  });

  it('a lease lapses unless renewed', async () => {
    await leases.claim(ref, 'doc1', 'a', 1000);
    await leases.claim(ref, 'doc2', 'a', 1000);
    await sleep(400);
    await leases.renew('a', 1000); // both now last until ~1400 ms
    await sleep(700);
    expect((await leases.claim(ref, 'doc1', 'b', 60_000)).taken).toBe(false);
    await sleep(800);
    expect(await leases.claim(ref, 'doc2', 'b', 60_000)).toEqual({ taken: true });
  });

  it('a lease of a holder known to be gone is taken over, once', async () => {
    await leases.claim(ref, 'doc1', 'dead', 60_000);
    expect(await leases.takeOver(ref, 'doc1', 'dead', 'b', 60_000)).toBe(true);
    expect(await leases.takeOver(ref, 'doc1', 'dead', 'c', 60_000)).toBe(false);
    expect(await leases.claim(ref, 'doc1', 'c', 60_000)).toMatchObject({ taken: false, holder: 'b' });
  });

  it('rejects bad arguments naming them', async () => {
    await expect(leases.claim(ref, 'doc1', '', 1000)).rejects.toThrow(/holder must be a non-empty string/);
    await expect(leases.claim(ref, 'doc1', 'a', 0)).rejects.toThrow(/ttlMs must be a positive integer/);
    await expect(leases.renew('a', 1.5)).rejects.toThrow(/ttlMs/);
  });
});

describe('lease holders', () => {
  it('a holder of this process is alive; a pid that does not run here is gone; another machine cannot be told', () => {
    const mine = newLeaseHolder();
    expect(mine).toMatch(new RegExp(`:${process.pid}:[0-9a-f]{8}$`));
    expect(leaseHolderGone(mine)).toBe(false);
    const host = mine.split(':').slice(0, -2).join(':');
    // Above Linux's largest pid (2^22), so no process has it.
    expect(leaseHolderGone(`${host}:${2 ** 22 + 1}:abcd1234`)).toBe(true);
    expect(leaseHolderGone(`another-host.example:${2 ** 22 + 1}:abcd1234`)).toBe(false);
    expect(leaseHolderGone('not a holder')).toBe(false);
  });
});
