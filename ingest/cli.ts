import { parseArgs } from 'node:util';
import type { ProjectRef } from '../src/domain/project-ref.js';
import { canonicalRegistry, knownRegistryNames } from '../src/domain/registries.js';

/** Command-line options of `npm run ingest`; parseCliArgs throws UsageError with a message naming the bad flag. */
export interface CliOptions {
  records?: string;
  registry?: string;
  replaceBase?: string;
  all: boolean;
  projects?: ProjectRef[];
  documents: boolean;
  status: boolean;
  json: boolean;
  reindex: boolean;
  progress: boolean | null;
  help: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `Usage: npm run ingest -- [options]

  --records <file|dir>   import raw records (.json / .jsonl, or a folder of them), then index their documents
  --registry <name>      registry of imported records that do not name one (e.g. Verra)
  --replace-base <url>   replace {BASE} in imported document uris (e.g. http://127.0.0.1:8080)
  --all                  (re)process every document of every stored project
  --projects <list>      limit to projects, e.g. Verra:4086,Verra:5533
  --no-documents         import records only; do not download or index documents
  --reindex              re-embed every processed document, and rebuild an index made with another embedder
  --status               print per-document state (a table on a terminal, JSON lines otherwise)
  --json                 with --status: JSON lines even on a terminal
  --progress / --no-progress   force the progress bar, or plain log lines (default: the bar on a terminal)
  -h, --help             this text

Exit code: 0 when the run completed (documents may have failed: see the summary), 1 on a fatal error
(bad configuration, a store that cannot be reached), 2 on bad arguments.`;

/** Parses `Verra:4086,Gold Standard:123`; the registry is matched case-insensitively, aliases allowed. */
export function parseProjectList(value: string): ProjectRef[] {
  const out: ProjectRef[] = [];
  for (const part of value.split(',').map((s) => s.trim()).filter((s) => s.length > 0)) {
    const colon = part.lastIndexOf(':');
    if (colon <= 0) throw new UsageError(`--projects: expected <registry>:<id>, got ${JSON.stringify(part)}`);
    const name = part.slice(0, colon).trim();
    const id = part.slice(colon + 1).trim();
    const registry = canonicalRegistry(name);
    if (!registry) throw new UsageError(`--projects: unknown registry ${JSON.stringify(name)} (known: ${knownRegistryNames().join(', ')})`);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id)) || Number(id) <= 0) {
      throw new UsageError(`--projects: project id must be a positive integer, got ${JSON.stringify(id)}`);
    }
    out.push({ registry, projectId: Number(id) });
  }
  if (out.length === 0) throw new UsageError('--projects: empty list');
  return out;
}

export function parseCliArgs(argv: string[]): CliOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      strict: true,
      options: {
        records: { type: 'string' },
        registry: { type: 'string' },
        'replace-base': { type: 'string' },
        all: { type: 'boolean', default: false },
        projects: { type: 'string' },
        'no-documents': { type: 'boolean', default: false },
        reindex: { type: 'boolean', default: false },
        status: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        progress: { type: 'boolean' },
        'no-progress': { type: 'boolean' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
  const v = parsed.values;
  const opts: CliOptions = {
    all: v.all ?? false,
    documents: !(v['no-documents'] ?? false),
    status: v.status ?? false,
    json: v.json ?? false,
    reindex: v.reindex ?? false,
    progress: v['no-progress'] ? false : v.progress ? true : null,
    help: v.help ?? false,
    ...(v.records !== undefined ? { records: v.records } : {}),
    ...(v.registry !== undefined ? { registry: v.registry } : {}),
    ...(v['replace-base'] !== undefined ? { replaceBase: v['replace-base'] } : {}),
    ...(v.projects !== undefined ? { projects: parseProjectList(v.projects) } : {}),
  };
  if (opts.help) return opts;
  if (opts.records === '') throw new UsageError('--records needs a file or folder');
  if (opts.all && opts.projects) throw new UsageError('--all and --projects exclude each other');
  if (opts.status && (opts.records || opts.all || opts.reindex)) {
    throw new UsageError('--status only reads state; combine it with --projects at most');
  }
  if (opts.json && !opts.status) throw new UsageError('--json goes with --status');
  if (!opts.status && !opts.records && !opts.all && !opts.projects) {
    throw new UsageError('nothing to do: give --records <path>, --all, --projects <list> or --status');
  }
  if (!opts.documents && !opts.records) throw new UsageError('--no-documents only makes sense with --records');
  if (opts.replaceBase !== undefined && !opts.records) throw new UsageError('--replace-base goes with --records');
  if (opts.registry !== undefined && !opts.records) throw new UsageError('--registry goes with --records');
  return opts;
}
