import { configDefaults, defineConfig } from 'vitest/config';
import { corpusAvailable, corpusDir } from './test/support/corpus.js';

/**
 * Test files that read ../shared/corpus when they load or through the HTTP fixture's records (test/http/fixture.ts),
 * so they cannot skip test by test. Without the corpus they are left out with one message, as the README promises;
 * with REQUIRE_SERVICES=1 (CI) its absence is an error. A new file of that kind belongs here; files that guard their
 * corpus tests themselves (describeWithService) do not.
 */
const CORPUS_FILES = [
  'test/adapters/sqlite/cross-process.test.ts',
  'test/adapters/sqlite/record-store.test.ts',
  'test/domain/derive-cleaned.test.ts',
  'test/domain/lenient-raw-record.test.ts',
  'test/e2e/server.test.ts',
  'test/http/routes/batch-metadata.test.ts',
  'test/http/routes/batch-search.test.ts',
  'test/http/middleware/json-body.test.ts',
  'test/services/metadata.test.ts',
  'test/http/routes/metadata.test.ts',
  'test/http/openapi.test.ts',
  'test/http/app.test.ts',
  'test/http/middleware/auth.test.ts',
  'test/http/middleware/request-context.test.ts',
  'test/http/routes/demo-documents.test.ts',
  'test/http/routes/health.test.ts',
  'test/ingest/records.test.ts',
];

const corpusMissing = !corpusAvailable;
if (corpusMissing) {
  const why = `the corpus is not at ${corpusDir} (clone the repository beside shared/, or set CORPUS_DIR)`;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${why}; required by REQUIRE_SERVICES=1`);
  process.stderr.write(`vitest: ${CORPUS_FILES.length} test files skipped: ${why}\n`);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(corpusMissing ? CORPUS_FILES : [])],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites share PostgreSQL databases and CPU-heavy models; files run in parallel, tests inside a file in order.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2 } },
  },
});
