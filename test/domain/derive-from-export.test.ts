import { describe, expect, it } from 'vitest';
import { NO_COUNTRIES } from '../../src/domain/country-lookup.js';
import { deriveFromExport } from '../../src/domain/derive-from-export.js';
import type { StoredProject } from '../../src/domain/stored-project.js';

const ctx = { requestedRegistry: 'verra', countries: NO_COUNTRIES };
const stored = (over: Partial<StoredProject>): StoredProject => ({
  ref: { registry: 'Verra', projectId: 5957 },
  format: 'csv:verra',
  raw: {},
  enrichment: {},
  hidden: false,
  updatedAt: '',
  ...over,
});
// Verra 5957 as its export row gives it.
const kenya = {
  ID: '5957',
  Name: 'KENYA HIGHLANDS GROUPED CARBON PROJECT',
  Proponent: 'Multiple Proponents',
  Status: 'Under development',
  'Country/Area': 'Kenya',
  'Estimated Annual Emission Reductions': '191,805',
  'Crediting Period Start Date': '2024-04-01',
  'Crediting Period End Date': '2044-03-31',
};

describe('deriveFromExport', () => {
  it('spreads the annual estimate over the crediting period, names the registry as requested, lists four empty groups', () => {
    const c = deriveFromExport(stored({ raw: kenya }), ctx);
    expect(c).toMatchObject({ name: kenya.Name, registry: 'verra', resourceIdentifier: 5957, reductions: 191805, 'Reported Period': 20 });
    expect(c['Total Reported Sequestration']).toBe(191805 * 20);
    expect(Object.keys(c.metadata.emissions_reductions)).toContain('2030');
    expect(c.documentGroups).toHaveLength(4);
    expect(c.documentGroups.every((g) => g.documents.length === 0)).toBe(true);
  });

  it('lets the enrichment win over the export columns, and keeps the hidden flag', () => {
    const c = deriveFromExport(
      stored({ raw: kenya, hidden: true, enrichment: { summary: 'From documents.', issuances: 1, emissionsReductions: { '2025': 7 } } }),
      ctx,
    );
    expect(c.summary).toBe('From documents.');
    expect(c.metadata.issuances).toBe(1);
    expect(c.metadata.emissions_reductions).toEqual({ '2025': 7 });
    expect(c.hidden).toBe(true);
  });

  it('derives a record for an unknown source and for odd raw values without throwing', () => {
    const base = { ref: { registry: 'Regen', projectId: 9 } };
    const c = deriveFromExport(
      stored({ ...base, format: 'csv:someone-else', raw: { 'Project Name': 'X', Status: 'Listed', weird: { a: 1 } } }),
      {
        ...ctx,
        requestedRegistry: 'regen',
      },
    );
    expect(c).toMatchObject({ name: 'X', status: 'Listed', registry: 'regen', resourceIdentifier: 9 });
    const odd = deriveFromExport(
      stored({ raw: { ID: '9', 'Estimated Annual Emission Reductions': 'n/a', 'Crediting Period Start Date': '2020-13-45', Rank: 3 } }),
      ctx,
    );
    expect(odd.reductions).toBe(0);
    expect(odd['Reported Period']).toBe(0);
    expect(odd.documentGroups).toHaveLength(4);
  });
});
