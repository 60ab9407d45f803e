import { describe, expect, it } from 'vitest';
import { exportMappingFor, exportMappingForFormat, REGISTRY_EXPORTS } from '../../../src/domain/registry-exports/index.js';

describe('the registry export mappings', () => {
  it('has one mapping per source and per registry', () => {
    const sources = REGISTRY_EXPORTS.map((m) => m.source);
    expect(new Set(sources).size).toBe(sources.length);
    expect(new Set(REGISTRY_EXPORTS.map((m) => m.registry)).size).toBe(sources.length);
  });

  it('finds mappings by source, name and alias, and none for a registry without an export', () => {
    expect(exportMappingFor('GS')?.source).toBe('gold-standard');
    expect(exportMappingFor(' Gold-Standard ')?.source).toBe('gold-standard');
    expect(exportMappingFor('american carbon registry')?.source).toBe('american-carbon-registry');
    expect(exportMappingFor('car')?.source).toBe('climate-action-reserve');
    expect(exportMappingFor('CDM')).toBeNull();
  });

  it('finds the mapping of a stored record format, and none for a registry JSON record', () => {
    expect(exportMappingForFormat('csv:verra')?.registry).toBe('Verra');
    expect(exportMappingForFormat('csv:nowhere')).toBeNull();
    expect(exportMappingForFormat('registry-json')).toBeNull();
  });
});
