import { expect, it } from 'vitest';
import { createPgPool } from '../../../src/adapters/postgres/database.js';
import { createPgRecordStore } from '../../../src/adapters/postgres/record-store.js';
import { pgFailure } from '../../../src/adapters/postgres/store-errors.js';
import { DependencyError } from '../../../src/errors.js';
import { pgAvailability } from '../../contract/store-backends.js';
import { describeWithService, postgresUrl } from '../../support/services.js';

const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

describeWithService('PostgreSQL failures the API must answer with 503', pgAvailability, () => {
  it('a database that does not exist is a DependencyError that retrying will not fix', async () => {
    const url = new URL(postgresUrl ?? '');
    url.pathname = '/h2_no_such_database_for_sure';
    const pool = createPgPool(url.toString(), { max: 1 });
    try {
      const err = await rejection(createPgRecordStore({ pool }));
      expect(err).toBeInstanceOf(DependencyError);
      expect((err as DependencyError).dependency).toBe('record store');
      expect((err as DependencyError).retryable).toBe(false);
      expect((err as DependencyError).message).toMatch(/record store unavailable \(PostgreSQL\): .*does not exist/);
    } finally {
      await pool.end();
    }
  });

  it('a refused connection is a retryable DependencyError; a statement error passes through', async () => {
    const dead = createPgPool('postgres://postgres@127.0.0.1:1/x', { max: 1 });
    const live = createPgPool(postgresUrl ?? '', { max: 1 });
    try {
      const refused = pgFailure('record store', await rejection(dead.query('SELECT 1')));
      expect(refused).toBeInstanceOf(DependencyError);
      expect((refused as DependencyError).retryable).toBe(true);
      const syntax = await rejection(live.query('SELEC 1'));
      expect(pgFailure('record store', syntax)).toBe(syntax);
    } finally {
      await dead.end();
      await live.end();
    }
  });
});
