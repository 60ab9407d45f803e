/**
 * The worker's entry and composition root: `npm run ingest -- --records <path> | --registry <name> --ids <list> |
 * --export <registry> <csv> | --transactions <csv> | --enrich | --all | --projects <list> | --status`.
 * Exit codes: 0 when the run completed (per-document failures are in the summary), 1 on a fatal error, 2 on bad
 * arguments, 130 when interrupted.
 */
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger, type Logger } from '../src/logger.js';
import { projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import { parseCliArgs, USAGE, UsageError, type CliOptions } from './cli.js';
import { createCountryLookup } from '../src/adapters/geo/country-lookup.js';
import { createChatModel, createSummarizer } from '../src/adapters/summarizers/index.js';
import type { Summarizer } from '../src/ports/summarizer.js';
import { buildIngestDeps, buildStores, downloaderOptionsFromConfig, extractLimitsFromConfig, type Stores } from './deps.js';
import { runEnrichCommand, runExportCommand, runRegistryFetchCommand, runTransactionsCommand } from './derived-commands.js';
import { createEnrichHook } from './stages/enrich.js';
import { formatSummary, runIngest } from './pipeline.js';
import { createBarProgress, createLogProgress } from './progress.js';
import { importRecords, readRecordFiles } from './records.js';
import { statusJsonLines, statusTable } from './status.js';

async function importedRefs(path: string, opts: CliOptions): Promise<ProjectRef[]> {
  const refs = new Map<string, ProjectRef>();
  for await (const r of readRecordFiles(path, {
    ...(opts.registry !== undefined ? { defaultRegistry: opts.registry } : {}),
    ...(opts.replaceBase !== undefined ? { replaceBase: opts.replaceBase } : {}),
  })) {
    if (r.record) refs.set(projectKey(r.record.ref), r.record.ref);
  }
  return [...refs.values()];
}

async function showStatus(config: Config, opts: CliOptions): Promise<void> {
  const stores = await buildStores(config);
  try {
    const states = await stores.states.list(opts.projects ? { projects: opts.projects } : undefined);
    const table = process.stdout.isTTY && !opts.json;
    process.stdout.write(table ? statusTable(states) : statusJsonLines(states));
  } finally {
    await stores.close();
  }
}

/** The summariser the document-derived `summary` field is written with (LLM=... or extractive). */
async function buildSummarizer(config: Config, logger: Logger): Promise<Summarizer> {
  return createSummarizer(config, logger, await createChatModel(config, logger));
}

/** Runs `fn` with the stores open, closing them after. */
async function withStores<T>(config: Config, logger: Logger, fn: (stores: Stores) => Promise<T>): Promise<T> {
  const stores = await buildStores(config, {}, logger);
  try {
    return await fn(stores);
  } finally {
    await stores.close();
  }
}

async function run(opts: CliOptions, config: Config, logger: Logger, signal: AbortSignal): Promise<void> {
  if (opts.status) {
    await showStatus(config, opts);
    return;
  }
  if (opts.exportFile) {
    const { registry, file } = opts.exportFile;
    await withStores(config, logger, (stores) => runExportCommand(stores.records, registry, file, logger));
    return;
  }
  if (opts.transactions) {
    const file = opts.transactions;
    await withStores(config, logger, (stores) => runTransactionsCommand(stores.records, file, logger));
    return;
  }
  if (opts.enrich) {
    const summarizer = await buildSummarizer(config, logger);
    try {
      await withStores(config, logger, (stores) =>
        runEnrichCommand(stores, summarizer, createCountryLookup(), logger, {
          ...(opts.projects ? { projects: opts.projects } : {}),
          signal,
        }),
      );
    } finally {
      await summarizer.close();
    }
    return;
  }

  let projects: ProjectRef[] | undefined = opts.projects;
  if (opts.ids !== undefined && opts.registry !== undefined) {
    const { registry, ids } = opts;
    const fetched = await withStores(config, logger, (stores) =>
      runRegistryFetchCommand(stores.records, config, registry, ids, logger, { signal }),
    );
    if (!opts.documents) return;
    projects = opts.projects
      ? fetched.refs.filter((r) => opts.projects?.some((p) => projectKey(p) === projectKey(r)))
      : fetched.refs;
  }
  if (opts.records) {
    const stores = await buildStores(config);
    try {
      const result = await importRecords(stores.records, opts.records, {
        ...(opts.registry !== undefined ? { defaultRegistry: opts.registry } : {}),
        ...(opts.replaceBase !== undefined ? { replaceBase: opts.replaceBase } : {}),
        logger,
      });
      process.stderr.write(
        `records: ${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged, ` +
          `${result.failed.length} failed\n`,
      );
      for (const f of result.failed) process.stderr.write(`  ${f.source}: ${f.error}\n`);
    } finally {
      await stores.close();
    }
    if (!opts.documents) return;
    const imported = await importedRefs(opts.records, opts);
    // --projects narrows an import to some of its projects.
    projects = opts.projects ? imported.filter((r) => opts.projects?.some((p) => projectKey(p) === projectKey(r))) : imported;
  }

  const deps = await buildIngestDeps(config, logger, { reindex: opts.reindex });
  let summarizer: Summarizer | null = null;
  try {
    summarizer = await buildSummarizer(config, logger);
    logger.info({ backends: deps.backends, embedder: deps.embedder.id }, 'ingest starting');
    const summary = await runIngest({
      deps,
      ...(opts.all ? { all: true } : { projects: projects ?? [] }),
      logger,
      // --no-progress: log lines only; --progress: the bar even when stderr is not a terminal; default: by TTY.
      progress: opts.progress === null ? true : opts.progress ? createBarProgress() : createLogProgress(logger),
      downloader: downloaderOptionsFromConfig(config),
      extractLimits: extractLimitsFromConfig(config),
      force: opts.reindex,
      sentenceVectors: config.SENTENCE_VECTORS,
      signal,
      // Document-derived fields (summary, emissions, document groups) follow each project's documents.
      afterProject: createEnrichHook({ summarizer, countries: deps.countries, force: opts.reindex, signal }),
    });
    logger.info({ summary: { ...summary, failures: summary.failures.length } }, 'ingest finished');
    process.stderr.write(`${formatSummary(summary)}\n`);
    for (const f of summary.failures) process.stderr.write(`  failed ${f.project} ${f.uri}: ${f.reason}\n`);
  } finally {
    await summarizer?.close().catch(() => undefined);
    await deps.close();
  }
}

async function main(): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseCliArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ingest: ${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw err;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ingest: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'ingest' });

  const controller = new AbortController();
  let interrupted = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`ingest: ${sig} received; stopping after the current writes (again to force)\n`);
    controller.abort(new Error(`interrupted by ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    await run(opts, config, logger, controller.signal);
    return 0;
  } catch (err) {
    if (interrupted) return 130;
    const message = err instanceof Error ? err.message : String(err);
    logger.fatal({ err }, 'ingest failed');
    process.stderr.write(`ingest: ${message}\n`);
    return 1;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    // Stores and the embedder are closed by now; a handle some library leaves open must not keep the worker alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`ingest: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
