import { describe, expect, it } from 'vitest';
import { errorResult } from '../../../src/mcp/tool.js';
import { unavailable } from '../../../src/mcp/tools/unavailable.js';

describe('unavailable', () => {
  it('is the 503 the HTTP API answers for a service the server lacks, naming it', () => {
    const e = unavailable('search');
    expect(e.code).toBe('unavailable');
    expect(e.status).toBe(503);
    expect(e.details).toEqual([{ dependency: 'search', message: 'no search service' }]);
    expect(errorResult(e)).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/search is not configured/) }],
    });
  });
});
