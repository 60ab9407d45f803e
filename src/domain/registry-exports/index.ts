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
  return REGISTRY_EXPORTS.find((m) => format === `csv:${m.source}`) ?? null;
}

/**
 * The mapping a caller names: its source ("gold-standard", "american-carbon-registry") or a registry name or alias
 * ("Gold Standard", "GS", "ACR", "CAR", "Isometric", "Verra"), case-insensitively.
 */
export function exportMappingFor(name: string): RegistryExportMapping | null {
  const source = name.trim().toLowerCase();
  const registry = canonicalRegistry(name);
  return REGISTRY_EXPORTS.find((m) => m.source === source) ?? REGISTRY_EXPORTS.find((m) => m.registry === registry) ?? null;
}
