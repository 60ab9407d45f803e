import { describe, expect, it } from 'vitest';
import { runScript } from '../support/processes.js';

/** `npm run worker`'s refusals, through the real entry point. */
describe('npm run worker', () => {
  it('says the queue needs DATABASE_URL and exits 1 without it', async () => {
    const r = await runScript('ingest/worker-main.ts', [], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/DATABASE_URL is not set\. The job queue lives in PostgreSQL; without it, `npm run ingest` processes/);
  });

  it('exits 2 on a bad --concurrency, with the usage', async () => {
    const r = await runScript('ingest/worker-main.ts', ['--concurrency', '0'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--concurrency must be an integer from 1 to 64, got 0/);
    expect(r.stderr).toMatch(/Usage: npm run worker/);
  });

  it('exits 1 naming the setting when the configuration is bad', async () => {
    const r = await runScript('ingest/worker-main.ts', [], { DATABASE_URL: 'postgres://127.0.0.1:5432/x', INGEST_JOB_LEASE_SECONDS: '1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/INGEST_JOB_LEASE_SECONDS/);
  });
});
