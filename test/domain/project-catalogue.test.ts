import { describe, expect, it } from 'vitest';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { catalogueEntry, facetKey, normaliseValue, searchWords } from '../../src/domain/project-catalogue.js';
import type { StoredProject } from '../../src/ports/record-store.js';

const countries = createCountryLookup();
const stored = (p: Partial<StoredProject> & Pick<StoredProject, 'raw'>): StoredProject => ({
  ref: { registry: 'Verra', projectId: 7 },
  format: 'registry-json',
  enrichment: {},
  hidden: false,
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...p,
});

describe('searchWords', () => {
  it('lower-cases, drops accents and splits at anything but letters and digits', () => {
    expect(searchWords('Río Verde, VM0047-v1 (AMS-III.D.)')).toEqual(['rio', 'verde', 'vm0047', 'v1', 'ams', 'iii', 'd']);
    expect(searchWords('Ñandú São Tomé ÆSIR')).toEqual(['nandu', 'sao', 'tome', 'æsir']);
    expect(searchWords('竹林 Bamboo')).toEqual(['竹林', 'bamboo']);
    expect(searchWords('  ---  ')).toEqual([]);
  });

  it('normalises filter values the same way, whatever the punctuation', () => {
    expect(normaliseValue('Agriculture, Forestry and Other Land Use')).toBe('agriculture forestry and other land use');
    expect(facetKey('country', 'CÔTE D’IVOIRE')).toBe('country:cote d ivoire');
  });
});

describe('catalogueEntry', () => {
  it('takes the cleaned fields of a registry record, each methodology code as a facet, the second proponent as words', () => {
    const attr = (code: string, values: string[]) => ({ code, values: values.map((value) => ({ type: 'string', value })) });
    const e = catalogueEntry(
      stored({
        raw: {
          resourceIdentifier: '7',
          resourceName: 'Río Verde Agroforestry',
          description: 'Cacao farms.',
          location: { latitude: 4.42, longitude: -75.18 },
          participationSummaries: [
            {
              programCode: 'VCS',
              attributes: [
                attr('PROPONENT_NAME', ['Fundación A']),
                attr('PROPONENT_NAME', ['Green Hearth']),
                attr('PROTOCOL_NAME', ['VM0007', 'VM0015']),
                attr('PROJECT_STATUS', ['Registered']),
              ],
            },
          ],
        },
      }),
      countries,
    );
    expect(e).toMatchObject({
      name: 'Río Verde Agroforestry',
      location: 'Colombia',
      methodology: 'VM0007, VM0015',
      proponent: 'Multiple Proponents',
      status: 'Registered',
      hidden: false,
      sortKey: 'rio verde agroforestry',
    });
    expect(e.facets.sort()).toEqual([
      'country:colombia',
      'methodology:vm0007',
      'methodology:vm0007 vm0015',
      'methodology:vm0015',
      'status:registered',
    ]);
    expect(e.words.name).toEqual(['rio', 'verde', 'agroforestry']);
    expect(e.words.about).toEqual(expect.arrayContaining(['green', 'hearth', 'fundacion', 'colombia', '7']));
    expect(e.words.description).toEqual(['cacao', 'farms']);
  });

  it('reads a CSV export row through its registry mapping, and never throws on an empty record', () => {
    const e = catalogueEntry(
      stored({
        format: 'csv:verra',
        raw: {
          ID: '7',
          Name: 'Kisaru Cookstoves',
          Proponent: 'Kisaru Ltd',
          Status: 'Registered',
          'Country/Area': 'Kenya',
          Methodology: 'VMR0006',
        },
      }),
      countries,
    );
    expect(e).toMatchObject({ name: 'Kisaru Cookstoves', location: 'Kenya', methodology: 'VMR0006', status: 'Registered' });
    expect(e.facets).toContain('country:kenya');
    const empty = catalogueEntry(stored({ raw: {}, hidden: true }), countries);
    expect(empty).toMatchObject({ name: '', hidden: true, sortKey: '', facets: [] });
  });
});
