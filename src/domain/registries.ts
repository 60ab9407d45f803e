/**
 * The registries the service knows. Requests name a registry case-insensitively by its name or an alias; the
 * service stores and filters by the canonical name and echoes the caller's spelling back (SPEC 2.1).
 */
export interface RegistryInfo {
  /** Canonical name, as stored with every record and chunk. */
  name: string;
  aliases: readonly string[];
}

export const REGISTRIES: readonly RegistryInfo[] = [
  { name: 'Verra', aliases: ['VCS', 'Verified Carbon Standard'] },
  { name: 'Gold Standard', aliases: ['GS', 'GoldStandard', 'Gold Standard for the Global Goals'] },
  { name: 'American Carbon Registry', aliases: ['ACR'] },
  { name: 'Climate Action Reserve', aliases: ['CAR'] },
  { name: 'Isometric', aliases: [] },
  { name: 'CDM', aliases: ['UNFCCC', 'UNFCCC CDM', 'Clean Development Mechanism'] },
  { name: 'Regen', aliases: ['Regen Registry', 'Regen Network'] },
];

const byLowerName = new Map(REGISTRIES.flatMap((r) => [r.name, ...r.aliases].map((n) => [n.toLowerCase(), r.name] as const)));

/** Canonical registry name for a caller's spelling, or null when the service does not know it. */
export function canonicalRegistry(name: string): string | null {
  return byLowerName.get(name.trim().toLowerCase()) ?? null;
}

export function knownRegistryNames(): string[] {
  return REGISTRIES.map((r) => r.name);
}
