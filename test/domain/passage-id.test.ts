import { describe, expect, it } from 'vitest';
import { documentIdFor } from '../../src/domain/chunking.js';
import { formatPassageId, pageLink, parsePassageId } from '../../src/domain/passage-id.js';

const documentId = documentIdFor('https://registry.verra.org/mymodule/ProjectDoc/Project_ViewFile.asp?FileID=83712');

describe('passage ids', () => {
  it('name registry, project, document and page, readably, and read back to the same passage', () => {
    const ref = { registry: 'Gold Standard', projectId: 4086, documentId, page: 12 };
    const id = formatPassageId(ref);
    expect(id).toBe(`gold_standard:4086:${documentId}:12`);
    expect(parsePassageId(id)).toEqual(ref);
    expect(parsePassageId(` ${id} `)).toEqual(ref);
  });

  it('depend only on what identifies the page: the same document uri gives the same id, another fragment included', () => {
    const again = documentIdFor('https://registry.verra.org/mymodule/ProjectDoc/Project_ViewFile.asp?FileID=83712#page=3');
    expect(formatPassageId({ registry: 'Verra', projectId: 1, documentId: again, page: 2 })).toBe(
      formatPassageId({ registry: 'Verra', projectId: 1, documentId, page: 2 }),
    );
  });

  it('refuse strings that are not such ids', () => {
    for (const bad of [
      '',
      'verra:4086',
      `nowhere:4086:${documentId}:1`,
      `verra:0:${documentId}:1`,
      `verra:-4:${documentId}:1`,
      `verra:4086:${documentId.slice(1)}:1`,
      `verra:4086:${documentId.toUpperCase()}:1`,
      `verra:4086:${documentId}:0`,
      `verra:4086:${documentId}:1:2`,
      `verra:4086:${documentId}:1.5`,
    ]) {
      expect(parsePassageId(bad), bad).toBeNull();
    }
    // Registry aliases name the same registry.
    expect(parsePassageId(`vcs:4086:${documentId}:1`)?.registry).toBe('Verra');
  });
});

describe('pageLink', () => {
  it('opens the document at the page, replacing a fragment it had', () => {
    expect(pageLink('https://example.org/a.pdf', 3)).toBe('https://example.org/a.pdf#page=3');
    expect(pageLink('https://example.org/a.pdf#page=1', 7)).toBe('https://example.org/a.pdf#page=7');
  });
});
