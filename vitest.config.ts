import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites share PostgreSQL databases and CPU-heavy models; files run in parallel, tests inside a file in order.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2 } },
  },
});
