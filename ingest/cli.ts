import { parseArgs } from 'node:util';
import type { ProjectRef } from '../src/domain/project-ref.js';
import { canonicalRegistry, knownRegistryNames } from '../src/domain/registries.js';
import { exportMappingFor, REGISTRY_EXPORTS } from '../src/domain/registry-exports/index.js';
import { parseIdList } from './registry-fetch.js';
import { defined } from '../src/defined.js';

/** Registries whose records `--registry <name> --ids <list>` can fetch live (registry-fetch.ts has their clients). */
const FETCHABLE_REGISTRIES = ['Verra'];

/** Command-line options of `npm run ingest`; parseCliArgs throws UsageError with a message naming the bad flag. */
export interface CliOptions {
  records?: string;
  registry?: string;
  /** `--registry <name> --ids <list>`: fetch these projects from the registry's API. */
  ids?: string;
  /** `--export <registry> <file.csv>`: import a registry's project export. */
  exportFile?: { registry: string; file: string };
  /** `--transactions <csv>`: issuance / retirement data for stored projects. */
  transactions?: string;
  /** `--enrich`: recompute document-derived fields from stored text. */
  enrich: boolean;
  /** `--hide <list>` / `--unhide <list>`: set or clear the operator's hidden flag of these projects. */
  hide?: { projects: ProjectRef[]; hidden: boolean };
  replaceBase?: string;
  all: boolean;
  projects?: ProjectRef[];
  documents: boolean;
  status: boolean;
  json: boolean;
  reindex: boolean;
  progress: boolean | null;
  /** With DATABASE_URL: process the documents in this process instead of queueing them for workers. */
  inline: boolean;
  /** With DATABASE_URL: after queueing, wait until the workers have settled every job. */
  wait: boolean;
  help: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The worker's exit codes, as USAGE and docs/ingestion.md state them. */
export const EXIT = { ok: 0, fatal: 1, usage: 2, documentsFailed: 3, interrupted: 130 } as const;

export const USAGE = `Usage: npm run ingest -- [options]

  --records <file|dir>   import raw records (.json / .jsonl, or a folder of them), then index their documents
  --registry <name>      registry of imported records that do not name one (e.g. Verra); with --ids, the
                         registry to fetch from
  --ids <list>           with --registry: fetch these project ids from the registry's API (e.g. 4086,5533),
                         then index their documents
  --export <registry> <file.csv>   import a registry's project export (docs/registry-exports.md)
  --transactions <csv>   import issuance / retirement rows for stored projects (docs/derived-fields.md)
  --enrich               recompute document-derived fields from stored text (all projects, or --projects)
  --hide <list>          mark stored projects hidden (cleaned records say "hidden": true), e.g. Verra:4086
  --unhide <list>        clear the hidden mark
  --replace-base <url>   replace {BASE} in imported document uris (e.g. http://127.0.0.1:8080)
  --all                  (re)process every document of every stored project
  --projects <list>      limit to projects, e.g. Verra:4086,Verra:5533
  --no-documents         import records only; do not download or index documents
  --reindex              re-embed every processed document, and rebuild an index made with another embedder
  --inline               with DATABASE_URL: process the documents in this process instead of queueing one job
                         per document for the workers (npm run worker)
  --wait                 with DATABASE_URL: after queueing, wait until the workers have settled every job
  --status               print per-document state (a table on a terminal, JSON lines otherwise); with
                         DATABASE_URL first the job queue: depth, jobs per state, failed jobs with their reasons
  --json                 with --status: JSON lines even on a terminal
  --progress / --no-progress   force the progress bar, or plain log lines (default: the bar on a terminal)
  -h, --help             this text

Exit code: 0 when the run completed and no document failed, 3 when it completed but documents failed (see the
summary and --status), 1 on a fatal error (bad configuration, a store that cannot be reached; --hide/--unhide of
a project the store does not hold), 2 on bad arguments, 130 when interrupted.`;

/** Parses `Verra:4086,Gold Standard:123`; the registry is matched case-insensitively, aliases allowed. */
export function parseProjectList(value: string, flag = '--projects'): ProjectRef[] {
  const out: ProjectRef[] = [];
  for (const part of value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)) {
    const colon = part.lastIndexOf(':');
    if (colon <= 0) throw new UsageError(`${flag}: expected <registry>:<id>, got ${JSON.stringify(part)}`);
    const name = part.slice(0, colon).trim();
    const id = part.slice(colon + 1).trim();
    const registry = canonicalRegistry(name);
    if (!registry) throw new UsageError(`${flag}: unknown registry ${JSON.stringify(name)} (known: ${knownRegistryNames().join(', ')})`);
    if (!/^\d+$/.test(id) || !Number.isSafeInteger(Number(id)) || Number(id) <= 0) {
      throw new UsageError(`${flag}: project id must be a positive integer, got ${JSON.stringify(id)}`);
    }
    out.push({ registry, projectId: Number(id) });
  }
  if (out.length === 0) throw new UsageError(`${flag}: empty list`);
  return out;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions: "regsitry" is 1 from "registry"). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      row[j] = Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] ?? 0, ((d[i - 2] as number[])[j - 2] ?? 0) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] ?? Math.max(a.length, b.length);
}

