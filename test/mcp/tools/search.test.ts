import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchTool } from '../../../src/mcp/tools/search.js';
import { call, CONFIG, createToolFixture, textOf, URI, type ToolFixture } from './support.js';

let f: ToolFixture;
beforeAll(async () => {
  f = await createToolFixture();
});
afterAll(async () => {
  await f.close();
});

describe('search', () => {
  it('returns passage ids, titles and page links, the JSON itself as the text (the deep-research convention)', async () => {
    const r = await call(searchTool(f.deps), { query: 'crediting period' });
    const structured = r.structuredContent as { results: Array<{ id: string; title: string; url: string }> };
    expect(JSON.parse(textOf(r))).toEqual(structured);
    expect(structured.results).toContainEqual(expect.objectContaining({ title: 'pd.pdf, page 2 (Verra 1650)', url: `${URI}#page=2` }));
  });

  it('refuses an empty query, and answers unavailable without a passage service', async () => {
    expect((await call(searchTool(f.deps), { query: '' })).isError).toBe(true);
    expect(textOf(await call(searchTool({ config: CONFIG, metadata: f.deps.metadata }), { query: 'x' }))).toMatch(/^unavailable: /);
  });
});
