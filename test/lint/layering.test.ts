import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The layering rules of eslint.config.js, each shown to report a planted violation (and to let the sound import
 * next to it pass): every case lints one line of code as if it were written in the named file of this tree.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });
const LAYERING_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax', 'layering/no-import-cycle']);

interface Finding {
  rule: string;
  message: string;
}

async function findings(filePath: string, code: string): Promise<Finding[]> {
  const [result] = await eslint.lintText(`${code}\nexport const x = 1;\n`, { filePath: path.join(root, filePath) });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId !== null && LAYERING_RULES.has(m.ruleId))
    .map((m) => ({ rule: m.ruleId ?? '', message: m.message }));
}

describe('layering lint rules', () => {
  // [file, planted code, rule expected, message expected]
  const violations: [string, string, string, RegExp][] = [
    // The five imports of the issue that the earlier configuration let through (or caught).
    [
      'src/domain/x.ts',
      "import { createSqliteRecordStore } from '../adapters/sqlite/record-store.js';",
      'no-restricted-imports',
      /src\/domain imports nothing/,
    ],
    ['src/http/routes/x.ts', "import { buildDeps } from '../../deps.js';", 'no-restricted-imports', /Only a composition root imports/],
    ['src/domain/x.ts', "import { readFileSync } from 'node:fs';", 'no-restricted-imports', /no I\/O modules/],
    [
      'src/services/x.ts',
      "const m = await import('../adapters/sqlite/record-store.js');",
      'no-restricted-syntax',
      /import\(\) of a project module/,
    ],
    ['src/ports/x.ts', "import type { IngestDeps } from '../../ingest/types.js';", 'no-restricted-imports', /no worker \(ingest\/\) types/],
    // Every other ban of each layer.
    [
      'src/domain/x.ts',
      "import type { VectorIndex } from '../ports/vector-index.js';",
      'no-restricted-imports',
      /src\/domain imports nothing/,
    ],
    [
      'src/domain/x.ts',
      "import { createSearchService } from '../services/search.js';",
      'no-restricted-imports',
      /src\/domain imports nothing/,
    ],
    ['src/domain/x.ts', "import type { AppDeps } from '../http/types.js';", 'no-restricted-imports', /src\/domain imports nothing/],
    ['src/domain/x.ts', "import { runIngest } from '../../ingest/pipeline.js';", 'no-restricted-imports', /nothing from the worker/],
    ['src/domain/x.ts', "import { loadConfig } from '../config.js';", 'no-restricted-imports', /src\/domain is pure/],
    ['src/domain/x.ts', "import type { Logger } from '../logger.js';", 'no-restricted-imports', /src\/domain is pure/],
    ['src/domain/x.ts', "import { spawn } from 'node:child_process';", 'no-restricted-imports', /no I\/O modules/],
    ['src/domain/x.ts', "import { isIP } from 'node:net';", 'no-restricted-imports', /no I\/O modules/],
    ['src/domain/x.ts', "import { readFile } from 'fs/promises';", 'no-restricted-imports', /no I\/O modules/],
    [
      'src/domain/registry-exports/x.ts',
      "import type { CountryLookup } from '../../ports/country-lookup.js';",
      'no-restricted-imports',
      /src\/domain imports nothing/,
    ],
    [
      'src/ports/x.ts',
      "import type { Database } from '../adapters/sqlite/database.js';",
      'no-restricted-imports',
      /interfaces over domain types/,
    ],
    [
      'src/ports/x.ts',
      "import type { SearchService } from '../services/search.js';",
      'no-restricted-imports',
      /interfaces over domain types/,
    ],
    [
      'src/ports/x.ts',
      "import type { Config } from '../config.js';",
      'no-restricted-imports',
      /configuration is read only in the composition roots/,
    ],
    [
      'src/services/x.ts',
      "import { createSqliteRecordStore } from '../adapters/sqlite/record-store.js';",
      'no-restricted-imports',
      /composition roots/,
    ],
    ['src/services/x.ts', "import { createApp } from '../http/app.js';", 'no-restricted-imports', /do not know the HTTP layer/],
    ['src/services/x.ts', "import type { Config } from '../config.js';", 'no-restricted-imports', /configuration is read only/],
    ['src/services/x.ts', "import { runIngest } from '../../ingest/pipeline.js';", 'no-restricted-imports', /does not import the worker/],
    ['src/adapters/sqlite/x.ts', "import { loadConfig } from '../../config.js';", 'no-restricted-imports', /configuration is read only/],
    ['src/adapters/x.ts', "import { createSearchService } from '../services/search.js';", 'no-restricted-imports', /implement ports/],
    [
      'src/adapters/x.ts',
      "import type { PdfExtractor } from '../../ingest/types.js';",
      'no-restricted-imports',
      /do not import the worker/,
    ],
    ['src/adapters/x.ts', "import { buildDeps } from '../deps.js';", 'no-restricted-imports', /Only a composition root/],
    [
      'src/http/routes/x.ts',
      "import { createSqliteRecordStore } from '../../adapters/sqlite/record-store.js';",
      'no-restricted-imports',
      /composition roots/,
    ],
    ['src/http/routes/x.ts', "import type { Config } from '../../config.js';", 'no-restricted-imports', /configuration is read only/],
    ['src/http/app.ts', "import { runIngest } from '../../ingest/pipeline.js';", 'no-restricted-imports', /does not import the worker/],
    ['src/x.ts', "import { createApp } from './http/app.js';", 'no-restricted-imports', /Only the API knows the HTTP layer/],
    ['src/main.ts', "import { runIngest } from '../ingest/pipeline.js';", 'no-restricted-imports', /only through ingest\/demo\.ts/],
    ['src/deps.ts', "import { runIngest } from '../ingest/pipeline.js';", 'no-restricted-imports', /does not import the worker/],
    [
      'ingest/stages/x.ts',
      "import { createVerraClient } from '../../src/adapters/verra/registry-client.js';",
      'no-restricted-imports',
      /composition roots/,
    ],
    ['ingest/stages/x.ts', "import type { Config } from '../../src/config.js';", 'no-restricted-imports', /configuration is read only/],
    ['ingest/demo.ts', "import { buildDownloader } from './deps.js';", 'no-restricted-imports', /Only a composition root/],
    [
      'ingest/x.ts',
      "import { apiKeyAuth } from '../src/http/middleware/auth.js';",
      'no-restricted-imports',
      /Only the API knows the HTTP layer/,
    ],
    // import() and import('...') types, which no-restricted-imports does not see.
    [
      'src/http/routes/x.ts',
      "const m = await import(`../../adapters/${'sqlite'}/record-store.js`);",
      'no-restricted-syntax',
      /computed path/,
    ],
    ['ingest/stages/x.ts', "const m = await import('./extract.js');", 'no-restricted-syntax', /import\(\) of a project module/],
    [
      'src/services/x.ts',
      "export type S = import('../adapters/sqlite/database.js').SqliteDatabase;",
      'no-restricted-syntax',
      /use `import type`/,
    ],
    // Cycles, a type-only import closing one too.
    [
      'src/http/env.ts',
      "import type { AppDeps } from './types.js';",
      'layering/no-import-cycle',
      /Import cycle: src\/http\/env\.ts -> src\/http\/types\.ts -> .*src\/http\/env\.ts/,
    ],
    [
      'src/domain/project-ref.ts',
      "import { deriveCleaned } from './derive-cleaned.js';",
      'layering/no-import-cycle',
      /Import cycle: src\/domain\/project-ref\.ts -> src\/domain\/derive-cleaned\.ts -> .*src\/domain\/project-ref\.ts/,
    ],
    [
      'src/mcp/tools/x.ts',
      "import { createSqliteRecordStore } from '../../adapters/sqlite/record-store.js';",
      'no-restricted-imports',
      /composition roots/,
    ],
    ['src/mcp/server.ts', "import { seedDemo } from '../../ingest/demo.js';", 'no-restricted-imports', /does not import the worker/],
    ['src/mcp/main.ts', "import { runIngest } from '../../ingest/pipeline.js';", 'no-restricted-imports', /only through ingest\/demo\.ts/],
  ];
  it.each(violations)('%s: %s is reported', async (file, code, rule, message) => {
    const found = await findings(file, code);
    expect(found).toHaveLength(1);
    expect(found[0]?.rule).toBe(rule);
    expect(found[0]?.message).toMatch(message);
  });

  const allowed: [string, string][] = [
    ['src/domain/x.ts', "import { projectKey } from './project-ref.js';"],
    ['src/domain/x.ts', "import { createHash } from 'node:crypto';"],
    ['src/services/x.ts', "import type { VectorIndex } from '../ports/vector-index.js';"],
    ['src/adapters/sqlite/x.ts', "import type { RecordStore } from '../../ports/record-store.js';"],
    ['src/adapters/x.ts', "const { default: koffi } = await import('koffi');"],
    ['src/http/routes/x.ts', "import type { MetadataService } from '../../services/metadata.js';"],
    ['src/deps.ts', "import { createSqliteRecordStore } from './adapters/sqlite/record-store.js';"],
    ['src/deps.ts', "const { createUseEmbedder } = await import('./adapters/embedders/use.js');"],
    ['src/main.ts', "import { seedDemo } from '../ingest/demo.js';"],
    ['ingest/deps.ts', "import { createVerraClient } from '../src/adapters/verra/registry-client.js';"],
    ['ingest/main.ts', "import { buildIngestDeps } from './deps.js';"],
    ['ingest/x.ts', "import type { Downloader } from '../src/ports/downloader.js';"],
    ['src/mcp/main.ts', "import { seedDemo } from '../../ingest/demo.js';"],
    ['src/mcp/tools/x.ts', "import type { SearchService } from '../../services/search.js';"],
  ];
  it.each(allowed)('%s: %s is allowed', async (file, code) => {
    expect(await findings(file, code)).toEqual([]);
  });
});

