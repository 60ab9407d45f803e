import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import { DependencyError } from '../../src/errors.js';
import type { DocumentStateInput, DocumentStateStore, DocumentStatus } from '../../src/ports/document-state-store.js';
import { tick, type MakeBackend, type StoreBackend } from './store-backends.js';

const verra = (projectId: number): ProjectRef => ({ registry: 'Verra', projectId });

function state(ref: ProjectRef, documentId: string, over: Partial<DocumentStateInput> = {}): DocumentStateInput {
  return {
    registry: ref.registry,
    projectId: ref.projectId,
    documentId,
    uri: `http://127.0.0.1:9/pdf/${documentId}.pdf`,
    title: `${documentId}.pdf`,
    documentType: 'Project Description',
    uploadDate: '2025-08-04T10:00:00.000Z',
    status: 'pending',
    reason: null,
    contentHash: null,
    pages: null,
    chunks: null,
    embedderId: null,
    ...over,
  };
}

const withoutTime = <T extends { updatedAt: string }>(s: T | null): Omit<T, 'updatedAt'> | null => {
  if (s === null) return null;
  const { updatedAt: _ignored, ...rest } = s;
  return rest;
};

/** What every DocumentStateStore must do, run against each backend; each test starts on an empty backend. */
export function documentStateStoreContract(name: string, makeBackend: MakeBackend<DocumentStateStore>): void {
  describe(name, () => {
    let backend: StoreBackend<DocumentStateStore>;
    let store: DocumentStateStore;

    beforeEach(async () => {
      backend = await makeBackend();
      store = await backend.open();
    });

    afterEach(async () => {
      await store.close();
      await backend.dispose();
    });

    it('puts and gets a state with every field, and stamps updatedAt', async () => {
      const full = state(verra(5533), 'doc-1', {
        status: 'indexed',
        reason: null,
        contentHash: 'sha256:abc',
        pages: 66,
        chunks: 412,
        embedderId: 'use:512',
        title: 'Proj\u00e9t \u4e2d\u6587.pdf',
      });
      const before = Date.now();
      await store.put(full);
      const got = await store.get(verra(5533), 'doc-1');
      expect(withoutTime(got)).toEqual(full);
      expect(Date.parse(got?.updatedAt ?? '')).toBeGreaterThanOrEqual(before - 1);
      expect(await store.get(verra(5533), 'doc-2')).toBeNull();
      expect(await store.get(verra(1), 'doc-1')).toBeNull();
    });

    it('keeps how many pages were read by OCR, and gives none for a state without', async () => {
      await store.put(state(verra(4), 'scanned', { status: 'indexed', pages: 50, chunks: 80, ocrPages: 48 }));
      await store.put(state(verra(4), 'typed', { status: 'indexed', pages: 9, chunks: 20 }));
      expect((await store.get(verra(4), 'scanned'))?.ocrPages).toBe(48);
      const typed = await store.get(verra(4), 'typed');
      expect(typed && 'ocrPages' in typed).toBe(false);
      await store.put(state(verra(4), 'scanned', { status: 'indexed', pages: 50, chunks: 80 }));
      expect((await store.get(verra(4), 'scanned'))?.ocrPages).toBeUndefined();
    });

    it('a second put replaces the state (no duplicate) and moves updatedAt', async () => {
      await store.put(state(verra(1), 'd'));
      const first = await store.get(verra(1), 'd');
      await tick();
      await store.put(state(verra(1), 'd', { status: 'failed', reason: 'HTTP 404 from registry' }));
      const second = await store.get(verra(1), 'd');
      expect(second?.status).toBe('failed');
      expect(second?.reason).toBe('HTTP 404 from registry');
      expect(Date.parse(second?.updatedAt ?? '')).toBeGreaterThan(Date.parse(first?.updatedAt ?? ''));
      expect(await store.list()).toHaveLength(1);
    });

    it('stores a title or reason with U+0000 (PDF metadata can hold one) without failing', async () => {
      await store.put(state(verra(1), 'd', { title: 'a\u0000b.pdf', status: 'failed', reason: 'bad \u0000 byte' }));
      const got = await store.get(verra(1), 'd');
      // PostgreSQL text cannot hold U+0000, so a backend may drop it; the rest of the text must survive.
      expect(got?.title.replace(/\u0000/g, '')).toBe('ab.pdf');
      expect(got?.reason?.replace(/\u0000/g, '')).toBe('bad  byte');
    });

    it('keeps projects and registries apart', async () => {
      await store.put(state(verra(7), 'd', { title: 'verra' }));
      await store.put(state({ registry: 'CDM', projectId: 7 }, 'd', { title: 'cdm' }));
      expect((await store.get(verra(7), 'd'))?.title).toBe('verra');
      expect((await store.get({ registry: 'CDM', projectId: 7 }, 'd'))?.title).toBe('cdm');
    });

    it('lists all states in a stable order, filtered by projects, by status or both', async () => {
      await store.put(state(verra(10), 'b', { status: 'indexed' }));
      await store.put(state(verra(9), 'a', { status: 'failed', reason: 'x' }));
      await store.put(state(verra(10), 'a', { status: 'indexed' }));
      await store.put(state({ registry: 'CDM', projectId: 1 }, 'z', { status: 'needs_ocr', reason: 'no text layer' }));
      await store.put(state(verra(11), 'c', { status: 'skipped', reason: 'KML file' }));
      const key = (s: { registry: string; projectId: number; documentId: string }) => `${s.registry}:${s.projectId}/${s.documentId}`;
      expect((await store.list()).map(key)).toEqual(['CDM:1/z', 'Verra:9/a', 'Verra:10/a', 'Verra:10/b', 'Verra:11/c']);
      expect((await store.list({ status: 'indexed' })).map(key)).toEqual(['Verra:10/a', 'Verra:10/b']);
      expect((await store.list({ projects: [verra(9), { registry: 'CDM', projectId: 1 }, verra(404)] })).map(key)).toEqual([
        'CDM:1/z',
        'Verra:9/a',
      ]);
      expect((await store.list({ projects: [verra(10), verra(9)], status: 'failed' })).map(key)).toEqual(['Verra:9/a']);
      expect(await store.list({ projects: [] })).toEqual([]);
      expect(await store.list({ status: 'pending' })).toEqual([]);
    });

    it('counts indexed documents per requested project, 0 for projects with none', async () => {
      await store.put(state(verra(1), 'a', { status: 'indexed' }));
      await store.put(state(verra(1), 'b', { status: 'indexed' }));
      await store.put(state(verra(1), 'c', { status: 'failed', reason: 'x' }));
      await store.put(state(verra(2), 'a', { status: 'pending' }));
      await store.put(state({ registry: 'CDM', projectId: 1 }, 'a', { status: 'indexed' }));
      const counts = await store.countIndexed([verra(1), verra(2), verra(3), { registry: 'CDM', projectId: 1 }, verra(1)]);
      expect(Object.fromEntries(counts)).toEqual({ 'Verra:1': 2, 'Verra:2': 0, 'Verra:3': 0, 'CDM:1': 1 });
      expect((await store.countIndexed([])).size).toBe(0);
    });

    it('removeOthers deletes the documents a project no longer lists and returns them', async () => {
      for (const id of ['a', 'b', 'c', 'd']) await store.put(state(verra(1), id));
      await store.put(state(verra(2), 'a'));
      const removed = await store.removeOthers(verra(1), ['b', 'd', 'not-there']);
      expect(removed.map((s) => s.documentId).sort()).toEqual(['a', 'c']);
      expect(removed[0]?.uri).toBe('http://127.0.0.1:9/pdf/a.pdf');
      expect((await store.list({ projects: [verra(1)] })).map((s) => s.documentId)).toEqual(['b', 'd']);
      expect(await store.get(verra(2), 'a')).not.toBeNull();
      expect(await store.removeOthers(verra(1), ['b', 'd'])).toEqual([]);
      expect((await store.removeOthers(verra(1), [])).map((s) => s.documentId)).toEqual(['b', 'd']);
      expect(await store.list({ projects: [verra(1)] })).toEqual([]);
      expect(await store.removeOthers(verra(404), [])).toEqual([]);
    });

    it('handles many projects in one filter (1,200 projects, 1,800 states)', async () => {
      const refs = Array.from({ length: 1200 }, (_, i) => verra(i + 1));
      const states = refs.flatMap((ref) => [
        state(ref, 'pd', { status: 'indexed' }),
        ...(ref.projectId % 2 === 0 ? [state(ref, 'vr', { status: 'indexed' })] : []),
      ]);
      for (let i = 0; i < states.length; i += 50) await Promise.all(states.slice(i, i + 50).map((s) => store.put(s)));
      await store.put(state(verra(3), 'vr', { status: 'pending' }));
      expect(await store.list({ projects: refs })).toHaveLength(1801);
      const counts = await store.countIndexed(refs);
      expect(counts.get('Verra:2')).toBe(2);
      expect(counts.get('Verra:3')).toBe(1);
      expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(1800);
    });

    it('rejects bad states and arguments with a message naming the field and value', async () => {
      await expect(store.put(state(verra(1), 'd', { status: 'done' as DocumentStatus }))).rejects.toThrow(
        /status must be one of pending, indexed, failed, skipped, needs_ocr \(got "done"\)/,
      );
      await expect(store.put(state(verra(1), ''))).rejects.toThrow(/documentId must be a non-empty string/);
      await expect(store.put(state(verra(1), 'd', { pages: -1 }))).rejects.toThrow(/pages must be a non-negative integer/);
      await expect(store.put({ ...state(verra(1), 'd'), projectId: 0 })).rejects.toThrow(/projectId must be a positive integer/);
      await expect(store.list({ status: 'nope' as DocumentStatus })).rejects.toThrow(/status must be one of/);
      await expect(store.removeOthers(verra(1), [3 as unknown as string])).rejects.toThrow(/documentId must be a non-empty string/);
      expect(await store.list()).toEqual([]);
    });

    it('a second store on the same backend sees writes at once', async () => {
      const other = await backend.open();
      try {
        await store.put(state(verra(1), 'd', { status: 'indexed' }));
        expect((await other.get(verra(1), 'd'))?.status).toBe('indexed');
        expect(Object.fromEntries(await other.countIndexed([verra(1)]))).toEqual({ 'Verra:1': 1 });
      } finally {
        await other.close();
      }
    });

    it('a lost backend, an unreachable one and a closed store all answer DependencyError naming the store', async () => {
      const unreachable = await backend.openUnreachable().then(
        () => null,
        (e: unknown) => e,
      );
      expect(unreachable).toBeInstanceOf(DependencyError);
      expect((unreachable as DependencyError).dependency).toBe('document state store');

      const other = await backend.open();
      await other.close();
      await expect(other.list()).rejects.toBeInstanceOf(DependencyError);

      await store.put(state(verra(1), 'd'));
      await backend.breakConnection();
      for (const call of [() => store.get(verra(1), 'd'), () => store.put(state(verra(1), 'e')), () => store.countIndexed([verra(1)])]) {
        const err = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(DependencyError);
        expect((err as DependencyError).dependency).toBe('document state store');
      }
    });
  });
}
