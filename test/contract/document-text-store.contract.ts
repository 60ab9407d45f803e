import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProjectRef } from '../../src/domain/project-ref.js';
import { DependencyError } from '../../src/errors.js';
import type { DocumentTextStore } from '../../src/ports/document-text-store.js';
import type { MakeBackend, StoreBackend } from './store-backends.js';

const verra = (projectId: number): ProjectRef => ({ registry: 'Verra', projectId });

/** 250 pages of about 3,000 characters, each different, like a long methodology PDF. */
const longDocument = (): string[] =>
  Array.from(
    { length: 250 },
    (_, i) => `Page ${i + 1}\n${`Emission reductions of year ${2000 + (i % 30)} are 1,234.5 tCO2e. `.repeat(45)}`,
  );

/** What every DocumentTextStore must do, run against each backend; each test starts on an empty backend. */
export function documentTextStoreContract(name: string, makeBackend: MakeBackend<DocumentTextStore>): void {
  describe(name, () => {
    let backend: StoreBackend<DocumentTextStore>;
    let store: DocumentTextStore;

    beforeEach(async () => {
      backend = await makeBackend();
      store = await backend.open();
    });

    afterEach(async () => {
      await store.close();
      await backend.dispose();
    });

    it('stores a 250-page document and returns every page in order', async () => {
      const pages = longDocument();
      await store.put(verra(1), 'pd', pages);
      const got = await store.get(verra(1), 'pd');
      expect(got).toHaveLength(250);
      expect(got).toEqual(pages);
    });

    it('round-trips text as extracted: empty pages, CR LF, non-Latin scripts, U+0000, lone surrogates', async () => {
      const pages = ['', 'a\r\nb', '\u4e2d\u6587 \u00e9 \ud83c\udf33', 'nul:\u0000:end', 'lone:\ud800', '  spaced  '];
      await store.put(verra(1), 'odd', pages);
      expect(await store.get(verra(1), 'odd')).toEqual(pages);
      await store.put(verra(1), 'empty', []);
      expect(await store.get(verra(1), 'empty')).toEqual([]);
    });

    it('a second put replaces the pages; unknown documents are null', async () => {
      await store.put(verra(1), 'pd', ['old 1', 'old 2', 'old 3']);
      await store.put(verra(1), 'pd', ['new 1']);
      expect(await store.get(verra(1), 'pd')).toEqual(['new 1']);
      expect(await store.get(verra(1), 'other')).toBeNull();
      expect(await store.get(verra(2), 'pd')).toBeNull();
    });

    it('keeps documents of different projects and registries apart, and deletes only the one named', async () => {
      await store.put(verra(7), 'd', ['verra']);
      await store.put({ registry: 'CDM', projectId: 7 }, 'd', ['cdm']);
      await store.put(verra(8), 'd', ['verra 8']);
      expect(await store.get({ registry: 'CDM', projectId: 7 }, 'd')).toEqual(['cdm']);
      await store.delete(verra(7), 'd');
      expect(await store.get(verra(7), 'd')).toBeNull();
      expect(await store.get({ registry: 'CDM', projectId: 7 }, 'd')).toEqual(['cdm']);
      expect(await store.get(verra(8), 'd')).toEqual(['verra 8']);
      await expect(store.delete(verra(404), 'nothing')).resolves.toBeUndefined();
    });

    it('a second store on the same backend reads what the first wrote', async () => {
      const other = await backend.open();
      try {
        await store.put(verra(1), 'pd', ['p1', 'p2']);
        expect(await other.get(verra(1), 'pd')).toEqual(['p1', 'p2']);
      } finally {
        await other.close();
      }
    });

    it('rejects bad arguments with a message naming them', async () => {
      await expect(store.put(verra(1), 'pd', ['ok', 3 as unknown as string])).rejects.toThrow(/pages\[1\] must be a string \(got 3\)/);
      await expect(store.put(verra(1), 'pd', 'text' as unknown as string[])).rejects.toThrow(/pages must be an array of strings/);
      await expect(store.put(verra(1), '', ['x'])).rejects.toThrow(/documentId must be a non-empty string/);
      await expect(store.get({ registry: 'Verra', projectId: Number.NaN }, 'pd')).rejects.toThrow(/projectId must be a positive integer/);
      expect(await store.get(verra(1), 'pd')).toBeNull();
    });

    it('a lost backend, an unreachable one and a closed store all answer DependencyError naming the store', async () => {
      const unreachable = await backend.openUnreachable().then(
        () => null,
        (e: unknown) => e,
      );
      expect(unreachable).toBeInstanceOf(DependencyError);
      expect((unreachable as DependencyError).dependency).toBe('document text store');

      const other = await backend.open();
      await other.close();
      await expect(other.get(verra(1), 'pd')).rejects.toBeInstanceOf(DependencyError);

      await store.put(verra(1), 'pd', ['x']);
      await backend.breakConnection();
      for (const call of [() => store.get(verra(1), 'pd'), () => store.put(verra(1), 'pd', ['y']), () => store.delete(verra(1), 'pd')]) {
        const err = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(DependencyError);
        expect((err as DependencyError).dependency).toBe('document text store');
      }
    });
  });
}
