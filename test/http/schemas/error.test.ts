import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, toErrorBody } from '../../../src/errors.js';
import { errorBodySchema, standardErrorResponses } from '../../../src/http/schemas/error.js';

describe('the documented error body', () => {
  it('accepts the body of every error code, with details and a request id, and refuses another shape', () => {
    for (const code of ERROR_CODES) {
      const body = toErrorBody(
        new AppError(code, `${code} happened`, { details: [{ path: 'projectList.2.registry', message: 'x', known: ['Verra'] }] }),
        'req-1',
      );
      expect(errorBodySchema.safeParse(body).success, code).toBe(true);
    }
    expect(errorBodySchema.safeParse({ error: { code: 'teapot', message: 'x', details: [] } }).success).toBe(false);
    expect(errorBodySchema.safeParse({ code: 'internal', message: 'x' }).success).toBe(false);
  });

  it('documents each standard status, stating the configured limits', () => {
    const responses = standardErrorResponses({ MAX_BODY_BYTES: 4096, MAX_BATCH_PROJECTS: 25 });
    expect(Object.keys(responses)).toEqual(['400', '401', '405', '413', '415', '429', '500', '503']);
    expect(responses[413].description).toContain('over 4096 bytes, or more than 25 projects');
    expect(responses[400].content['application/json'].schema).toBe(errorBodySchema);
  });
});
