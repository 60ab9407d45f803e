import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { projectListSchema } from '../../src/http/schemas/project-ref.js';
import { validationError } from '../../src/http/validation-error.js';

function errorOf(schema: z.ZodType, value: unknown) {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a validation failure');
  return validationError(r.error);
}

describe('validationError', () => {
  const body = z.object({ projectId: z.number(), registry: z.string(), topK: z.number().optional() });

  it('names the first offending field, counts the others, and lists every issue in details', () => {
    const e = errorOf(body, { projectId: 'x', topK: 'y' });
    expect(e.code).toBe('invalid_request');
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/^projectId: .* \(and 2 more problems\)$/);
    expect(e.details.map((d) => d.path)).toEqual(['projectId', 'registry', 'topK']);
    expect(errorOf(body, { projectId: 1 }).message).not.toMatch(/more problem/);
  });

  it('calls the body itself "body"', () => {
    expect(errorOf(body, 'text').message).toMatch(/^body: /);
  });

  it('makes a project list that is too long a 413', () => {
    const list = z.object({ projectList: projectListSchema({ maxBatchProjects: 2 }) });
    const item = { projectId: 1, registry: 'Verra' };
    const e = errorOf(list, { projectList: [item, item, item] });
    expect(e.code).toBe('payload_too_large');
    expect(e.status).toBe(413);
    expect(e.details).toEqual([{ path: 'projectList', message: 'must list at most 2 projects' }]);
  });
});
