import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of eslint.config.js, shown to fail on deliberate violations (issue "The house"): each case lints
 * one import as if it were written in the named file, and expects `no-restricted-imports` to report it, or not.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });

async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const x = 1;\n`, { filePath: path.join(root, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering lint rules', () => {
  const violations: [string, string, RegExp][] = [
    ['src/domain/x.ts', "import type { VectorIndex } from '../ports/vector-index.js';", /src\/domain imports nothing/],
    ['src/domain/x.ts', "import { createSqliteRecordStore } from '../adapters/sqlite/record-store.js';", /src\/domain imports nothing/],
    ['src/domain/x.ts', "import { createSearchService } from '../services/search.js';", /src\/domain imports nothing/],
    ['src/domain/x.ts', "import { loadConfig } from '../config.js';", /src\/domain is pure/],
    [
      'src/domain/registry-exports/x.ts',
      "import type { CountryLookup } from '../../ports/country-lookup.js';",
      /src\/domain imports nothing/,
    ],
    ['src/services/x.ts', "import { createSqliteRecordStore } from '../adapters/sqlite/record-store.js';", /composition roots/],
    ['src/services/x.ts', "import { createApp } from '../http/app.js';", /do not know the HTTP layer/],
    ['src/adapters/sqlite/x.ts', "import { loadConfig } from '../../config.js';", /take their own options/],
    ['src/adapters/x.ts', "import { createSearchService } from '../services/search.js';", /implement ports/],
    ['src/http/routes/x.ts', "import { createSqliteRecordStore } from '../../adapters/sqlite/record-store.js';", /composition roots/],
    ['src/ports/x.ts', "import type { Database } from '../adapters/sqlite/database.js';", /interfaces over domain types/],
    ['ingest/stages/x.ts', "import { createVerraClient } from '../../src/adapters/verra/registry-client.js';", /composition roots/],
    ['src/http/app.ts', "import { runIngest } from '../../ingest/pipeline.js';", /only through ingest\/demo\.ts/],
    ['src/main.ts', "import { runIngest } from '../ingest/pipeline.js';", /only through ingest\/demo\.ts/],
    ['src/mcp/tools/x.ts', "import { createSqliteRecordStore } from '../../adapters/sqlite/record-store.js';", /composition roots/],
    ['src/mcp/server.ts', "import { seedDemo } from '../../ingest/demo.js';", /only through ingest\/demo\.ts/],
    ['src/mcp/main.ts', "import { runIngest } from '../../ingest/pipeline.js';", /only through ingest\/demo\.ts/],
  ];
  it.each(violations)('%s: %s is reported', async (file, code, message) => {
    const messages = await restricted(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(message);
  });

  const allowed: [string, string][] = [
    ['src/domain/x.ts', "import { projectKey } from './project-ref.js';"],
    ['src/services/x.ts', "import type { VectorIndex } from '../ports/vector-index.js';"],
    ['src/adapters/sqlite/x.ts', "import type { RecordStore } from '../../ports/record-store.js';"],
    ['src/deps.ts', "import { createSqliteRecordStore } from './adapters/sqlite/record-store.js';"],
    ['ingest/deps.ts', "import { createVerraClient } from '../src/adapters/verra/registry-client.js';"],
    ['src/main.ts', "import { seedDemo } from '../ingest/demo.js';"],
    ['src/mcp/main.ts', "import { seedDemo } from '../../ingest/demo.js';"],
    ['src/mcp/tools/x.ts', "import type { SearchService } from '../../services/search.js';"],
  ];
  it.each(allowed)('%s: %s is allowed', async (file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });
});
