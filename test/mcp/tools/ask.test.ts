import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askTool } from '../../../src/mcp/tools/ask.js';
import { call, CONFIG, createToolFixture, textOf, URI, type ToolFixture } from './support.js';

let f: ToolFixture;
beforeAll(async () => {
  f = await createToolFixture();
});
afterAll(async () => {
  await f.close();
});

describe('ask', () => {
  it('answers with the sources listed under the answer, each citation with the link to its page', async () => {
    const r = await call(askTool(f.deps), {
      projects: [{ projectId: 1650, registry: 'Verra' }],
      question: 'How long is the crediting period?',
    });
    expect(r.isError).toBeFalsy();
    const structured = r.structuredContent as { answered: boolean; citations: Array<{ page: number; pageUri: string }> };
    expect(structured.answered).toBe(true);
    expect(structured.citations[0]).toMatchObject({ page: 2, pageUri: `${URI}#page=2` });
    expect(textOf(r)).toMatch(
      /\nSources:\n\[1\] .*, page 2, Verra 1650: "The crediting period is ten years.*" https:\/\/docs\.example\.org\/1650\/pd\.pdf#page=2/,
    );
  });

  it('refuses a list longer than the server allows, and answers unavailable without a search service', async () => {
    const projects = Array.from({ length: CONFIG.MAX_BATCH_PROJECTS + 1 }, (_, i) => ({ projectId: i + 1, registry: 'Verra' }));
    const long = await call(askTool(f.deps), { projects, question: 'Anything?' });
    expect(long.isError).toBe(true);
    expect(textOf(long)).toMatch(/projects/);
    const none = await call(askTool({ config: CONFIG, metadata: f.deps.metadata }), { projects: projects.slice(0, 1), question: 'x' });
    expect(textOf(none)).toMatch(/^unavailable: search is not configured/);
  });
});
