// @ts-check
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * `layering/no-import-cycle`: a module must not import a module that leads back to it, type-only imports included.
 *
 * eslint-plugin-import-x `no-cycle` skips `import type` edges by design, yet a type-only cycle still ties two modules
 * into one unit (src/http/types.ts <-> src/http/metrics.ts was one). So the graph here has every relative import,
 * re-export, `import()` and `import('...')` type, read from disk with TypeScript's own import scanner
 * (`ts.preProcessFile`); the file being linted contributes its edges from its AST, so an import planted in lintText
 * counts too. Bare specifiers (packages, `node:`) are not followed: a cycle through node_modules is not ours.
 */

/** @type {Map<string, { mtimeMs: number, deps: string[] }>} */
const graphCache = new Map();

/**
 * The file a relative specifier names: NodeNext writes `./x.js` for `./x.ts`.
 * @param {string} fromFile
 * @param {string} specifier
 * @returns {string | null}
 */
function resolveRelative(fromFile, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const candidates = [];
  if (/\.[cm]?js$/.test(base)) candidates.push(base.replace(/\.([cm]?)js$/, '.$1ts'));
  candidates.push(base, `${base}.ts`, path.join(base, 'index.ts'));
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

/**
 * The relative imports of a file on disk, resolved; cached by modification time.
 * @param {string} file
 * @returns {string[]}
 */
function importsOnDisk(file) {
  const { mtimeMs } = statSync(file);
  const cached = graphCache.get(file);
  if (cached && cached.mtimeMs === mtimeMs) return cached.deps;
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const deps = [];
  for (const ref of info.importedFiles) {
    const target = resolveRelative(file, ref.fileName);
    if (target) deps.push(target);
  }
  graphCache.set(file, { mtimeMs, deps });
  return deps;
}

/**
 * The shortest chain of imports from `start` back to `target`, or null.
 * @param {string} start
 * @param {string} target
 * @returns {string[] | null}
 */
function pathBack(start, target) {
  /** @type {Map<string, string | null>} */
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = /** @type {string} */ (queue.shift());
    for (const next of importsOnDisk(file)) {
      if (next === target) {
        const chain = [file];
        for (let at = cameFrom.get(file); at; at = cameFrom.get(at)) chain.unshift(at);
        return chain;
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import cycle: {{chain}}. Move the shared part into a module both can import.' },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!path.isAbsolute(file)) return {};
    const root = context.cwd;
    const show = (/** @type {string} */ f) => path.relative(root, f);

    /** @param {import('estree').Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== 'string') return;
      const target = resolveRelative(file, source);
      if (!target || target === file) return;
      const chain = target && pathBack(target, file);
      if (chain) context.report({ node, messageId: 'cycle', data: { chain: [file, ...chain, file].map(show).join(' -> ') } });
    }
    /** @param {any} node */
    const fromSource = (node) => {
      if (node.source && node.source.type === 'Literal') check(node, node.source.value);
    };
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: fromSource,
      /** @param {any} node `import('./x.js').T` in a type position */
      TSImportType(node) {
        if (node.source && node.source.type === 'Literal') check(node, node.source.value);
      },
    };
  },
};
