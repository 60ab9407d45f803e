import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { importRegistryExport } from '../../ingest/registry-exports.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import type { CleanedRecord } from '../../src/domain/cleaned-record.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import { isometricProjectId } from '../../src/domain/registry-exports/isometric.js';
import { REGISTRY_EXPORTS } from '../../src/domain/registry-exports/index.js';
import type { CountryLookup } from '../../src/ports/country-lookup.js';
import type { RecordStore } from '../../src/ports/record-store.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

let countries: CountryLookup;
let db: SqliteDatabase;
let store: RecordStore;
let dir: string;

beforeAll(async () => {
  countries = createCountryLookup();
  dir = await mkdtemp(path.join(tmpdir(), 'h8-exports-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  db = openSqlite({ dataDir: ':memory:' });
  store = await createSqliteRecordStore({ db });
});
afterEach(async () => {
  await store.close();
  db.close();
});

const csvOf = (source: string) => corpusPath('registry-exports', source, 'projects.csv');

async function cleaned(registry: string, projectId: number): Promise<CleanedRecord> {
  const stored = await store.get({ registry, projectId });
  if (!stored) throw new Error(`${registry} ${projectId} not stored`);
  return deriveCleaned(stored, { requestedRegistry: registry, countries });
}

describeWithService(
  'registry exports: the real CSVs',
  {
    available: corpusAvailable,
    why: 'corpus not found',
  },
  () => {
    it.each(REGISTRY_EXPORTS.map((m) => [m.source, m.registry]))(
      '%s: every row imports, derives a cleaned record with the four groups, and re-imports unchanged',
      async (source, registry) => {
        const r = await importRegistryExport(store, source, csvOf(source));
        expect(r.failed).toEqual([]);
        expect(r.rows).toBe(50);
        expect(r.inserted).toBe(50);
        const refs = await store.list({ registry });
        expect(refs).toHaveLength(50);
        for (const ref of refs) {
          const c = await cleaned(registry, ref.projectId);
          expect(c.name.length).toBeGreaterThan(0);
          expect(c.resourceIdentifier).toBe(ref.projectId);
          expect(c.registry).toBe(registry);
          expect(c.documentGroups).toHaveLength(4);
          expect(c.metadata.reduction_activity.length).toBeGreaterThan(0);
        }
        const again = await importRegistryExport(store, source, csvOf(source));
        expect(again.unchanged).toBe(50);
        expect(again.inserted + again.updated).toBe(0);
      },
    );

    it('Verra: maps each column and keeps the row as raw', async () => {
      await importRegistryExport(store, 'Verra', csvOf('verra'));
      const stored = await store.get({ registry: 'Verra', projectId: 5957 });
      expect(stored?.format).toBe('csv:verra');
      expect(stored?.raw).toMatchObject({ ID: '5957', Name: 'KENYA HIGHLANDS GROUPED CARBON PROJECT', 'AFOLU Activities': 'ALM' });
      const c = await cleaned('Verra', 5957);
      expect(c).toMatchObject({
        name: 'KENYA HIGHLANDS GROUPED CARBON PROJECT',
        proponent: 'Multiple Proponents',
        type: 'Agriculture Forestry and Other Land Use',
        methodology: 'VM0042',
        status: 'Under development',
        location: 'Kenya',
        reductions: 191805,
        registration: null,
        'Reported Period': 20,
        'Total Reported Sequestration': 3836100,
        'Size (Hectares)': 0,
      });
      expect(c.metadata.reduction_activity).toEqual(['Agricultural Land Management', 'Agriculture Forestry and Other Land Use']);
      expect(Object.keys(c.metadata.emissions_reductions)).toHaveLength(21);
      expect(c.metadata.emissions_reductions['2030']).toBe(191805);
      expect(c.documentGroups.map((g) => g.description)).toEqual([
        'VCS Pipeline Documents',
        'VCS Registration Documents',
        'VCS Issuance Documents',
        'VCS Other Documents',
      ]);
      // "REDD; WRC" expands to both activity names.
      const redd = await cleaned('Verra', 5953);
      expect(redd.metadata.reduction_activity[0]).toBe('Reducing Emissions from Deforestation and Forest Degradation');
    });

    it('Gold Standard: description, developer and estimate; no period, so no yearly spread', async () => {
      await importRegistryExport(store, 'GS', csvOf('gold-standard'));
      const c = await cleaned('Gold Standard', 23574);
      expect(c).toMatchObject({
        name: 'GS12856-VPA-3 Unlocking Communities Water Filters for Households',
        proponent: 'Unlocking Communities',
        status: 'Listed',
        type: 'Energy Efficiency - Domestic',
        location: 'Haiti',
        reductions: 60000,
        'Reported Period': 0,
        registration: null,
      });
      expect(c.description).toMatch(/^The voluntary project activity \(VPA\)/);
      expect(c.summary).toBe(c.description);
      expect(c.metadata.emissions_reductions).toEqual({});
      expect(c.documentGroups[0]?.description).toBe('GS Pipeline Documents');
    });

    it('ACR: "ACR586" is project 586, US dates and country codes are read, credits registered are issuances', async () => {
      await importRegistryExport(store, 'ACR', csvOf('american-carbon-registry'));
      const c = await cleaned('American Carbon Registry', 586);
      expect(c).toMatchObject({
        name: '18 Reserves Forest Carbon Project',
        proponent: 'The Climate Trust',
        type: 'Forest Carbon',
        methodology: 'Improved Forest Management (IFM) on Non-Federal U.S. Forestlands',
        status: 'Registered',
        location: 'United States',
        'Reported Period': 20,
      });
      expect(c.metadata.issuances).toBe(550369);
      expect(c.metadata.retirements).toBe(0);
      // No voluntary status: the compliance status stands in.
      expect((await cleaned('American Carbon Registry', 206)).status).toBe('ARB Completed');
      // No credits registered: 0.
      expect((await cleaned('American Carbon Registry', 203)).metadata.issuances).toBe(0);
    });

    it('CAR: registration date from mm/dd/yyyy, null when empty', async () => {
      await importRegistryExport(store, 'Climate Action Reserve', csvOf('climate-action-reserve'));
      const c = await cleaned('Climate Action Reserve', 1458);
      expect(c).toMatchObject({
        name: 'A-Gas 1-2021',
        proponent: 'Reclamation Technologies Inc.',
        status: 'Completed',
        registration: '28/01/2021',
        location: 'United States',
        type: 'Ozone Depleting Substances - U.S. - ARB Compliance',
      });
      expect(c.metadata.issuances).toBe(84267);
      expect((await cleaned('Climate Action Reserve', 1957)).registration).toBeNull();
    });

    it('Isometric: short code as base-36 id, humanised status and pathway, issued and retired credits', async () => {
      await importRegistryExport(store, 'isometric', csvOf('isometric'));
      const id = isometricProjectId('TS26');
      expect(id).toBe(1389390);
      const c = await cleaned('Isometric', 1389390);
      expect(c).toMatchObject({
        name: 'A Biochar Project at Satyapura',
        status: 'Validated',
        methodology: 'biochar',
        type: 'Biomass carbon removal and storage',
        location: 'India',
        proponent: 'Equilibrium',
        'Reported Period': 5,
      });
      expect(c.metadata.issuances).toBe(1.47);
      expect(c.metadata.retirements).toBe(0);
      expect(c.metadata.reduction_activity).toEqual(['Biomass carbon removal and storage', 'Biochar']);
      const stored = await store.get({ registry: 'Isometric', projectId: 1389390 });
      expect(stored?.raw).toMatchObject({ id: 'prj_1K3VWSDS61S0QKV7', short_code: 'TS26' });
      expect((1389390).toString(36).toUpperCase()).toBe('TS26');
    });

    it('keeps a registry JSON record rather than replacing it with its export row', async () => {
      await store.upsert([
        {
          ref: { registry: 'Verra', projectId: 5957 },
          format: 'registry-json',
          raw: { registry: 'Verra', resourceIdentifier: '5957', resourceName: 'From the registry API' },
        },
      ]);
      const r = await importRegistryExport(store, 'Verra', csvOf('verra'));
      expect(r.keptRegistryRecords).toEqual([5957]);
      expect(r.inserted).toBe(49);
      expect((await store.get({ registry: 'Verra', projectId: 5957 }))?.format).toBe('registry-json');
    });

    it('enrichment wins over the export columns', async () => {
      await importRegistryExport(store, 'ACR', csvOf('american-carbon-registry'));
      const ref = { registry: 'American Carbon Registry', projectId: 586 };
      await store.updateEnrichment(ref, { issuances: 1, retirements: 2, summary: 'From documents.', reductionActivity: ['IFM'] });
      const c = await cleaned(ref.registry, ref.projectId);
      expect(c.metadata).toMatchObject({ issuances: 1, retirements: 2, reduction_activity: ['IFM'] });
      expect(c.summary).toBe('From documents.');
    });
  },
);

describe('registry exports: bad input', () => {
  it('reports rows without an id and duplicate ids with their line, and imports the rest', async () => {
    const file = path.join(dir, 'acr.csv');
    await writeFile(
      file,
      ['Project ID,Project Name,Project Type', 'ACR1,One,Forest Carbon', 'no id,Two,x', 'ACR1,One again,x', 'ACR3,Three,x'].join('\n'),
    );
    const r = await importRegistryExport(store, 'ACR', file);
    expect(r.inserted).toBe(2);
    expect(r.failed.map((f) => f.source)).toEqual([`${file}:3`, `${file}:4`]);
    expect(r.failed[0]?.error).toMatch(/Project ID "no id" gives no numeric project id/);
    expect(r.failed[1]?.error).toMatch(/already imported from .*:2/);
  });

  it('refuses a file of another registry, naming the missing columns', async () => {
    if (!corpusAvailable) return;
    await expect(importRegistryExport(store, 'Gold Standard', csvOf('verra'))).rejects.toThrow(/missing column\(s\) GSID, Project Name/);
  });

  it('refuses an unknown registry and a missing file', async () => {
    await expect(importRegistryExport(store, 'Nowhere', 'x.csv')).rejects.toThrow(/no export mapping.*gold-standard/);
    await expect(importRegistryExport(store, 'CAR', path.join(dir, 'missing.csv'))).rejects.toThrow(/not readable/);
  });
});
