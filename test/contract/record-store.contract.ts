import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectKey, type ProjectRef } from '../../src/domain/project-ref.js';
import { DependencyError } from '../../src/errors.js';
import type { ProjectRecordInput, RecordStore } from '../../src/ports/record-store.js';
import { corpusPath } from '../support/corpus.js';
import { tick, type MakeBackend, type StoreBackend } from './store-backends.js';

const verra = (projectId: number): ProjectRef => ({ registry: 'Verra', projectId });

function record(ref: ProjectRef, extra: Record<string, unknown> = {}): ProjectRecordInput {
  return {
    ref,
    format: 'registry-json',
    raw: {
      registry: ref.registry,
      resourceIdentifier: String(ref.projectId),
      resourceName: `Project ${ref.projectId}`,
      description: 'First line.\r\nSecond line.',
      documentGroups: [],
      ...extra,
    },
  };
}

/** The same object with its keys in reverse order, at every level. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)]),
    );
  }
  return value;
}

/**
 * What every RecordStore must do, run against each backend (the hono router-suite pattern): each test starts on an
 * empty backend from `makeBackend`.
 */
export function recordStoreContract(name: string, makeBackend: MakeBackend<RecordStore>): void {
  describe(name, () => {
    let backend: StoreBackend<RecordStore>;
    let store: RecordStore;

    beforeEach(async () => {
      backend = await makeBackend();
      store = await backend.open();
    });

    afterEach(async () => {
      await store.close();
      await backend.dispose();
    });

    it('stores a real registry record and returns it exactly, key order included', async () => {
      const raw = JSON.parse(readFileSync(corpusPath('records', 'verra_4086_raw.json'), 'utf8')) as Record<string, unknown>;
      const input: ProjectRecordInput = { ref: verra(4086), format: 'registry-json', raw };
      expect(await store.upsert([input])).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
      const got = await store.get(verra(4086));
      expect(got).not.toBeNull();
      expect(JSON.stringify(got?.raw)).toBe(JSON.stringify(raw));
      expect(got?.ref).toEqual(verra(4086));
      expect(got?.format).toBe('registry-json');
      expect(got?.enrichment).toEqual({});
      expect(got?.hidden).toBe(false);
      expect(new Date(got?.updatedAt ?? '').toISOString()).toBe(got?.updatedAt);
    });

    it('round-trips unusual text: CR LF, non-Latin scripts, emoji, U+0000, lone surrogates', async () => {
      const text = 'a\r\nb \u00e9\u4e2d\u6587 \ud83c\udf33 nul:\u0000 lone:\ud800 end';
      await store.upsert([record(verra(1), { description: text, nested: { list: [text, 1.5, null, true] } })]);
      const got = await store.get(verra(1));
      expect(got?.raw.description).toBe(text);
      expect(got?.raw.nested).toEqual({ list: [text, 1.5, null, true] });
    });

    it('getMany returns only held projects, keyed by projectKey, whatever the input holds', async () => {
      await store.upsert([record(verra(1)), record(verra(2)), record({ registry: 'CDM', projectId: 1 })]);
      const refs = [verra(2), verra(404), { registry: 'CDM', projectId: 1 }, verra(2), { registry: 'Regen', projectId: 2 }];
      const got = await store.getMany(refs);
      expect([...got.keys()].sort()).toEqual(['CDM:1', 'Verra:2']);
      expect(got.get('Verra:2')?.raw.resourceName).toBe('Project 2');
      expect(got.get('CDM:1')?.ref).toEqual({ registry: 'CDM', projectId: 1 });
      expect((await store.getMany([])).size).toBe(0);
    });

    it('keeps registries apart: the same id under two registries is two projects', async () => {
      await store.upsert([record(verra(7), { resourceName: 'V' }), record({ registry: 'CDM', projectId: 7 }, { resourceName: 'C' })]);
      expect((await store.get(verra(7)))?.raw.resourceName).toBe('V');
      expect((await store.get({ registry: 'CDM', projectId: 7 }))?.raw.resourceName).toBe('C');
      expect(await store.count()).toBe(2);
    });

    it('lists by registry then numeric id, optionally one registry only', async () => {
      const refs = [verra(100), { registry: 'CDM', projectId: 9199 }, verra(9), { registry: 'Regen', projectId: 6006 }, verra(10)];
      await store.upsert(refs.map((r) => record(r)));
      expect(await store.list()).toEqual([
        { registry: 'CDM', projectId: 9199 },
        { registry: 'Regen', projectId: 6006 },
        verra(9),
        verra(10),
        verra(100),
      ]);
      expect(await store.list({ registry: 'Verra' })).toEqual([verra(9), verra(10), verra(100)]);
      expect(await store.list({ registry: 'Gold Standard' })).toEqual([]);
    });

    it('an identical re-import is unchanged and keeps updatedAt, even with keys in another order', async () => {
      const input = record(verra(5), { attributes: [{ code: 'PROJECT_ID', values: [{ type: 'string', value: '5' }] }] });
      await store.upsert([input]);
      const first = await store.get(verra(5));
      await tick();
      expect(await store.upsert([input])).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
      const reordered: ProjectRecordInput = { ...input, raw: reverseKeys(input.raw) as Record<string, unknown> };
      expect(await store.upsert([reordered])).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
      const after = await store.get(verra(5));
      expect(after?.updatedAt).toBe(first?.updatedAt);
      expect(await store.count()).toBe(1);
    });

    it('a changed record is updated in place: new raw, later updatedAt, no duplicate', async () => {
      await store.upsert([record(verra(5)), record(verra(6))]);
      const first = await store.get(verra(5));
      await tick();
      const result = await store.upsert([record(verra(5), { resourceName: 'Renamed' }), record(verra(6))]);
      expect(result).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
      const after = await store.get(verra(5));
      expect(after?.raw.resourceName).toBe('Renamed');
      expect(Date.parse(after?.updatedAt ?? '')).toBeGreaterThan(Date.parse(first?.updatedAt ?? ''));
      expect(await store.count()).toBe(2);
      // An element order change inside an array is a real change (document order is meaningful).
      await store.upsert([record(verra(6), { documentGroups: [{ code: 'A' }, { code: 'B' }] })]);
      expect(await store.upsert([record(verra(6), { documentGroups: [{ code: 'B' }, { code: 'A' }] })])).toEqual({
        inserted: 0,
        updated: 1,
        unchanged: 0,
      });
    });

    it('a format change with the same raw counts as an update', async () => {
      await store.upsert([record(verra(8))]);
      const asCsv: ProjectRecordInput = { ...record(verra(8)), format: 'csv:verra' };
      expect(await store.upsert([asCsv])).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
      expect((await store.get(verra(8)))?.format).toBe('csv:verra');
    });

    it('the same project twice in one batch: the later record wins and nothing is duplicated', async () => {
      const result = await store.upsert([record(verra(3), { resourceName: 'old' }), record(verra(3), { resourceName: 'new' })]);
      expect(result).toEqual({ inserted: 1, updated: 1, unchanged: 0 });
      expect((await store.get(verra(3)))?.raw.resourceName).toBe('new');
      expect(await store.count()).toBe(1);
    });

    it('merges enrichment field by field, and the merge survives raw updates', async () => {
      await store.upsert([record(verra(4086))]);
      await store.updateEnrichment(verra(4086), { summary: 'A rice project.', issuances: 10 });
      await store.updateEnrichment(verra(4086), { retirements: 3, issuances: undefined });
      await store.updateEnrichment(verra(4086), {
        emissionsReductions: { '2021': 12.5, '2022': -1 },
        emissionsReductionsSource: 'document',
        reductionActivity: ['AWD'],
      });
      const expected = {
        summary: 'A rice project.',
        issuances: 10,
        retirements: 3,
        emissionsReductions: { '2021': 12.5, '2022': -1 },
        emissionsReductionsSource: 'document',
        reductionActivity: ['AWD'],
      };
      expect((await store.get(verra(4086)))?.enrichment).toEqual(expected);
      await store.updateEnrichment(verra(4086), { issuances: 11 });
      await store.upsert([record(verra(4086), { resourceName: 'Renamed' })]);
      const after = await store.get(verra(4086));
      expect(after?.raw.resourceName).toBe('Renamed');
      expect(after?.enrichment).toEqual({ ...expected, issuances: 11 });
    });

    it('an enrichment change bumps updatedAt; a patch that changes nothing does not', async () => {
      await store.upsert([record(verra(1))]);
      const t0 = (await store.get(verra(1)))?.updatedAt ?? '';
      await tick();
      await store.updateEnrichment(verra(1), { summary: 's' });
      const t1 = (await store.get(verra(1)))?.updatedAt ?? '';
      expect(Date.parse(t1)).toBeGreaterThan(Date.parse(t0));
      await tick();
      await store.updateEnrichment(verra(1), { summary: 's' });
      await store.updateEnrichment(verra(1), {});
      expect((await store.get(verra(1)))?.updatedAt).toBe(t1);
    });

    it('hides and unhides a project; hidden survives raw updates and is still listed and counted', async () => {
      await store.upsert([record(verra(1)), record(verra(2))]);
      await store.setHidden(verra(1), true);
      expect((await store.get(verra(1)))?.hidden).toBe(true);
      expect((await store.get(verra(2)))?.hidden).toBe(false);
      await store.upsert([record(verra(1), { resourceName: 'changed' })]);
      expect((await store.get(verra(1)))?.hidden).toBe(true);
      expect((await store.getMany([verra(1)])).get('Verra:1')?.hidden).toBe(true);
      expect(await store.list()).toEqual([verra(1), verra(2)]);
      expect(await store.count()).toBe(2);
      const t = (await store.get(verra(1)))?.updatedAt;
      await tick();
      await store.setHidden(verra(1), true);
      expect((await store.get(verra(1)))?.updatedAt).toBe(t);
      await store.setHidden(verra(1), false);
      expect((await store.get(verra(1)))?.hidden).toBe(false);
    });

    it('unknown projects: get is null, enrichment and hidden are no-ops, nothing is created', async () => {
      await store.upsert([record(verra(1))]);
      expect(await store.get(verra(999))).toBeNull();
      await store.updateEnrichment(verra(999), { summary: 'x' });
      await store.setHidden(verra(999), true);
      expect(await store.get(verra(999))).toBeNull();
      expect(await store.count()).toBe(1);
      expect(await store.list()).toEqual([verra(1)]);
    });

    it('counts projects across registries', async () => {
      expect(await store.count()).toBe(0);
      await store.upsert([record(verra(1)), record({ registry: 'CDM', projectId: 1 }), record(verra(2))]);
      expect(await store.count()).toBe(3);
      await store.upsert([record(verra(2), { resourceName: 'x' })]);
      expect(await store.count()).toBe(3);
    });

    it('handles a batch of 1,000 records: insert, read all back, re-import unchanged', async () => {
      const refs = Array.from({ length: 1000 }, (_, i) => verra(i + 1));
      const inputs = refs.map((r) => record(r, { description: `Description of ${r.projectId} `.repeat(40) }));
      expect(await store.upsert(inputs)).toEqual({ inserted: 1000, updated: 0, unchanged: 0 });
      expect(await store.count()).toBe(1000);
      const all = await store.getMany(refs);
      expect(all.size).toBe(1000);
      expect(all.get('Verra:777')?.raw.resourceName).toBe('Project 777');
      expect(await store.upsert(inputs)).toEqual({ inserted: 0, updated: 0, unchanged: 1000 });
      const changed = inputs.map((r, i) => (i % 10 === 0 ? record(r.ref, { resourceName: 'changed' }) : r));
      expect(await store.upsert(changed)).toEqual({ inserted: 0, updated: 100, unchanged: 900 });
      const listed = await store.list();
      expect(listed).toHaveLength(1000);
      expect(listed[999]).toEqual(verra(1000));
    });

    it('concurrent upserts from two stores on one backend lose nothing and duplicate nothing', async () => {
      const other = await backend.open();
      try {
        // Overlapping halves, written at once from both stores in small batches.
        const a = Array.from({ length: 300 }, (_, i) => record(verra(i + 1)));
        const b = Array.from({ length: 300 }, (_, i) => record(verra(i + 151)));
        const batches = (xs: ProjectRecordInput[]) => Array.from({ length: 6 }, (_, k) => xs.slice(k * 50, k * 50 + 50));
        const results = await Promise.all([
          ...batches(a).map((batch) => store.upsert(batch)),
          ...batches(b).map((batch) => other.upsert(batch)),
        ]);
        const total = results.reduce(
          (acc, r) => ({ inserted: acc.inserted + r.inserted, updated: acc.updated + r.updated, unchanged: acc.unchanged + r.unchanged }),
          { inserted: 0, updated: 0, unchanged: 0 },
        );
        // 450 distinct projects; the 150 written twice were identical, so the second write of each is unchanged.
        expect(total).toEqual({ inserted: 450, updated: 0, unchanged: 150 });
        expect(await store.count()).toBe(450);
        expect(await other.count()).toBe(450);
      } finally {
        await other.close();
      }
    });

    it('concurrent enrichment merges of different fields all land', async () => {
      const other = await backend.open();
      try {
        await store.upsert([record(verra(1))]);
        await Promise.all([
          store.updateEnrichment(verra(1), { summary: 'from A' }),
          other.updateEnrichment(verra(1), { issuances: 5 }),
          store.updateEnrichment(verra(1), { retirements: 2 }),
          other.updateEnrichment(verra(1), { reductionActivity: ['x'] }),
        ]);
        expect((await store.get(verra(1)))?.enrichment).toEqual({
          summary: 'from A',
          issuances: 5,
          retirements: 2,
          reductionActivity: ['x'],
        });
      } finally {
        await other.close();
      }
    });

    it('a second store on the same backend sees new writes without reopening, and migrating again is a no-op', async () => {
      const other = await backend.open();
      try {
        expect(await other.get(verra(1))).toBeNull();
        await store.upsert([record(verra(1))]);
        expect((await other.get(verra(1)))?.raw.resourceName).toBe('Project 1');
        await other.upsert([record(verra(1), { resourceName: 'from other' })]);
        expect((await store.get(verra(1)))?.raw.resourceName).toBe('from other');
      } finally {
        await other.close();
      }
    });

    it('rejects bad input with a message naming the record and the value, and writes nothing', async () => {
      const bad = [
        record(verra(1)),
        { ref: { registry: 'Verra', projectId: -4 }, format: 'registry-json', raw: {} },
      ] as ProjectRecordInput[];
      await expect(store.upsert(bad)).rejects.toThrow(/records\[1\]\.ref\.projectId must be a positive integer \(got -4\)/);
      await expect(store.upsert([{ ref: verra(2), format: 'xml', raw: {} } as unknown as ProjectRecordInput])).rejects.toThrow(
        /records\[0\]\.format/,
      );
      await expect(store.upsert([{ ref: verra(2), format: 'registry-json', raw: [] } as unknown as ProjectRecordInput])).rejects.toThrow(
        /records\[0\]\.raw must be a JSON object/,
      );
      await expect(
        store.upsert([{ ref: verra(2), format: 'registry-json', raw: { n: 10n } } as unknown as ProjectRecordInput]),
      ).rejects.toThrow(/records\[0\]\.raw cannot be stored as JSON/);
      await expect(store.get({ registry: '', projectId: 1 })).rejects.toThrow(/registry must be a non-empty string/);
      await expect(store.getMany([verra(1), { registry: 'Verra', projectId: 1.5 }])).rejects.toThrow(/refs\[1\]\.projectId/);
      expect(await store.count()).toBe(0);
    });

    it('ping succeeds while the backend is up; once it is gone every call is a DependencyError naming the store', async () => {
      await store.upsert([record(verra(1))]);
      await expect(store.ping()).resolves.toBeUndefined();
      await backend.breakConnection();
      for (const call of [() => store.ping(), () => store.get(verra(1)), () => store.upsert([record(verra(2))]), () => store.count()]) {
        const err = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(DependencyError);
        expect((err as DependencyError).dependency).toBe('record store');
        expect((err as DependencyError).message).toMatch(/record store/);
      }
    });

    it('opening a store on an unreachable backend fails with a DependencyError', async () => {
      const err = await backend.openUnreachable().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DependencyError);
      expect((err as DependencyError).dependency).toBe('record store');
    });

    it('a closed store answers DependencyError (the API maps it to 503), the data stays', async () => {
      const other = await backend.open();
      await store.upsert([record(verra(1))]);
      await store.close();
      await expect(store.get(verra(1))).rejects.toBeInstanceOf(DependencyError);
      await expect(store.ping()).rejects.toThrow(/record store is closed/);
      expect(projectKey((await other.get(verra(1)))?.ref ?? verra(0))).toBe('Verra:1');
      await other.close();
    });
  });
}
