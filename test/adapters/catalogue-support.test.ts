import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ftsMatch, hitFromRow, normaliseSearch, tsqueryText } from '../../src/adapters/catalogue-support.js';
import type { ProjectSearchQuery } from '../../src/ports/record-store.js';

const query = (over: Partial<ProjectSearchQuery>): ProjectSearchQuery => ({ text: '', limit: 10, ...over }) as ProjectSearchQuery;

describe('normaliseSearch', () => {
  it('keeps distinct words, registries and facet keys, facets in their fixed order', () => {
    const n = normaliseSearch(
      query({
        text: 'Cookstoves cookstoves Malawi',
        registries: ['Verra', 'Verra'],
        facets: { status: ['Registered'], country: ['Malawi', 'malawi'] },
      }),
    );
    expect(n.words).toEqual(['cookstoves', 'malawi']);
    expect(n.registries).toEqual(['Verra']);
    expect(n.facets.map((f) => f.facet)).toEqual(['country', 'status']);
    expect(n.facets[0]?.keys).toHaveLength(1);
    expect(n.after).toBeUndefined();
  });

  it('names the field a bad query gets wrong', () => {
    expect(() => normaliseSearch(query({ text: 5 as unknown as string }))).toThrow('text must be a string (got 5)');
    expect(() => normaliseSearch(query({ limit: 0 }))).toThrow(/limit must be a positive integer/);
    expect(() => normaliseSearch(query({ registries: 'Verra' as unknown as string[] }))).toThrow(/registries must be an array of strings/);
    expect(() => normaliseSearch(query({ facets: { country: [1] as unknown as string[] } }))).toThrow(/facets\.country must be/);
    expect(() => normaliseSearch(query({ after: { tier: 'x' } as unknown as ProjectSearchQuery['after'] }))).toThrow(
      /after must be a position/,
    );
    const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ');
    expect(() => normaliseSearch(query({ text: many }))).toThrow(/words; at most/);
  });
});

describe('full-text expressions', () => {
  it('ftsMatch finds rows holding every word as a prefix, in SQLite FTS5', () => {
    const db = new Database(':memory:');
    db.exec(
      "CREATE VIRTUAL TABLE t USING fts5(name, location); INSERT INTO t VALUES ('Cookstoves for households', 'Malawi'), ('Cookstoves', 'Kenya');",
    );
    const names = (words: string[]) => db.prepare('SELECT name FROM t WHERE t MATCH ?').all(ftsMatch(words)) as { name: string }[];
    expect(names(['cookstove', 'malaw']).map((r) => r.name)).toEqual(['Cookstoves for households']);
    expect(names(['cookstoves'])).toHaveLength(2);
    db.close();
  });

  it('tsqueryText writes each word as a prefix lexeme, all required', () => {
    expect(tsqueryText(['cookstove', 'malawi'])).toBe("'cookstove':* & 'malawi':*");
  });
});

describe('hitFromRow', () => {
  it('reads a BIGINT id given as a string, and carries the position to page from', () => {
    const hit = hitFromRow({
      registry: 'Verra',
      project_id: '1650',
      name: 'N',
      location: 'Malawi',
      methodology: 'AMS-II.G.',
      type: 'Energy',
      status: 'Registered',
      proponent: 'P',
      sort_key: 'n',
      tier: 1,
    });
    expect(hit.ref).toEqual({ registry: 'Verra', projectId: 1650 });
    expect(hit.position).toEqual({ tier: 1, sortKey: 'n', registry: 'Verra', projectId: 1650 });
  });
});
