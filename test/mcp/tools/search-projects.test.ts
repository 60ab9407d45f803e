import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchProjectsTool } from '../../../src/mcp/tools/search-projects.js';
import { call, CONFIG, createToolFixture, textOf, type ToolFixture } from './support.js';

let f: ToolFixture;
beforeAll(async () => {
  f = await createToolFixture();
});
afterAll(async () => {
  await f.close();
});

describe('search_projects', () => {
  it('lists the projects found, one a line with the id and indexed documents, and the response as structuredContent', async () => {
    const r = await call(searchProjectsTool(f.deps), { query: 'Project 1650' });
    expect(textOf(r)).toBe('1 project match; 1 listed:\n- Project 1650 (Verra 1650; 1 indexed documents)');
    expect(r.structuredContent).toMatchObject({ total: 1, nextCursor: null, projects: [{ projectId: 1650, indexedDocuments: 1 }] });
  });

  it('says when nothing matches, and that discovery is unavailable on a server without it', async () => {
    expect(textOf(await call(searchProjectsTool(f.deps), { query: 'geothermal' }))).toBe('No project matches.');
    const none = await call(searchProjectsTool({ config: CONFIG, metadata: f.deps.metadata }), { query: 'x' });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toMatch(/^unavailable: discovery is not configured/);
  });
});
