import { describe, expect, it } from 'vitest';
import { distinctProjects, distinctRefs, projectKey } from '../../src/domain/project-ref.js';

const A = { registry: 'Verra', projectId: 4086 };
const B = { registry: 'CDM', projectId: 4086 };

describe('project refs', () => {
  it('keys a project by registry and id, so one id under two registries is two projects', () => {
    expect(projectKey(A)).toBe('Verra:4086');
    expect(projectKey(B)).toBe('CDM:4086');
  });

  it('keeps the first occurrence of each project, in order', () => {
    expect(distinctRefs([A, B, { ...A }, B])).toEqual([A, B]);
    const asked = [
      { ref: B, requestedRegistry: 'cdm' },
      { ref: A, requestedRegistry: 'verra' },
      { ref: B, requestedRegistry: 'UNFCCC' },
    ];
    expect(distinctProjects(asked).map((p) => p.requestedRegistry)).toEqual(['cdm', 'verra']);
  });
});
