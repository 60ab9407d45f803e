import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/corpus.js';

const readmePath = path.join(repoRoot, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const docsDir = path.join(repoRoot, 'docs');
const docs = readdirSync(docsDir)
  .filter((f) => f.endsWith('.md'))
  .map((f) => path.join(docsDir, f));

/** Relative links of a Markdown file, as absolute paths without their #fragment. */
function relativeLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const links: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = (m[1] ?? '').split('#')[0] ?? '';
    if (target === '' || /^[a-z]+:/i.test(target)) continue;
    links.push(path.resolve(path.dirname(file), target));
  }
  return links;
}

describe('README', () => {
  it('is short enough to read: at most 12 kB', () => {
    expect(statSync(readmePath).size).toBeLessThanOrEqual(12 * 1024);
  });

  it('opens with the two commands of a fresh machine, and they are npm scripts', () => {
    const quick = readme.indexOf('npm ci && npm start');
    expect(quick).toBeGreaterThan(0);
    expect(readme.indexOf('npm test')).toBeGreaterThan(quick);
    expect(quick).toBeLessThan(readme.indexOf('## The API at a glance'));
    expect(readme).toContain('open http://localhost:3000/');
    expect(pkg.scripts.start).toBeDefined();
    expect(pkg.scripts.test).toBeDefined();
  });

  it('has a curl example for every endpoint, and the line the lead fills in with the answer quality', () => {
    for (const p of [
      '/project-documents/metadata',
      '/project-documents/batch-metadata',
      '/projects-documents/batch-search',
      '/projects/search',
      '/openapi.json',
      '/healthz',
      '/readyz',
      '/metrics',
    ]) {
      expect(readme, p).toMatch(new RegExp(`curl -s localhost:3000${p.replaceAll('/', '\\/')}\\b`));
    }
    // How good the answers are, in validation numbers, and where the rest is.
    expect(readme).toMatch(/^Answer quality, on a validation corpus never tuned on [^]*?\(\[docs\/answers\.md\]\(docs\/answers\.md\)/m);
  });

  it('links every document under docs/', () => {
    const linked = new Set(relativeLinks(readmePath));
    for (const d of docs) expect(linked.has(d), `${path.relative(repoRoot, d)} is not linked from the README`).toBe(true);
  });
});

describe('docs/', () => {
  it('has each document the README promises, none over 20 kB', () => {
    for (const name of ['api.md', 'configuration.md', 'ingestion.md', 'operations.md', 'derived-fields.md']) {
      expect(existsSync(path.join(docsDir, name)), name).toBe(true);
    }
    for (const d of docs) expect(statSync(d).size, path.relative(repoRoot, d)).toBeLessThanOrEqual(20 * 1024);
  });

  it('links only to files that exist', () => {
    for (const file of [readmePath, ...docs, path.join(repoRoot, 'bench/README.md')]) {
      for (const target of relativeLinks(file)) {
        expect(existsSync(target), `${path.relative(repoRoot, file)} links to ${path.relative(repoRoot, target)}`).toBe(true);
      }
    }
  });
});
