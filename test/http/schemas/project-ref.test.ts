import { z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import {
  isListTooLong,
  projectIdSchema,
  projectListShape,
  projectRefSchema,
  requireProjectList,
  resolveProjectList,
  resolveRegistry,
} from '../../../src/http/schemas/project-ref.js';

const messages = (r: { success: boolean; error?: z.ZodError }) => r.error?.issues.map((i) => i.message) ?? [];

describe('projectIdSchema', () => {
  it('reads an integer, or a string of at most 15 digits, as the integer', () => {
    expect(projectIdSchema.parse(4086)).toBe(4086);
    expect(projectIdSchema.parse('004086')).toBe(4086);
    expect(projectIdSchema.parse('999999999999999')).toBe(999999999999999);
  });

  it.each([0, -1, 1.5, '0', '1e3', '9999999999999999', ' 12', null])('refuses %j', (v) => {
    expect(projectIdSchema.safeParse(v).success).toBe(false);
  });
});

describe('projectRefSchema', () => {
  it('takes the id under any of its names, several only when they agree, and keeps the registry as written', () => {
    expect(projectRefSchema.parse({ project_id: 1, registry: 'verra' })).toEqual({ projectId: 1, registry: 'verra' });
    expect(projectRefSchema.parse({ projectId: '2', id: 2, registry: 'Verra' })).toEqual({ projectId: 2, registry: 'Verra' });
    expect(messages(projectRefSchema.safeParse({ project_id: 1, id: 2, registry: 'Verra' }))).toEqual([
      'project_id and id disagree; give the project id once',
    ]);
    expect(messages(projectRefSchema.safeParse({ registry: 'Verra' }))).toEqual([
      'a project id is required (as project_id, projectId or id)',
    ]);
    expect(messages(projectRefSchema.safeParse({ id: 1, registry: ' ' }))).toEqual(['must not be empty']);
  });
});

describe('project lists', () => {
  const body = z.object(projectListShape({ maxBatchProjects: 2 })).superRefine(requireProjectList);
  const item = { id: 1, registry: 'Verra' };

  it('wants the list under exactly one of its two names', () => {
    expect(body.safeParse({ list: [item] }).success).toBe(true);
    expect(messages(body.safeParse({}))).toEqual(['a project list is required (as projectList or list)']);
    expect(messages(body.safeParse({ list: [item], projectList: [item] }))).toEqual([
      'give the project list once, as projectList or list, not both',
    ]);
  });

  it('tells a list that is too long (a 413) from other issues', () => {
    const long = body.safeParse({ projectList: [item, item, item] });
    expect(long.error?.issues.filter(isListTooLong)).toHaveLength(1);
    const empty = body.safeParse({ projectList: [] });
    expect(empty.error?.issues.some(isListTooLong)).toBe(false);
  });
});

describe('resolving registries and lists', () => {
  it('canonicalises a registry, or refuses it naming the known ones', () => {
    expect(resolveRegistry('gold standard', 'registry')).toBe('Gold Standard');
    const err = (() => {
      try {
        resolveRegistry('Verr', 'list.0.registry');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('unknown_registry');
    expect((err as AppError).message).toMatch(/^list\.0\.registry: unknown registry "Verr"; known: /);
  });

  it('drops repeats of one project keeping the first spelling and the order, and refuses one id under two registries', () => {
    const projects = resolveProjectList({
      projectList: [
        { projectId: 2, registry: 'verra' },
        { projectId: 1, registry: 'CDM' },
        { projectId: 2, registry: 'VERRA' },
      ],
    });
    expect(projects).toEqual([
      { ref: { registry: 'Verra', projectId: 2 }, requestedRegistry: 'verra' },
      { ref: { registry: 'CDM', projectId: 1 }, requestedRegistry: 'CDM' },
    ]);
    const twoRegistries = {
      list: [
        { projectId: 5, registry: 'Verra' },
        { projectId: 5, registry: 'CDM' },
      ],
    };
    expect(() => resolveProjectList(twoRegistries)).toThrow(
      /project id 5 is requested under registry "Verra" \(list\.0\) and "CDM" \(list\.1\)/,
    );
    expect(resolveProjectList(twoRegistries, { rejectAmbiguous: false })).toHaveLength(2);
    expect(() => resolveProjectList({ list: [{ projectId: 5, registry: 'x' }] }, { field: 'projects' })).toThrow(
      /^projects\.0\.registry: /,
    );
  });
});
