// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Correctness rules, and the layering of the tree as rules (README, "Architecture"): http -> services -> ports <-
 * adapters, the domain at the centre importing none of them, adapters chosen only in the two composition roots
 * (src/deps.ts, ingest/deps.ts), and the API reaching the worker only through ingest/demo.ts.
 */
const ban = (regex, message) => ({ regex, message });

const NOT_FROM_DOMAIN = [
  ban(
    String.raw`(^|/)(ports|adapters|services|http)/`,
    'src/domain imports nothing from ports, adapters, services or http: move the type into src/domain.',
  ),
  ban(String.raw`(^|/)ingest/`, 'src/domain imports nothing from the worker (ingest/).'),
  ban(String.raw`(^|/)(config|deps|main|logger)\.js$`, 'src/domain is pure: no configuration, composition root or logger.'),
];
const ADAPTERS_ONLY_IN_ROOTS = ban(
  String.raw`(^|/)adapters/`,
  'Adapters are chosen only in the composition roots (src/deps.ts, ingest/deps.ts); take the port instead.',
);
const NOT_FROM_SERVICES = [
  ADAPTERS_ONLY_IN_ROOTS,
  ban(String.raw`(^|/)http/`, 'src/services do not know the HTTP layer.'),
  ban(String.raw`(^|/)(config|deps)\.js$`, 'src/services take options, not the configuration or the composition root.'),
];
const NOT_FROM_ADAPTERS = [
  ban(String.raw`(^|/)(services|http)/`, 'src/adapters implement ports; they do not call services or the HTTP layer.'),
  ban(String.raw`(^|/)(config|deps)\.js$`, 'src/adapters take their own options; configuration is parsed and mapped in the roots.'),
  ban(String.raw`(^|/)ingest/`, 'src/adapters do not import the worker.'),
];
const NOT_FROM_PORTS = [
  ban(String.raw`(^|/)(adapters|services|http)/`, 'src/ports are interfaces over domain types only.'),
  ban(String.raw`(^|/)(config|deps)\.js$`, 'src/ports are interfaces over domain types only.'),
];
const NOT_INTO_WORKER = ban(String.raw`(^|/)ingest/`, 'The API reaches the worker only through ingest/demo.ts (from src/main.ts).');

const restrict = (files, patterns, ignores = []) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

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
  // Layering. Later blocks for the same file replace the rule, so each block lists every ban its files need.
  restrict(['src/**/*.ts'], [ADAPTERS_ONLY_IN_ROOTS, NOT_INTO_WORKER], ['src/deps.ts', 'src/main.ts', 'src/adapters/**']),
  restrict(
    ['src/main.ts', 'src/mcp/main.ts'],
    [ADAPTERS_ONLY_IN_ROOTS, ban(String.raw`(^|/)ingest/(?!demo\.js$)`, 'The API reaches the worker only through ingest/demo.ts.')],
  ),
  restrict(['src/domain/**/*.ts'], NOT_FROM_DOMAIN),
  restrict(['src/ports/**/*.ts'], NOT_FROM_PORTS),
  restrict(['src/services/**/*.ts'], [...NOT_FROM_SERVICES, NOT_INTO_WORKER]),
  restrict(['src/adapters/**/*.ts'], NOT_FROM_ADAPTERS),
  restrict(['src/http/**/*.ts'], [ADAPTERS_ONLY_IN_ROOTS, NOT_INTO_WORKER]),
  // The MCP layer is the HTTP layer's sibling: it calls services; its entry (src/mcp/main.ts) composes like src/main.ts.
  restrict(['src/mcp/**/*.ts'], [ADAPTERS_ONLY_IN_ROOTS, NOT_INTO_WORKER], ['src/mcp/main.ts']),
  restrict(['ingest/**/*.ts'], [ADAPTERS_ONLY_IN_ROOTS], ['ingest/deps.ts']),
);
