import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema, formatEmbedderSpec, loadConfig } from '../../src/config.js';
import { repoRoot } from '../support/corpus.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };

/** Rows of the README's configuration table: variable -> default column. */
function configTable(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \|/gm)) rows.set(m[1] ?? '', (m[2] ?? '').trim());
  return rows;
}

describe('README', () => {
  it('lists every configuration variable, and nothing that is not one', () => {
    const documented = configTable();
    // The schema is an object piped into a transform; its input object names every variable, optional ones too.
    const input = configSchema.in;
    if (!(input instanceof z.ZodObject)) throw new Error('src/config.ts is no longer an object schema piped into a transform');
    const keys = Object.keys(input.shape);
    expect(keys.length).toBeGreaterThan(20);
    expect([...documented.keys()].sort()).toEqual([...keys].sort());
  });

  it('states the real default of every variable that has one', () => {
    const documented = configTable();
    const parsed = loadConfig({});
    // EMBEDDER and LLM are parsed into specs; the README shows them as written.
    const config: Record<string, unknown> = { ...parsed, EMBEDDER: formatEmbedderSpec(parsed.EMBEDDER), LLM: parsed.LLM.kind };
    expect(parsed.LLM).toEqual({ kind: 'extractive' });
    for (const [key, value] of Object.entries(config)) {
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      const shown = documented.get(key) ?? '';
      expect(shown, key).toContain(`\`${String(value)}\``);
    }
  });

  it('opens with the two commands of a fresh machine, and they are npm scripts', () => {
    const quick = readme.indexOf('npm ci && npm start');
    expect(quick).toBeGreaterThan(0);
    expect(readme.indexOf('npm test')).toBeGreaterThan(quick);
    expect(readme.indexOf('npm ci && npm start')).toBeLessThan(readme.indexOf('## Using the API'));
    expect(pkg.scripts.start).toBeDefined();
    expect(pkg.scripts.test).toBeDefined();
  });

  it('has a curl example for every endpoint and the placeholders the lead fills in', () => {
    for (const p of ['/project-documents/metadata', '/project-documents/batch-metadata', '/projects-documents/batch-search', '/openapi.json', '/healthz', '/readyz']) {
      expect(readme, p).toMatch(new RegExp(`curl -s localhost:3000${p.replaceAll('/', '\\/')}`));
    }
    for (const h of ['## Ingestion', '## Search', '## Derived fields']) expect(readme).toContain(h);
  });
});
