import { DependencyError } from '../src/errors.js';
import type { Logger } from '../src/logger.js';
import type { CountryLookup } from '../src/ports/country-lookup.js';
import type { DocumentStateStore } from '../src/ports/document-state-store.js';
import type { DocumentTextStore } from '../src/ports/document-text-store.js';
import type { RecordStore } from '../src/ports/record-store.js';
import type { RegistryClient } from '../src/ports/registry-client.js';
import type { Summarizer } from '../src/ports/summarizer.js';
import type { ProjectRef } from '../src/domain/project-ref.js';
import { projectKey } from '../src/domain/project-ref.js';
import { enrichProject } from '../src/services/enrich-project.js';
import { fetchRegistryRecords, parseIdList, type FetchRecordsResult } from './registry-fetch.js';
import { importRegistryExport, type ImportExportResult } from './registry-exports.js';
import { importTransactions, type ImportTransactionsResult } from './transactions.js';
import { defined } from '../src/defined.js';

/**
 * The worker commands for derived data, ready for ingest/main.ts to call with its stores (flags in the report /
 * docs/derived-fields.md): each runs the library function, writes a short human summary to `out` (stderr) and
 * returns the result. Per-row / per-id problems are listed, not fatal; a store failure rejects.
 */

type Out = Pick<NodeJS.WriteStream, 'write'>;

/** `--transactions <csv>` */
export async function runTransactionsCommand(
  records: RecordStore,
  file: string,
  logger: Logger,
  out: Out = process.stderr,
): Promise<ImportTransactionsResult> {
  const r = await importTransactions(records, file, { logger });
  out.write(
    `transactions (${r.format}): ${r.rows} rows, ${r.updated} projects updated, ` +
      `${r.unknownProjects.length} not in the store, ${r.skippedProjects.length} skipped for bad rows\n`,
  );
  for (const e of r.errors) out.write(`  ${e.source}: ${e.error}\n`);
  if (r.unknownProjects.length > 0) {
    out.write(
      `  not in the store (import their records first): ${r.unknownProjects.slice(0, 20).join(', ')}${r.unknownProjects.length > 20 ? ', ...' : ''}\n`,
    );
  }
  return r;
}

/** `--export <registry> <csv>` */
export async function runExportCommand(
  records: RecordStore,
  registry: string,
  file: string,
  logger: Logger,
  out: Out = process.stderr,
): Promise<ImportExportResult> {
  const r = await importRegistryExport(records, registry, file, { logger });
  out.write(
    `${r.registry} export: ${r.rows} rows, ${r.inserted} inserted, ${r.updated} updated, ${r.unchanged} unchanged, ` +
      `${r.failed.length} failed, ${r.keptRegistryRecords.length} kept as registry records\n`,
  );
  for (const f of r.failed) out.write(`  ${f.source}: ${f.error}\n`);
  return r;
}

/** `--registry <name> --ids <list>`: returns the refs stored, so the caller can index their documents next. */
export async function runRegistryFetchCommand(
  records: RecordStore,
  client: RegistryClient,
  ids: string,
  logger: Logger,
  opts: { out?: Out; signal?: AbortSignal } = {},
): Promise<{ result: FetchRecordsResult; refs: ProjectRef[] }> {
  const out = opts.out ?? process.stderr;
  const wanted = parseIdList(ids);
  const result = await fetchRegistryRecords(client, records, wanted, { logger, ...defined({ signal: opts.signal }) });
  out.write(
    `${result.registry}: ${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged, ` +
      `${result.notFound.length} not found, ${result.failed.length} failed\n`,
  );
  if (result.notFound.length > 0) out.write(`  not found at the registry: ${result.notFound.join(', ')}\n`);
  for (const f of result.failed) out.write(`  ${f.projectId}: ${f.error}\n`);
  const bad = new Set([...result.notFound, ...result.failed.map((f) => f.projectId)]);
  return { result, refs: wanted.filter((id) => !bad.has(id)).map((projectId) => ({ registry: result.registry, projectId })) };
}

/** `--enrich [--projects ...]`: recomputes document-derived fields from stored text, without re-ingesting. */
export async function runEnrichCommand(
  deps: { records: RecordStore; states: DocumentStateStore; texts: DocumentTextStore },
  summarizer: Summarizer,
  countries: CountryLookup,
  logger: Logger,
  opts: { projects?: ProjectRef[]; out?: Out; signal?: AbortSignal } = {},
): Promise<{ enriched: number; failed: { project: string; error: string }[] }> {
  const out = opts.out ?? process.stderr;
  const refs = opts.projects ?? (await deps.records.list());
  const failed: { project: string; error: string }[] = [];
  let enriched = 0;
  for (const ref of refs) {
    if (opts.signal?.aborted) break;
    const stored = await deps.records.get(ref);
    if (!stored) {
      failed.push({ project: projectKey(ref), error: 'not in the record store' });
      continue;
    }
    try {
      await enrichProject({
        ref,
        stored,
        texts: deps.texts,
        documents: deps.states,
        records: deps.records,
        summarizer,
        countries,
        logger,
        ...defined({ signal: opts.signal }),
      });
      enriched++;
    } catch (err) {
      // A store that cannot be reached ends the run; anything else is this project's problem.
      if (err instanceof DependencyError || opts.signal?.aborted) throw err;
      failed.push({ project: projectKey(ref), error: (err as Error).message });
    }
  }
  out.write(`enrichment: ${enriched} projects recomputed, ${failed.length} failed\n`);
  for (const f of failed) out.write(`  ${f.project}: ${f.error}\n`);
  return { enriched, failed };
}
