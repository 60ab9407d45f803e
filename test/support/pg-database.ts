import { randomBytes } from 'node:crypto';
import { createPgPool } from '../../src/adapters/postgres/database.js';

// As services.ts reads it (not imported: benchmarks use this file outside vitest).
const postgresUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** The test PostgreSQL's URL with another database name. */
export function urlWithDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the test PostgreSQL (DATABASE_URL / TEST_DATABASE_URL), for processes that share it. */
export async function createFreshDatabase(prefix = 'h2_test'): Promise<FreshDatabase> {
  if (postgresUrl === undefined) throw new Error('DATABASE_URL is not set');
  const admin = createPgPool(postgresUrl, { max: 1 });
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: urlWithDatabase(postgresUrl, name),
    async drop() {
      const a = createPgPool(postgresUrl as string, { max: 1 });
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
