import { describe, expect, it } from 'vitest';
import { skipUnchanged } from '../../../ingest/stages/unchanged.js';
import type { DocumentWorkItem, StageContext } from '../../../ingest/types.js';
import type { DocumentState } from '../../../src/ports/document-state-store.js';

/** The unchanged stage: which earlier runs let a downloaded document end without being extracted again. */

const previous: DocumentState = {
  registry: 'Verra',
  projectId: 1,
  documentId: 'd1',
  uri: 'https://registry.verra.org/a.pdf',
  title: 'a.pdf',
  documentType: 'Project Description',
  uploadDate: '2024-01-01T00:00:00.000Z',
  status: 'indexed',
  reason: null,
  contentHash: 'h1',
  pages: 3,
  chunks: 9,
  embedderId: 'use-lite-512',
  updatedAt: '2024-01-02T00:00:00.000Z',
};

const CONTENT = { bytes: Buffer.from('%PDF-'), contentType: 'application/pdf', contentHash: 'h1', finalUrl: previous.uri };

const item = (over: Partial<DocumentWorkItem> = {}, prev: Partial<DocumentState> = {}): DocumentWorkItem => ({
  ref: { registry: 'Verra', projectId: 1 },
  documentId: 'd1',
  uri: previous.uri,
  title: previous.title,
  documentType: previous.documentType,
  uploadDate: previous.uploadDate,
  previous: { ...previous, ...prev },
  content: CONTENT,
  ...over,
});

// The stage reads the embedder's id and `force` only.
const ctx = (force = false): StageContext => ({ deps: { embedder: { id: 'use-lite-512' } }, force }) as unknown as StageContext;

describe('skipUnchanged', () => {
  it('ends a document indexed from the same bytes, date, title, type and uri by the same embedder', async () => {
    expect((await skipUnchanged(item(), ctx())).outcome).toEqual({ kind: 'unchanged' });
  });

  it('goes on when anything a chunk carries changed, or the embedder did', async () => {
    const changed: DocumentWorkItem[] = [
      item({ content: { ...CONTENT, contentHash: 'h2' } }),
      item({ uploadDate: '2025-01-01T00:00:00.000Z' }),
      item({ title: 'a (revised).pdf' }),
      item({ documentType: 'Validation Report' }),
      item({}, { uri: 'https://registry.verra.org/old.pdf' }),
      item({}, { embedderId: 'onnx:Xenova/all-MiniLM-L6-v2' }),
    ];
    for (const i of changed) expect((await skipUnchanged(i, ctx())).outcome).toBeUndefined();
  });

  it('redoes a document left pending or failed, and one forced by --reindex', async () => {
    expect((await skipUnchanged(item({}, { status: 'pending', contentHash: null }), ctx())).outcome).toBeUndefined();
    expect((await skipUnchanged(item({}, { status: 'failed' }), ctx())).outcome).toBeUndefined();
    expect((await skipUnchanged(item(), ctx(true))).outcome).toBeUndefined();
  });

  it('does not try again the same bytes that gave no text, or were not a PDF, whatever the embedder', async () => {
    for (const status of ['needs_ocr', 'skipped'] as const) {
      expect((await skipUnchanged(item({}, { status, embedderId: null }), ctx())).outcome).toEqual({ kind: 'unchanged' });
    }
  });

  it('passes a document seen for the first time', async () => {
    expect((await skipUnchanged(item({ previous: null }), ctx())).outcome).toBeUndefined();
  });
});
