import { describe, expect, it } from 'vitest';
import { chunkPages } from '../../../src/domain/chunking.js';
import { toChunkRecords } from '../../../ingest/stages/upsert.js';
import type { DocumentWorkItem } from '../../../ingest/types.js';

function item(pages: string[], projectContext?: string): DocumentWorkItem {
  const chunks = chunkPages(pages, { maxTokens: 200 });
  return {
    ref: { registry: 'Verra', projectId: 77 },
    documentId: 'doc-1',
    uri: 'https://registry.example/doc-1.pdf',
    title: 'PD_v1.pdf',
    documentType: 'Project Description',
    uploadDate: null,
    previous: null,
    ...(projectContext === undefined ? {} : { projectContext }),
    pages,
    chunks,
    vectors: chunks.map(() => new Float32Array([1, 0, 0])),
  };
}

describe('toChunkRecords: search context', () => {
  it('gives every chunk the project context and, per chunk, the other form of the abbreviations it uses', () => {
    const records = toChunkRecords(
      item(
        [
          'The Global Warming Potential (GWP) of methane and the Designated Operational Entity (DOE) are defined here.',
          'Emissions are converted with a GWP of 21.',
          'The designated operational entity visited the site.',
          'Nothing abbreviated on this page.',
        ],
        'Quokka Highlands REDD\nVerra project 77',
      ),
    );
    expect(records.map((r) => [r.page, r.context])).toEqual([
      [1, 'Quokka Highlands REDD\nVerra project 77'],
      [2, 'Quokka Highlands REDD\nVerra project 77\nglobal warming potential'],
      [3, 'Quokka Highlands REDD\nVerra project 77\nDOE'],
      [4, 'Quokka Highlands REDD\nVerra project 77'],
    ]);
    // The cited text is the passage alone.
    expect(records[1]?.text).toBe('Emissions are converted with a GWP of 21.');
  });

  it('leaves the context out when there is neither a project context nor an abbreviation', () => {
    const records = toChunkRecords(item(['Plain text about tree planting.']));
    expect(records).toHaveLength(1);
    expect(records[0]).not.toHaveProperty('context');
  });
});
