// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { noImportCycle } from './eslint-rules/no-import-cycle.js';

/**
 * Correctness rules, and the layering of ../shared/STYLE.md as rules: http -> services -> ports <- adapters, the
 * domain at the centre, pure; adapters and configuration reached only from the composition roots; the API reaching
 * the worker only through ingest/demo.ts; no import cycle. test/lint/layering.test.ts plants a violation of each.
 */

/** The composition roots: the only modules that pick adapters, read the configuration or import one another. */
const ROOTS = ['src/main.ts', 'src/mcp/main.ts', 'src/deps.ts', 'ingest/main.ts', 'ingest/worker-main.ts', 'ingest/deps.ts'];

const ban = (regex, message) => ({ regex, message });
const ADAPTERS = ban(
  String.raw`(^|/)adapters/`,
  'Adapters are chosen only in the composition roots (src/deps.ts, ingest/deps.ts); take the port instead.',
);
const CONFIG = ban(
  String.raw`(^|/)config\.js$`,
  'The configuration is read only in the composition roots; take the options this module needs as parameters.',
);
const ROOT_MODULES = ban(
  String.raw`(^|/)(deps|main|worker-main)\.js$`,
  'Only a composition root imports a composition root; take what it built as a parameter.',
);
const SRC_TO_INGEST = ban(
  String.raw`(^|/)ingest/`,
  'src/ does not import the worker (ingest/); the API reaches it only through ingest/demo.ts from src/main.ts.',
);
const TO_HTTP = ban(String.raw`(^|/)http/`, 'Only the API knows the HTTP layer (src/http); take plain values instead.');

const DOMAIN = [
  ban(
    String.raw`(^|/)(ports|adapters|services|http)/`,
    'src/domain imports nothing from ports, adapters, services or http: move the type into src/domain.',
  ),
  ban(String.raw`(^|/)ingest/`, 'src/domain imports nothing from the worker (ingest/).'),
  ban(String.raw`(^|/)(config|deps|main|logger)\.js$`, 'src/domain is pure: no configuration, composition root or logger.'),
  ban(
    String.raw`^(node:)?(fs|fs/promises|child_process|cluster|dgram|dns|dns/promises|http|http2|https|inspector|net|os|process|readline|readline/promises|repl|tls|tty|v8|vm|worker_threads)$`,
    'src/domain is pure: no I/O modules; take the data as a parameter (node:crypto hashing is fine).',
  ),
];
const PORTS = [
  ban(String.raw`(^|/)(adapters|services|http)/`, 'src/ports are interfaces over domain types only.'),
  ban(
    String.raw`(^|/)ingest/`,
    'src/ports are interfaces over domain types only: no worker (ingest/) types; move the type into src/domain.',
  ),
  CONFIG,
  ROOT_MODULES,
];
const SERVICES = [ADAPTERS, ban(String.raw`(^|/)http/`, 'src/services do not know the HTTP layer.'), SRC_TO_INGEST, CONFIG, ROOT_MODULES];
const ADAPTER_LAYER = [
  ban(String.raw`(^|/)(services|http)/`, 'src/adapters implement ports; they do not call services or the HTTP layer.'),
  ban(String.raw`(^|/)ingest/`, 'src/adapters do not import the worker (ingest/).'),
  CONFIG,
  ROOT_MODULES,
];
const HTTP = [ADAPTERS, SRC_TO_INGEST, CONFIG, ROOT_MODULES];
const SRC_SHARED = [
  ADAPTERS,
  SRC_TO_INGEST,
  ROOT_MODULES,
  TO_HTTP,
  ban(String.raw`(^|/)services/`, 'Shared modules of src/ do not call services.'),
];
const WORKER = [ADAPTERS, CONFIG, ROOT_MODULES, TO_HTTP];

/**
 * `import()` would slip past no-restricted-imports, so outside the roots a project module is imported statically
 * (packages may still load lazily); `import('./x.js').T` types likewise become `import type`.
 */
const NO_HIDDEN_IMPORTS = [
  {
    selector: "ImportExpression[source.type='Literal'][source.value=/^[.]/]",
    message:
      'import() of a project module hides it from the layering rules: import it statically (only the composition roots load modules lazily).',
  },
  {
    selector: "ImportExpression[source.type!='Literal']",
    message: 'import() of a computed path cannot be checked by the layering rules: import a literal package name or a static module.',
  },
  {
    selector: 'TSImportType[source.value=/^[.]/]',
    message: "import('...') types hide a dependency from the layering rules: use `import type`.",
  },
];

/** One block per layer; the blocks do not overlap, so each lists every ban of its files. */
const layer = (files, patterns, ignores = []) => ({ files, ignores, rules: { 'no-restricted-imports': ['error', { patterns }] } });

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'data/**', 'models/**', '.scratch/**', 'src/http/web/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { process: 'readonly', console: 'readonly' } },
    rules: {
      // Non-null assertions and `any` are used deliberately at a few typed boundaries (tests, parsed JSON).
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-undef': 'off',
      // NUL and other control characters are matched on purpose (text extraction, store-safe strings).
      'no-control-regex': 'off',
      // A variable assigned after a closure that reads it is declared first on purpose.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  layer(['src/domain/**/*.ts'], DOMAIN),
  layer(['src/ports/**/*.ts'], PORTS),
  layer(['src/services/**/*.ts'], SERVICES),
  layer(['src/adapters/**/*.ts'], ADAPTER_LAYER),
  layer(['src/http/**/*.ts'], HTTP),
  // The MCP layer is the HTTP layer's sibling: it calls services; its entry (src/mcp/main.ts) composes like src/main.ts.
  layer(['src/mcp/**/*.ts'], HTTP, ['src/mcp/main.ts']),
  layer(['src/*.ts'], SRC_SHARED, ROOTS),
  layer(
    ['src/main.ts', 'src/mcp/main.ts'],
    [ban(String.raw`(^|/)ingest/(?!demo\.js$)`, 'The API reaches the worker only through ingest/demo.ts.')],
  ),
  layer(['src/deps.ts'], [SRC_TO_INGEST]),
  layer(['ingest/**/*.ts'], WORKER, ROOTS),
  layer(['ingest/main.ts', 'ingest/worker-main.ts', 'ingest/deps.ts'], [TO_HTTP]),
  {
    files: ['src/**/*.ts', 'ingest/**/*.ts'],
    ignores: ROOTS,
    rules: { 'no-restricted-syntax': ['error', ...NO_HIDDEN_IMPORTS] },
  },
  {
    files: ['src/**/*.ts', 'ingest/**/*.ts'],
    plugins: { layering: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'layering/no-import-cycle': 'error' },
  },
);
