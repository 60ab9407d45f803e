/**
 * The size of the code issue 46 bounds: lines and regexes (literals plus `new RegExp`/`RegExp(...)` calls, found by
 * the TypeScript parser so that a slash in a string or comment is not counted) per file of src/domain and
 * src/services, their totals, and every function longer than 80 lines (its name, file and line count).
 *
 *   npx tsx bench/code-size.ts [--folders src/domain,src/services] [--max-lines 80]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const { values } = parseArgs({
  options: {
    folders: { type: 'string', default: 'src/domain,src/services' },
    'max-lines': { type: 'string', default: '80' },
  },
});
const maxLines = Number(values['max-lines']);
if (!Number.isInteger(maxLines) || maxLines < 1) throw new Error(`--max-lines must be a positive integer (got ${values['max-lines']})`);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

interface LongFunction {
  name: string;
  file: string;
  lines: number;
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return `(anonymous at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`;
}

function measure(file: string): { lines: number; regexes: number; long: LongFunction[] } {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const rel = path.relative(repoRoot, file);
  let regexes = 0;
  const long: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) regexes++;
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.expression.getText(source) === 'RegExp') regexes++;
    if (ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node)) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > maxLines) long.push({ name: functionName(node, source), file: rel, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // Counted as `wc -l` counts: newline characters.
  return { lines: text.split('\n').length - 1, regexes, long };
}

const rows = values.folders
  .split(',')
  .flatMap((folder) => tsFiles(path.resolve(repoRoot, folder)))
  .sort()
  .map((file) => ({ file: path.relative(repoRoot, file), ...measure(file) }));
const width = Math.max(...rows.map((r) => r.file.length));
process.stdout.write(`${'file'.padEnd(width)}  lines  regexes\n`);
for (const r of rows) process.stdout.write(`${r.file.padEnd(width)}  ${String(r.lines).padStart(5)}  ${String(r.regexes).padStart(7)}\n`);
const total = (key: 'lines' | 'regexes') => rows.reduce((sum, r) => sum + r[key], 0);
process.stdout.write(`${'total'.padEnd(width)}  ${String(total('lines')).padStart(5)}  ${String(total('regexes')).padStart(7)}\n`);
const long = rows.flatMap((r) => r.long).sort((a, b) => b.lines - a.lines);
process.stdout.write(`\nfunctions over ${maxLines} lines: ${long.length}\n`);
for (const f of long) process.stdout.write(`  ${f.lines}  ${f.name}  ${f.file}\n`);
