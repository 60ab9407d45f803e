import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CataloguePosition } from '../../src/domain/project-catalogue.js';
import { AppError } from '../../src/errors.js';
import { createDiscoveryService } from '../../src/services/discovery.js';
import { projectKey, type ProjectRef } from '../../src/domain/project-ref.js';
import type { ProjectRecordInput, ProjectSearchQuery, RecordStore } from '../../src/ports/record-store.js';
import type { MakeBackend, StoreBackend } from './store-backends.js';

const verra = (projectId: number): ProjectRef => ({ registry: 'Verra', projectId });

export interface ProjectSpec {
  ref: ProjectRef;
  name: string;
  description?: string;
  proponents?: string[];
  methodologies?: string[];
  type?: string;
  status?: string;
  /** Stated by the registry (a COUNTRY attribute). */
  country?: string;
  /** Reverse geocoded when no country is stated. */
  point?: { latitude: number; longitude: number };
}

const attr = (code: string, values: string[]) => ({ code, values: values.map((value) => ({ type: 'string', value })) });

/** A raw record in the Verra shape (SPEC 2.4) carrying the fields discovery reads. */
export function projectRecord(p: ProjectSpec): ProjectRecordInput {
  const attributes = [
    ...(p.proponents ?? []).map((name) => attr('PROPONENT_NAME', [name])),
    ...(p.methodologies !== undefined ? [attr('PROTOCOL_NAME', p.methodologies)] : []),
    ...(p.type !== undefined ? [attr('PRIMARY_PROJECT_CATEGORY_NAME', [p.type])] : []),
    ...(p.status !== undefined ? [attr('PROJECT_STATUS', [p.status])] : []),
    ...(p.country !== undefined ? [attr('COUNTRY', [p.country])] : []),
  ];
  return {
    ref: p.ref,
    format: 'registry-json',
    raw: {
      registry: p.ref.registry,
      resourceIdentifier: String(p.ref.projectId),
      resourceName: p.name,
      description: p.description ?? '',
      ...(p.point !== undefined ? { location: p.point } : {}),
      attributes: [],
      participationSummaries: [{ programCode: 'VCS', attributes }],
      documentGroups: [],
    },
  };
}

const FIXTURES: ProjectSpec[] = [
  {
    ref: verra(101),
    name: 'Río Verde Valley Agroforestry',
    description: 'Shade-grown cacao on smallholder farms.',
    proponents: ['Fundación Cuenca Viva'],
    methodologies: ['VM0047'],
    type: 'Agriculture Forestry and Other Land Use',
    status: 'Registered',
    point: { latitude: 4.42, longitude: -75.18 }, // Colombia
  },
  {
    ref: verra(102),
    name: 'Kisaru Highlands Efficient Cookstoves',
    description: 'Improved biomass cookstoves halve fuelwood use; the forest around Kisaru recovers.',
    proponents: ['Kisaru Clean Energy Ltd', 'Green Hearth Kenya'],
    methodologies: ['VMR0006', 'AMS-II.G.'],
    type: 'Energy demand',
    status: 'Under validation',
    country: 'Kenya',
  },
  {
    ref: verra(103),
    name: 'Alto Paraná REDD',
    description: 'Avoided deforestation of Atlantic forest.',
    proponents: ['Forest Guardians SA'],
    methodologies: ['VM0007', 'VM0015'],
    type: 'Agriculture Forestry and Other Land Use',
    status: 'Registration requested',
    country: 'Paraguay',
  },
  {
    ref: { registry: 'Gold Standard', projectId: 101 },
    name: 'Forest Edge Cookstoves',
    description: 'Cookstoves near the forest edge.',
    proponents: ['Edge Ltd'],
    methodologies: ['GS TPDDTEC'],
    type: 'Energy demand',
    status: 'Registered',
    country: 'Kenya',
  },
  {
    ref: verra(104),
    name: '竹林 Bamboo Carbon',
    description: 'Bamboo plantation.',
    proponents: ['Zhuhai Bamboo Co'],
    methodologies: ['AR-ACM0003'],
    type: 'Agriculture Forestry and Other Land Use',
    status: 'Registered',
    country: 'China',
  },
];

const keys = (hits: { ref: ProjectRef }[]): string[] => hits.map((h) => projectKey(h.ref));

/**
 * What every RecordStore must do for project discovery (searchProjects), run against each backend: the same words,
 * filters, order and pages from SQLite's FTS5 table and PostgreSQL's full-text index.
 */
