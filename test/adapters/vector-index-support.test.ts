import { describe, expect, it } from 'vitest';
import {
  checkChunk,
  checkDocumentChunks,
  checkIndexIdentity,
  checkQueryVector,
  checkTopK,
  describeVector,
} from '../../src/adapters/vector-index-support.js';
import type { ChunkWithVector } from '../../src/ports/vector-index.js';

const chunk: ChunkWithVector = {
  id: 'c1',
  registry: 'Verra',
  projectId: 1,
  documentId: 'd',
  documentTitle: 'd.pdf',
  documentType: 'Other',
  uri: 'https://x/d.pdf',
  page: 1,
  offset: 0,
  text: 'x',
  vector: new Float32Array([0.6, 0.8]),
};

describe('vector index argument checks', () => {
  it('accepts a sound chunk and lists every problem of a bad one in one error naming it', () => {
    expect(() => checkChunk(chunk, 2)).not.toThrow();
    expect(() => checkChunk({ ...chunk, page: 0, vector: new Float32Array(3) }, 2)).toThrow(
      'invalid chunk "c1": page must be a 1-based integer, got 0; vector must be a Float32Array of 2 dimensions, got 3 dimensions',
    );
    expect(() => checkChunk({ ...chunk, vector: new Float32Array([Number.NaN, 1]) }, 2)).toThrow(/NaN or infinite/);
    expect(() => checkChunk({ ...chunk, sentenceVectors: [new Float32Array(2), new Float32Array(1)] }, 2)).toThrow(
      /sentenceVectors\[1\] must be/,
    );
  });

  it('refuses in replaceDocument a chunk of another document', () => {
    expect(() => checkDocumentChunks({ registry: 'Verra', projectId: 1 }, 'd', [chunk], 2)).not.toThrow();
    expect(() => checkDocumentChunks({ registry: 'Verra', projectId: 1 }, 'e', [chunk], 2)).toThrow(/chunk c1 belongs to document d/);
  });

  it('checks the index identity, topK and the query vector, saying what it got', () => {
    expect(() => checkIndexIdentity({ embedderId: '', dimensions: 2 })).toThrow('open() needs a non-empty embedderId, got ""');
    expect(() => checkIndexIdentity({ embedderId: 'use', dimensions: 0 })).toThrow(/positive integer dimensions, got 0/);
    expect(() => checkTopK(-1)).toThrow(RangeError);
    expect(() => checkTopK(0)).not.toThrow();
    expect(() => checkQueryVector([0.6, 0.8], 2)).toThrow('query vector must be a Float32Array of 2 dimensions, got object');
    expect(describeVector(null)).toBe('null');
  });
});