/** "unknown option --regsitry; did you mean --registry?" for the first option of argv that is not one of `known`. */
function unknownOptionMessage(argv: string[], known: string[]): string | null {
  for (const arg of argv) {
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-') continue;
    const name = arg.startsWith('--') ? (arg.slice(2).split('=')[0] ?? '') : arg.slice(1, 2);
    if (arg.startsWith('--') ? known.includes(name) : name === 'h') continue;
    const shown = arg.startsWith('--') ? `--${name}` : `-${name}`;
    const best = known
      .filter((k) => k.length > 1)
      .map((k) => ({ k, d: editDistance(name.toLowerCase(), k) }))
      .sort((x, y) => x.d - y.d || x.k.localeCompare(y.k))[0];
    const near = best && name.length > 1 && best.d <= Math.max(2, Math.floor(name.length / 4));
    return near ? `unknown option ${shown}; did you mean --${best.k}?` : `unknown option ${shown} (see --help)`;
  }
  return null;
}

export function parseCliArgs(argv: string[]): CliOptions {
  let parsed;
  const options = {
    records: { type: 'string' },
    registry: { type: 'string' },
    ids: { type: 'string' },
    export: { type: 'string' },
    transactions: { type: 'string' },
    enrich: { type: 'boolean', default: false },
    hide: { type: 'string' },
    unhide: { type: 'string' },
    'replace-base': { type: 'string' },
    all: { type: 'boolean', default: false },
    projects: { type: 'string' },
    'no-documents': { type: 'boolean', default: false },
    reindex: { type: 'boolean', default: false },
    status: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    progress: { type: 'boolean' },
    'no-progress': { type: 'boolean' },
    inline: { type: 'boolean', default: false },
    wait: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  } as const;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (err) {
    // Node's own message for an unknown option advises "--" for positionals; name the option and the likely one.
    const code = (err as { code?: unknown }).code;
    const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOptionMessage(argv, Object.keys(options)) : null;
    throw new UsageError(unknown ?? (err instanceof Error ? err.message : String(err)));
  }
  const v = parsed.values;
  const positionals = parsed.positionals;
  if (v.export !== undefined) {
    if (positionals.length !== 1) throw new UsageError('--export needs a registry and one file: --export <registry> <file.csv>');
  } else if (positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  const opts: CliOptions = {
    all: v.all ?? false,
    enrich: v.enrich ?? false,
    documents: !(v['no-documents'] ?? false),
    status: v.status ?? false,
    json: v.json ?? false,
    reindex: v.reindex ?? false,
    progress: v['no-progress'] ? false : v.progress ? true : null,
    inline: v.inline ?? false,
    wait: v.wait ?? false,
    help: v.help ?? false,
    ...defined({ records: v.records, registry: v.registry, replaceBase: v['replace-base'], ids: v.ids, transactions: v.transactions }),
    ...(v.projects !== undefined ? { projects: parseProjectList(v.projects) } : {}),
    ...(v.export !== undefined ? { exportFile: { registry: v.export, file: positionals[0] as string } } : {}),
    ...(v.hide !== undefined ? { hide: { projects: parseProjectList(v.hide, '--hide'), hidden: true } } : {}),
    ...(v.unhide !== undefined ? { hide: { projects: parseProjectList(v.unhide, '--unhide'), hidden: false } } : {}),
  };
  if (opts.help) return opts;
  if (v.hide !== undefined || v.unhide !== undefined) {
    const others = argv.filter((a) => a.startsWith('-') && !/^--(un)?hide(=|$)/.test(a));
    if (v.hide !== undefined && v.unhide !== undefined) throw new UsageError('--hide and --unhide exclude each other');
    if (others.length > 0) throw new UsageError(`--hide / --unhide run alone (got ${others[0]} too)`);
    return opts;
  }
  if (opts.records === '') throw new UsageError('--records needs a file or folder');
  if (opts.transactions === '') throw new UsageError('--transactions needs a CSV file');
  if (opts.registry !== undefined) {
    if (opts.registry.trim() === '') throw new UsageError('--registry needs a registry name');
    const canonical = canonicalRegistry(opts.registry);
    if (canonical === null) {
      throw new UsageError(`--registry: unknown registry ${JSON.stringify(opts.registry)} (known: ${knownRegistryNames().join(', ')})`);
    }
    if (opts.ids !== undefined && !FETCHABLE_REGISTRIES.includes(canonical)) {
      throw new UsageError(
        `--registry ${canonical} --ids: records can be fetched live from ${FETCHABLE_REGISTRIES.join(', ')} only; ` +
          'import other registries from their CSV exports (--export <registry> <csv>)',
      );
    }
  }
  if (opts.ids !== undefined) {
    if (opts.registry === undefined) throw new UsageError('--ids needs --registry <name>');
    if (opts.records) throw new UsageError('--ids and --records exclude each other');
    try {
      parseIdList(opts.ids);
    } catch (err) {
      throw new UsageError(err instanceof Error ? err.message : String(err));
    }
  }
  if (opts.exportFile && !exportMappingFor(opts.exportFile.registry)) {
    const known = REGISTRY_EXPORTS.map((m) => m.source).join(', ');
    throw new UsageError(`--export: no export mapping for registry ${JSON.stringify(opts.exportFile.registry)} (known: ${known})`);
  }
  const sources = [opts.records, opts.ids, opts.exportFile, opts.transactions].filter((x) => x !== undefined).length;
  if (sources > 1) throw new UsageError('give one of --records, --registry/--ids, --export, --transactions per run');
  if (opts.enrich && (sources > 0 || opts.all || opts.status || opts.reindex)) {
    throw new UsageError('--enrich runs alone (with --projects at most)');
  }
  if (opts.all && opts.projects) throw new UsageError('--all and --projects exclude each other');
  if (opts.status && (sources > 0 || opts.all || opts.reindex)) {
    throw new UsageError('--status only reads state; combine it with --projects at most');
  }
  if (opts.json && !opts.status) throw new UsageError('--json goes with --status');
  if (opts.inline && opts.wait) throw new UsageError('--inline and --wait exclude each other');
  const indexesDocuments = !opts.status && !opts.enrich && !opts.exportFile && !opts.transactions && opts.documents;
  if ((opts.inline || opts.wait) && !indexesDocuments) {
    throw new UsageError(
      `${opts.inline ? '--inline' : '--wait'} goes with a run that indexes documents (--records, --ids, --all, --projects)`,
    );
  }
  if (!opts.status && !opts.enrich && sources === 0 && !opts.all && !opts.projects) {
    throw new UsageError(
      'nothing to do: give --records <path>, --registry <name> --ids <list>, --export <registry> <csv>, ' +
        '--transactions <csv>, --enrich, --all, --projects <list>, --status or --hide / --unhide <list>',
    );
  }
  if ((opts.exportFile || opts.transactions) && (opts.all || opts.projects || opts.reindex)) {
    throw new UsageError('--export and --transactions only import rows; index documents in a separate run');
  }
  if (!opts.documents && !opts.records && !opts.ids) throw new UsageError('--no-documents only makes sense with --records or --ids');
  if (opts.replaceBase !== undefined && !opts.records) throw new UsageError('--replace-base goes with --records');
  if (opts.registry !== undefined && !opts.records && !opts.ids) throw new UsageError('--registry goes with --records or --ids');
  return opts;
}
