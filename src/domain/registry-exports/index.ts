import { canonicalRegistry } from '../registries.js';
import { acrExport } from './american-carbon-registry.js';
import { carExport } from './climate-action-reserve.js';
import type { RegistryExportMapping } from './common.js';
import { goldStandardExport } from './gold-standard.js';
import { isometricExport } from './isometric.js';
import { verraExport } from './verra.js';

export type { ExportFields, ExportRow, RegistryExportMapping } from './common.js';

export const REGISTRY_EXPORTS: readonly RegistryExportMapping[] = [verraExport, goldStandardExport, acrExport, carExport, isometricExport];

/** The mapping of a record format `csv:<source>`, or null. */
export function exportMappingForFormat(format: string): RegistryExportMapping | null {
  if (!format.startsWith('csv:')) return null;
  const source = format.slice(4);
  return REGISTRY_EXPORTS.find((m) => m.source === source) ?? null;
}

/**
 * The mapping a caller names: its source ("gold-standard", "american-carbon-registry") or a registry name or alias
 * ("Gold Standard", "GS", "ACR", "CAR", "Isometric", "Verra"), case-insensitively.
 */
export function exportMappingFor(name: string): RegistryExportMapping | null {
  const n = name.trim().toLowerCase();
  const bySource = REGISTRY_EXPORTS.find((m) => m.source === n);
  if (bySource) return bySource;
  const registry = canonicalRegistry(name);
  return registry ? (REGISTRY_EXPORTS.find((m) => m.registry === registry) ?? null) : null;
}
