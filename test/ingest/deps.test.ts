import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCountryLookup, buildIngestDeps, buildIngestQueue, buildPdfExtractor, buildRegistryClient } from '../../ingest/deps.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { describeWithService, postgresUrl } from '../support/services.js';
import { createFreshDatabase, type FreshDatabase } from '../support/pg-database.js';
import { makePdf } from './support/make-pdf.js';

const logger = createLogger({ level: 'silent', name: 'test' });

describe("the worker's composition", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'ingest-deps-'));
  });
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('builds the embedded stores and the configured embedder, with no queue, and closes them', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, DEMO_DATA: 'false', EMBEDDER: 'use' });
    const deps = await buildIngestDeps(config, logger);
    try {
      expect(deps.backends).toEqual({ records: 'sqlite', index: 'sqlite' });
      expect(deps.embedder.dimensions).toBe(512);
      expect(deps.leases).toBeDefined();
      await deps.records.upsert([{ ref: { registry: 'Verra', projectId: 1 }, format: 'registry-json', raw: { a: 1 } }]);
      expect((await deps.records.get({ registry: 'Verra', projectId: 1 }))?.raw).toEqual({ a: 1 });
      expect(deps.countries.countryAt(23.33, 86.36)).toBe('India');
    } finally {
      await deps.close();
    }
    expect(await buildIngestQueue(config, logger)).toBeNull();
  }, 120_000);

  it('fails naming the model when the embedder cannot be built, leaving the data folder usable', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, DEMO_DATA: 'false', EMBEDDER: 'onnx:acme/missing-model', MODELS_DIR: dataDir });
    await expect(buildIngestDeps(config, logger)).rejects.toThrow(/acme\/missing-model/);
    const again = await buildIngestDeps(loadConfig({ DATA_DIR: dataDir, DEMO_DATA: 'false', EMBEDDER: 'use' }), logger);
    await again.close();
  }, 120_000);

  it('has a live registry client for Verra only, naming the way to import the others', () => {
    const config = { VERRA_BASE_URL: 'https://registry.verra.org' };
    expect(buildRegistryClient('verra', config).registry).toBe('Verra');
    expect(() => buildRegistryClient('Gold Standard', config)).toThrow(
      /no registry API client for "Gold Standard".*--export <registry> <csv>/,
    );
  });

  it('builds a PDF extractor under the EXTRACT_* limits', async () => {
    const extractor = buildPdfExtractor(loadConfig({ DATA_DIR: dataDir, EXTRACT_MAX_PAGES: '1' }));
    try {
      expect(await extractor.extract(makePdf(['One page of text, long enough to count.', 'Two.']))).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/more than the limit of 1/),
      });
    } finally {
      await extractor.close();
    }
    expect(buildCountryLookup().countryAt(-1.29, 36.82)).toBe('Kenya');
  }, 60_000);
});

describeWithService('the job queue with DATABASE_URL', { available: postgresUrl !== undefined, why: 'DATABASE_URL is not set' }, () => {
  let db: FreshDatabase;
  beforeAll(async () => {
    db = await createFreshDatabase('h2_ingest_deps');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('is the PostgreSQL queue, empty at first', async () => {
    const queue = await buildIngestQueue(loadConfig({ DATABASE_URL: db.url }), logger);
    if (queue === null) throw new Error('expected a queue');
    try {
      expect((await queue.status()).depth).toBe(0);
    } finally {
      await queue.close();
    }
  }, 60_000);
});
