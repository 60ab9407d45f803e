import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getProjectTool } from '../../../src/mcp/tools/get-project.js';
import { call, createToolFixture, textOf, type ToolFixture } from './support.js';

let f: ToolFixture;
beforeAll(async () => {
  f = await createToolFixture();
});
afterAll(async () => {
  await f.close();
});

describe('get_project', () => {
  it('returns the cleaned record, summarised in the text, whole in structuredContent', async () => {
    const r = await call(getProjectTool(f.deps), { projectId: 1650, registry: 'verra' });
    expect(r.isError).toBeFalsy();
    expect(textOf(r).split('\n')[0]).toBe('Project 1650 (verra 1650)');
    expect(r.structuredContent).toMatchObject({
      projectId: 1650,
      registry: 'verra',
      raw: false,
      record: { name: 'Project 1650', resourceIdentifier: 1650 },
    });
  });

  it('returns the raw record on request', async () => {
    const r = await call(getProjectTool(f.deps), { projectId: '1650', registry: 'Verra', raw: true });
    expect(textOf(r)).toBe('Raw registry record of Verra 1650.');
    expect(r.structuredContent).toMatchObject({ raw: true, record: { resourceIdentifier: '1650', resourceName: 'Project 1650' } });
  });

  it('says a project is unknown, and a registry too, as the HTTP API does', async () => {
    const missing = await call(getProjectTool(f.deps), { projectId: 9, registry: 'Verra' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^not_found: /);
    expect(textOf(await call(getProjectTool(f.deps), { projectId: 9, registry: 'Nowhere' }))).toMatch(/^unknown_registry: /);
  });
});