describe('the tree as it stands', () => {
  // A scratch copy of a layer folder is the check ("five planted imports fail npx eslint"); the rules must
  // also see files on disk, not only lintText, for the cycle rule reads its graph from there.
  const scratch = mkdtempSync(path.join(root, 'src/domain/.lint-scratch-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('reports a cycle planted across two files on disk, type-only imports included', async () => {
    writeFileSync(path.join(scratch, 'a.ts'), "import type { B } from './b.js';\nexport interface A { b?: B }\n");
    writeFileSync(path.join(scratch, 'b.ts'), "import type { A } from './a.js';\nexport interface B { a?: A }\n");
    let results: ESLint.LintResult[];
    try {
      results = await new ESLint({ cwd: root }).lintFiles([path.join(scratch, 'a.ts')]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const messages = results.flatMap((r) => r.messages).filter((m) => m.ruleId === 'layering/no-import-cycle');
    expect(messages.map((m) => m.message)).toEqual([expect.stringMatching(/a\.ts -> .*b\.ts -> .*a\.ts/)]);
  });

  it('has no layering finding in src/ and ingest/', async () => {
    const results = await new ESLint({ cwd: root }).lintFiles(['src/**/*.ts', 'ingest/**/*.ts']);
    const layering = results.flatMap((r) =>
      r.messages
        .filter((m) => m.ruleId !== null && LAYERING_RULES.has(m.ruleId))
        .map((m) => `${path.relative(root, r.filePath)}: ${m.message}`),
    );
    expect(layering).toEqual([]);
  }, 120_000);
});
