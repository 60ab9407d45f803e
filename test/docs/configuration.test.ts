import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema, formatEmbedderSpec, loadConfig } from '../../src/config.js';
import { repoRoot } from '../support/corpus.js';

/** docs/configuration.md against src/config.ts: every variable of the schema documented, with its real default. */

const doc = readFileSync(path.join(repoRoot, 'docs/configuration.md'), 'utf8');

/** Rows of the configuration table: variable -> default column. */
function configTable(): Map<string, string> {
  const rows = new Map<string, string>();
  for (const m of doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| ([^|]+) \|/gm)) rows.set(m[1] ?? '', (m[2] ?? '').trim());
  return rows;
}

/** The variables src/config.ts reads: the schema is an object piped into a transform, whose input names them all. */
function schemaKeys(): string[] {
  const input = configSchema.in;
  if (!(input instanceof z.ZodObject)) throw new Error('src/config.ts is no longer an object schema piped into a transform');
  return Object.keys(input.shape);
}

describe('docs/configuration.md', () => {
  it('lists every variable of src/config.ts, and nothing that is not one', () => {
    const documented = configTable();
    const keys = schemaKeys();
    expect(keys.length).toBeGreaterThan(20);
    const missing = keys.filter((k) => !documented.has(k));
    const unknown = [...documented.keys()].filter((k) => !keys.includes(k));
    // Named in the message, so a branch that adds a setting sees which row docs/configuration.md lacks.
    expect(missing, `settings of src/config.ts missing from docs/configuration.md: ${missing.join(', ')}`).toEqual([]);
    expect(unknown, `rows of docs/configuration.md that src/config.ts does not read: ${unknown.join(', ')}`).toEqual([]);
  });

  it('states the real default of every variable that has one', () => {
    const documented = configTable();
    const parsed = loadConfig({});
    // EMBEDDER and LLM are parsed into specs; the doc shows them as written.
    const config: Record<string, unknown> = { ...parsed, EMBEDDER: formatEmbedderSpec(parsed.EMBEDDER), LLM: parsed.LLM.kind };
    expect(parsed.LLM).toEqual({ kind: 'extractive' });
    for (const [key, value] of Object.entries(config)) {
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      const shown = documented.get(key) ?? '';
      expect(shown, `docs/configuration.md: the default of ${key} should show \`${String(value)}\``).toContain(`\`${String(value)}\``);
    }
  });
});
