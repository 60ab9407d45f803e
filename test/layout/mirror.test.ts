import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

/**
 * test/ mirrors src/ and ingest/ (issue 47): `src/x/y.ts` is tested by `test/x/y.test.ts`, `ingest/x.ts` by
 * `test/ingest/x.test.ts`, so a reader finds a module's tests without searching and a module without any stands out.
 */

/** Modules that declare only types or constant values: the check below fails once one of them gains code. */
const DECLARATIONS_ONLY: Record<string, string> = {
  'ingest/types.ts': 'worker types',
  'src/domain/chunk-record.ts': 'record types',
  'src/domain/cleaned-record.ts': 'record types',
  'src/domain/stored-project.ts': 'record types',
  'src/domain/search-limits.ts': 'limit constants',
  'src/domain/answer/tuning.ts': 'tuning constants',
  'src/http/env.ts': 'Hono context types',
  'src/http/types.ts': 'app dependency types',
  'src/mcp/types.ts': 'MCP dependency types',
  'src/ports/country-lookup.ts': 'port interface',
  'src/ports/document-leases.ts': 'port interface',
  'src/ports/document-state-store.ts': 'port interface (contract suite: test/contract/document-state-store.contract.ts)',
  'src/ports/document-text-store.ts': 'port interface (contract suite: test/contract/document-text-store.contract.ts)',
  'src/ports/embedder.ts': 'port interface',
  'src/ports/ingest-queue.ts': 'port interface',
  'src/ports/reader.ts': 'port interface',
  'src/ports/record-store.ts': 'port interface (contract suite: test/contract/record-store.contract.ts)',
  'src/ports/reranker.ts': 'port interface',
  'src/ports/summarizer.ts': 'port interface',
  'src/ports/vector-index.ts': 'port interface (contract suite: test/contract/vector-index.contract.ts)',
  'src/services/search/types.ts': 'search request, response and option types, and the list of modes',
};

/** Modules with code but no test of their own, each with the reason and the test that runs it. */
const EXEMPT: Record<string, string> = {
  'src/main.ts': 'API entry point (loadConfig -> buildDeps -> createApp -> serve): test/e2e/server.test.ts, test/e2e/shutdown.test.ts',
  'ingest/main.ts':
    'worker CLI entry point: test/e2e/ingest.test.ts, test/ingest/derived-commands.test.ts (through test/ingest/support/cli.ts)',
  'src/http/routes/index.ts': 'one register call per route: every test/http/routes/*.test.ts goes through it',
  'src/domain/country-lookup.ts': 'a null object, one constant',
};

function modules(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...modules(rel));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out.sort();
}

/** `src/x/y.ts` -> `test/x/y.test.ts`; `ingest/x.ts` -> `test/ingest/x.test.ts`. */
function mirroredTest(module: string): string {
  const rel = module.startsWith('src/') ? module.slice('src/'.length) : module;
  return `test/${rel.replace(/\.ts$/, '.test.ts')}`;
}

/** Where the module runs code: a function, class, or a value computed by a call other than Object.freeze. */
function codeIn(module: string): string[] {
  const source = ts.createSourceFile(module, readFileSync(path.join(repoRoot, module), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    const isFreeze = ts.isCallExpression(node) && node.expression.getText(source) === 'Object.freeze';
    if (ts.isFunctionLike(node) || ts.isClassLike(node) || (ts.isCallExpression(node) && !isFreeze) || ts.isNewExpression(node)) {
      found.push(`line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source).slice(0, 60)}`);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const all = [...modules('src'), ...modules('ingest')];
const untested = (m: string): boolean => !existsSync(path.join(repoRoot, mirroredTest(m)));

describe('test/ mirrors src/ and ingest/', () => {
  it('finds the modules', () => {
    expect(all).toContain('src/main.ts');
    expect(all).toContain('ingest/stages/discover.ts');
    expect(mirroredTest('src/adapters/sqlite/vector-index.ts')).toBe('test/adapters/sqlite/vector-index.test.ts');
    expect(mirroredTest('ingest/stages/embed.ts')).toBe('test/ingest/stages/embed.test.ts');
  });

  it('gives every module with code a test at its mirrored path', () => {
    const exempt = new Set([...Object.keys(DECLARATIONS_ONLY), ...Object.keys(EXEMPT)]);
    const missing = all.filter((m) => !exempt.has(m) && untested(m)).map((m) => `${m} (expected ${mirroredTest(m)})`);
    expect(missing).toEqual([]);
  });

  it('exempts only modules that exist, have no mirrored test, and (if declared so) hold declarations only', () => {
    for (const m of [...Object.keys(DECLARATIONS_ONLY), ...Object.keys(EXEMPT)]) {
      expect(all, m).toContain(m);
      expect(untested(m), `${m} has ${mirroredTest(m)}: drop its exemption`).toBe(true);
    }
    for (const m of Object.keys(DECLARATIONS_ONLY)) expect(codeIn(m), m).toEqual([]);
    // The check itself sees code.
    expect(codeIn('src/domain/enrichment.ts').length).toBeGreaterThan(0);
    expect(codeIn('src/http/echo.ts').length).toBeGreaterThan(0);
  });

  it('names, for each exempt entry point, tests that exist', () => {
    for (const [m, reason] of Object.entries(EXEMPT)) {
      for (const t of reason.match(/test\/[\w./-]+\.test\.ts/g) ?? []) expect(existsSync(path.join(repoRoot, t)), `${m}: ${t}`).toBe(true);
    }
  });
});
