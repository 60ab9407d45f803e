import { afterAll, expect, it } from 'vitest';
import { createPgPool, type PgPool } from '../../../src/adapters/postgres/database.js';
import { pgAvailability } from '../../contract/store-backends.js';
import { describeWithService, postgresUrl } from '../../support/services.js';

describeWithService('PostgreSQL pool', pgAvailability, () => {
  let pool: PgPool | undefined;
  afterAll(async () => {
    await pool?.end();
  });

  it('cancels a statement that runs past the statement timeout, and stays usable', async () => {
    pool = createPgPool(postgresUrl as string, { max: 1, statementTimeoutMs: 200 });
    await expect(pool.query('SELECT pg_sleep(2)')).rejects.toThrow(/statement timeout/);
    const { rows } = await pool.query<{ n: number }>('SELECT 1 AS n');
    expect(rows[0]?.n).toBe(1);
  });
});