export function projectSearchContract(name: string, makeBackend: MakeBackend<RecordStore>): void {
  describe(name, () => {
    let backend: StoreBackend<RecordStore>;
    let store: RecordStore;
    const search = (q: Partial<ProjectSearchQuery>) => store.searchProjects({ text: '', limit: 50, ...q });

    beforeEach(async () => {
      backend = await makeBackend();
      store = await backend.open();
      await store.upsert(FIXTURES.map(projectRecord));
    });

    afterEach(async () => {
      await store.close();
      await backend.dispose();
    });

    it('finds a project by a word of its name: prefix, any case, accents ignored', async () => {
      for (const text of ['rio', 'RÍO', 'agrofor', 'Río Verde']) {
        const page = await search({ text });
        expect(keys(page.hits), text).toEqual(['Verra:101']);
        expect(page.total).toBe(1);
        expect(page.more).toBe(false);
      }
      const hit = (await search({ text: 'agroforestry' })).hits[0];
      expect(hit).toMatchObject({
        ref: verra(101),
        name: 'Río Verde Valley Agroforestry',
        location: 'Colombia',
        methodology: 'VM0047',
        type: 'Agriculture Forestry and Other Land Use',
        status: 'Registered',
        proponent: 'Fundación Cuenca Viva',
      });
    });

    it('matches words in the proponent, methodology, location, id and description too; every word must match', async () => {
      expect(keys((await search({ text: 'cuenca' })).hits)).toEqual(['Verra:101']);
      expect(keys((await search({ text: 'green hearth' })).hits)).toEqual(['Verra:102']); // the second of several proponents
      expect(keys((await search({ text: 'vm0015' })).hits)).toEqual(['Verra:103']);
      expect(keys((await search({ text: 'colombia' })).hits)).toEqual(['Verra:101']); // geocoded from the coordinates
      expect(keys((await search({ text: 'paraguay' })).hits)).toEqual(['Verra:103']);
      expect(keys((await search({ text: '102' })).hits)).toEqual(['Verra:102']);
      expect(keys((await search({ text: 'cacao' })).hits)).toEqual(['Verra:101']);
      expect(keys((await search({ text: 'cookstoves kenya' })).hits).sort()).toEqual(['Gold Standard:101', 'Verra:102']);
      expect(keys((await search({ text: 'cookstoves paraguay' })).hits)).toEqual([]);
      expect((await search({ text: 'nothing-like-this' })).total).toBe(0);
    });

    it('finds words of non-Latin scripts', async () => {
      expect(keys((await search({ text: '竹林' })).hits)).toEqual(['Verra:104']);
      expect(keys((await search({ text: '竹' })).hits)).toEqual(['Verra:104']);
    });

    it('orders name matches first, then proponent/methodology/location/id matches, then description matches; ties by name, registry, id', async () => {
      // "forest": in the name of GS 101, a word of a proponent of Verra 103 (Forest Guardians), only the
      // description of Verra 102; "Agroforestry" in Verra 101's name does not start with "forest".
      const page = await search({ text: 'forest' });
      expect(keys(page.hits)).toEqual(['Gold Standard:101', 'Verra:103', 'Verra:102']);
      expect(page.hits.map((h) => h.position.tier)).toEqual([0, 1, 2]);
      // Same tier: by normalised name ("alto parana redd" < "kisaru ..." < "rio verde ..."), then registry and id.
      const all = await search({ text: '' });
      expect(keys(all.hits)).toEqual(['Verra:103', 'Gold Standard:101', 'Verra:102', 'Verra:101', 'Verra:104']);
      expect(all.total).toBe(5);
    });

    it('filters by registry, country, methodology, type and status: any value of a filter, every filter', async () => {
      expect(keys((await search({ registries: ['Gold Standard'] })).hits)).toEqual(['Gold Standard:101']);
      expect(keys((await search({ facets: { country: ['kenya'] } })).hits)).toEqual(['Gold Standard:101', 'Verra:102']);
      expect(keys((await search({ facets: { country: ['Kenya', 'Colombia'] } })).hits)).toEqual([
        'Gold Standard:101',
        'Verra:102',
        'Verra:101',
      ]);
      // One code of several, and the whole field as the record shows it.
      expect(keys((await search({ facets: { methodology: ['vm0015'] } })).hits)).toEqual(['Verra:103']);
      expect(keys((await search({ facets: { methodology: ['VM0007, VM0015'] } })).hits)).toEqual(['Verra:103']);
      expect(keys((await search({ facets: { methodology: ['AMS-II.G.'] } })).hits)).toEqual(['Verra:102']);
      expect(keys((await search({ facets: { type: ['agriculture forestry and other land use'] } })).hits)).toEqual([
        'Verra:103',
        'Verra:101',
        'Verra:104',
      ]);
      expect(keys((await search({ facets: { status: ['Registered'], type: ['Energy demand'] } })).hits)).toEqual(['Gold Standard:101']);
      expect(
        keys(
          (await search({ text: 'cookstoves', registries: ['Verra'], facets: { country: ['Kenya'], status: ['under validation'] } })).hits,
        ),
      ).toEqual(['Verra:102']);
      // A filter value matches whole values only: "Register" is not "Registered".
      expect((await search({ facets: { status: ['Register'] } })).total).toBe(0);
      expect((await search({ registries: ['CDM'] })).total).toBe(0);
    });

    it('leaves hidden projects out until they are shown again, and follows record updates', async () => {
      await store.setHidden(verra(101), true);
      expect((await search({ text: 'rio' })).total).toBe(0);
      expect((await search({})).total).toBe(4);
      // Still hidden after a raw update.
      await store.upsert([projectRecord({ ...(FIXTURES[0] as ProjectSpec), description: 'changed' })]);
      expect((await search({ text: 'rio' })).total).toBe(0);
      await store.setHidden(verra(101), false);
      expect(keys((await search({ text: 'rio' })).hits)).toEqual(['Verra:101']);

      await store.upsert([projectRecord({ ...(FIXTURES[0] as ProjectSpec), name: 'Renamed Cacao Project', status: 'Withdrawn' })]);
      expect((await search({ text: 'rio' })).total).toBe(0);
      expect(keys((await search({ text: 'renamed' })).hits)).toEqual(['Verra:101']);
      expect(keys((await search({ facets: { status: ['withdrawn'] } })).hits)).toEqual(['Verra:101']);
      expect((await search({ facets: { status: ['registered'] } })).total).toBe(2);
    });

    it('a second store on the same backend finds what the first wrote', async () => {
      const other = await backend.open();
      try {
        await store.upsert([projectRecord({ ref: verra(900), name: 'Brand New Mangroves' })]);
        expect(keys((await other.searchProjects({ text: 'mangrove', limit: 5 })).hits)).toEqual(['Verra:900']);
      } finally {
        await other.close();
      }
    });

    it('pages through every result exactly once, in order, with a constant total', async () => {
      const many = Array.from({ length: 57 }, (_, i) =>
        projectRecord({
          ref: verra(1000 + i),
          // Some names repeat, so the order falls back on registry and id.
          name: `Wetland ${String.fromCharCode(65 + (i % 7))}`,
          description: i % 3 === 0 ? 'a wetland restoration' : 'peat',
          country: i % 2 === 0 ? 'Indonesia' : 'Brazil',
        }),
      );
      await store.upsert(many);
      for (const query of [{ text: 'wetland' }, { text: 'wetland', facets: { country: ['Indonesia'] } }, { text: '' }]) {
        const full = await search({ ...query, limit: 200 });
        const seen: string[] = [];
        let after: CataloguePosition | undefined;
        for (let guard = 0; guard < 100; guard++) {
          const page = await search({ ...query, limit: 10, ...(after ? { after } : {}) });
          expect(page.total).toBe(full.total);
          seen.push(...keys(page.hits));
          if (!page.more) break;
          after = page.hits[page.hits.length - 1]?.position;
        }
        expect(seen).toEqual(keys(full.hits));
        expect(new Set(seen).size).toBe(seen.length);
      }
      expect((await search({ text: 'wetland', limit: 200 })).total).toBe(57);
      expect((await search({ text: 'wetland', facets: { country: ['Indonesia'] } })).total).toBe(29);
    });

    it('a position stays valid while projects are added: no result is repeated or skipped', async () => {
      const base = Array.from({ length: 20 }, (_, i) =>
        projectRecord({ ref: verra(2000 + i), name: `Mangrove ${String(i).padStart(2, '0')}` }),
      );
      await store.upsert(base);
      const first = await search({ text: 'mangrove', limit: 8 });
      const lastOfFirst = first.hits[7]?.position;
      expect(lastOfFirst).toBeDefined();
      // One project sorts before the position, one after.
      await store.upsert([
        projectRecord({ ref: verra(2100), name: 'Mangrove 00 bis' }),
        projectRecord({ ref: verra(2101), name: 'Mangrove 99' }),
      ]);
      const rest: string[] = [];
      let after = lastOfFirst;
      for (;;) {
        const page = await search({ text: 'mangrove', limit: 8, ...(after ? { after } : {}) });
        rest.push(...keys(page.hits));
        if (!page.more) break;
        after = page.hits[page.hits.length - 1]?.position;
      }
      const expected = [...base.map((r) => projectKey(r.ref)).slice(8), 'Verra:2101'];
      expect(rest).toEqual(expected);
    });

    it('refuses a forged position with an error naming `after`, never a database error', async () => {
      const forged: Array<Record<string, unknown>> = [
        { tier: 2 ** 31, sortKey: 'a', registry: 'Verra', projectId: 1 },
        { tier: -1, sortKey: 'a', registry: 'Verra', projectId: 1 },
        { tier: 0, sortKey: 'a\u0000b', registry: 'Verra', projectId: 1 },
        { tier: 0, sortKey: 'a', registry: 'Ver\u0000ra', projectId: 1 },
        { tier: 0, sortKey: '\ud800', registry: 'Verra', projectId: 1 },
        { tier: 0, sortKey: 'a', registry: 'Verra', projectId: -(2 ** 60) },
        { tier: 0, sortKey: 'a', registry: 'Verra', projectId: 2 ** 63 },
      ];
      for (const after of forged) {
        await expect(
          store.searchProjects({ text: '', limit: 5, after: after as unknown as CataloguePosition }),
          JSON.stringify(after),
        ).rejects.toThrow(/^after must be a position/);
      }
    });

    describe('cursors of POST /projects/search (the discovery service over this store)', () => {
      const discovery = () => createDiscoveryService({ records: store, documents: { countIndexed: () => Promise.resolve(new Map()) } });
      const decode = (cursor: string): unknown[] => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
      const encode = (parts: unknown[]): string => Buffer.from(JSON.stringify(parts), 'utf8').toString('base64url');

      /** A real cursor: the first page of every project, two at a time. */
      async function realCursor(): Promise<string> {
        const page = await discovery().search({ limit: 2 });
        expect(page.nextCursor).not.toBeNull();
        return page.nextCursor ?? '';
      }

      it('a cursor handed out pages on', async () => {
        const cursor = await realCursor();
        const next = await discovery().search({ limit: 2, cursor });
        expect(next.projects).toHaveLength(2);
      });

      it('a forged cursor is a 400 invalid_request naming the cursor, on every store (issue 45)', async () => {
        const real = decode(await realCursor());
        // [version, fingerprint, tier, sortKey, registry, projectId]
        const edit = (i: number, v: unknown): string => encode(real.map((x, j) => (j === i ? v : x)));
        const variants: Record<string, string> = {
          'tier 2^31': edit(2, 2 ** 31),
          'tier -1': edit(2, -1),
          'tier 3': edit(2, 3),
          'tier 0.5': edit(2, 0.5),
          'tier as a string': edit(2, '0'),
          'projectId 2^53 (beyond a safe integer)': edit(5, 2 ** 53),
          'projectId -2^60': edit(5, -(2 ** 60)),
          'projectId 2^63': edit(5, 2 ** 63),
          'projectId 0': edit(5, 0),
          'projectId 1e308': edit(5, 1e308),
          'projectId null': edit(5, null),
          'sortKey with a NUL': edit(3, `${String(real[3])}\u0000`),
          'sortKey with a lone surrogate': edit(3, '\ud800x'),
          'sortKey with punctuation': edit(3, "x' OR 1=1 --"),
          'sortKey as a number': edit(3, 7),
          'registry with a NUL': edit(4, 'Verra\u0000'),
          'registry empty': edit(4, ''),
          'registry with a control character': edit(4, 'Ve\u001brra'),
          'registry as an object': edit(4, { a: 1 }),
          'an unknown version': edit(0, 2),
          'a seventh field': encode([...real, 1]),
          'another search': edit(1, 'AAAAAAAAAAAA'),
          'not base64url': '!!!!',
          'base64url of no JSON': Buffer.from('{{', 'utf8').toString('base64url'),
          'JSON null': encode(null as unknown as unknown[]),
          'an empty string': '',
        };
        for (const [name, cursor] of Object.entries(variants)) {
          const err = await discovery()
            .search({ limit: 2, cursor })
            .then(
              () => undefined,
              (e: unknown) => e,
            );
          expect(err, name).toBeInstanceOf(AppError);
          expect((err as AppError).code, name).toBe('invalid_request');
          expect((err as AppError).status, name).toBe(400);
          expect((err as AppError).message, name).toMatch(/^cursor: /);
        }
      });
    });

    it('rejects bad queries with a message naming the field', async () => {
      await expect(store.searchProjects({ text: 'x', limit: 0 })).rejects.toThrow(/limit must be a positive integer/);
      await expect(store.searchProjects({ text: 3 as unknown as string, limit: 5 })).rejects.toThrow(/text must be a string/);
      await expect(store.searchProjects({ text: '', limit: 5, facets: { country: 'Kenya' as unknown as string[] } })).rejects.toThrow(
        /facets\.country must be an array of strings/,
      );
      await expect(store.searchProjects({ text: '', limit: 5, after: { tier: 'x' } as unknown as CataloguePosition })).rejects.toThrow(
        /after must be a position/,
      );
    });
  });
}
