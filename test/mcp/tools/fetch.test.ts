import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdFor } from '../../../src/domain/chunking.js';
import { fetchTool } from '../../../src/mcp/tools/fetch.js';
import { call, CONFIG, createToolFixture, PAGES, textOf, URI, type ToolFixture } from './support.js';

let f: ToolFixture;
beforeAll(async () => {
  f = await createToolFixture();
});
afterAll(async () => {
  await f.close();
});

describe('fetch', () => {
  it("reads a passage by its id: the page's text, title, link and metadata, the JSON itself as the text", async () => {
    const id = `verra:1650:${documentIdFor(URI)}:1`;
    const r = await call(fetchTool(f.deps), { id });
    expect(r.structuredContent).toMatchObject({ id, text: PAGES[0], url: `${URI}#page=1`, metadata: { page: 1, pages: 2 } });
    expect(JSON.parse(textOf(r))).toEqual(r.structuredContent);
  });

  it('answers a string that is no id, and an id too long, with an error result', async () => {
    expect(textOf(await call(fetchTool(f.deps), { id: 'hello' }))).toMatch(/^invalid_request: id: "hello" is not a passage id/);
    expect((await call(fetchTool(f.deps), { id: 'x'.repeat(501) })).isError).toBe(true);
    expect(textOf(await call(fetchTool({ config: CONFIG, metadata: f.deps.metadata }), { id: 'x' }))).toMatch(/^unavailable: /);
  });
});
