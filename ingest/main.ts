/**
 * The worker's entry and composition root: `npm run ingest -- --records <path> | --registry <name> --ids <list> |
 * --export <registry> <csv> | --transactions <csv> | --enrich | --all | --projects <list> | --status |
 * --hide / --unhide <list>`.
 * Exit codes (EXIT): 0 when the run completed and no document failed, 3 when it completed but documents failed
 * (listed in the summary and by --status), 1 on a fatal error, 2 on bad arguments, 130 when interrupted.
 */
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger, type Logger } from '../src/logger.js';
import { projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import { EXIT, parseCliArgs, USAGE, UsageError, type CliOptions } from './cli.js';
import type { Summarizer } from '../src/ports/summarizer.js';
import {
  buildCountryLookup,
  buildIngestDeps,
  buildIngestQueue,
  buildRegistryClient,
  buildStores,
  buildSummarizer,
  buildDownloader,
  buildPdfExtractor,
  type Stores,
} from './deps.js';
import { runEnrichCommand, runExportCommand, runRegistryFetchCommand, runTransactionsCommand } from './derived-commands.js';
import { createEnrichHook } from './stages/enrich.js';
import { formatHideResult, setProjectsHidden } from './hide.js';
import { formatSummary, runIngest } from './pipeline.js';
import { createBarProgress, createLogProgress, createLogSink, type LogSink } from './progress.js';
import { importRecords, readRecordFiles, URI_PLACEHOLDER } from './records.js';
import { queueStatusText, statusJsonLines, statusTable } from './status.js';
import { enqueueIngest, formatEnqueueSummary } from './enqueue.js';
import type { IngestQueue, QueueStatus } from '../src/ports/ingest-queue.js';
import { defined } from '../src/defined.js';

async function importedRefs(path: string, opts: CliOptions): Promise<ProjectRef[]> {
  const refs = new Map<string, ProjectRef>();
  for await (const r of readRecordFiles(path, defined({ defaultRegistry: opts.registry, replaceBase: opts.replaceBase }))) {
    if (r.record) refs.set(projectKey(r.record.ref), r.record.ref);
  }
  return [...refs.values()];
}

async function showStatus(config: Config, opts: CliOptions, logger: Logger): Promise<void> {
  const table = process.stdout.isTTY && !opts.json;
  const queue = await buildIngestQueue(config, logger);
  if (queue) {
    try {
      const status = await queue.status();
      process.stdout.write(table ? queueStatusText(status) : `${JSON.stringify({ queue: status })}\n`);
    } finally {
      await queue.close();
    }
  }
  const stores = await buildStores(config);
  try {
    const states = await stores.states.list(opts.projects ? { projects: opts.projects } : undefined);
    process.stdout.write(table ? statusTable(states) : statusJsonLines(states));
  } finally {
    await stores.close();
  }
}

/**
 * With DATABASE_URL: discovers the projects' documents and queues one job per document for `npm run worker`; with
 * `--wait`, waits until the workers have settled every job. Exit code 3 when jobs failed meanwhile.
 */
async function enqueueRun(
  opts: CliOptions,
  config: Config,
  logger: Logger,
  projects: ProjectRef[] | undefined,
  signal: AbortSignal,
): Promise<number> {
  const deps = await buildIngestDeps(config, logger, { reindex: opts.reindex });
  let queue: IngestQueue | null = null;
  try {
    queue = await buildIngestQueue(config, logger);
    if (!queue) throw new Error('the job queue needs DATABASE_URL');
    const failedBefore = (await queue.status()).queues.documents.failed;
    const summary = await enqueueIngest({
      deps,
      queue,
      ...(opts.all ? { all: true } : { projects: projects ?? [] }),
      force: opts.reindex,
      logger,
    });
    process.stderr.write(`${formatEnqueueSummary(summary)}\n`);
    if (!opts.wait) {
      process.stderr.write('ingest: start workers with `npm run worker`; follow the queue with `npm run ingest -- --status`\n');
      return EXIT.ok;
    }
    const status = await waitForQueue(queue, signal, (s) =>
      process.stderr.write(
        `queue: ${s.queues.documents.created + s.queues.documents.retry} waiting, ${s.queues.documents.active} active, ` +
          `${s.queues.documents.completed} completed, ${s.queues.documents.failed} failed\n`,
      ),
    );
    const failed = status.queues.documents.failed - failedBefore;
    if (failed > 0) {
      process.stderr.write(`ingest: ${failed} document job(s) failed (exit code ${EXIT.documentsFailed}); \`--status\` lists them\n`);
      return EXIT.documentsFailed;
    }
    return EXIT.ok;
  } finally {
    await queue?.close().catch(() => undefined);
    await deps.close();
  }
}

/** Polls the queue until no document or enrichment job waits or runs; reports progress every 10 s. */
async function waitForQueue(queue: IngestQueue, signal: AbortSignal, report: (s: QueueStatus) => void): Promise<QueueStatus> {
  let last = 0;
  for (;;) {
    signal.throwIfAborted();
    const status = await queue.status();
    const open = status.depth + status.queues.documents.active + status.queues.enrich.active;
    if (open === 0) {
      report(status);
      return status;
    }
    if (Date.now() - last >= 10_000) {
      report(status);
      last = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
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

/** Runs the command; resolves to EXIT.ok, or EXIT.documentsFailed when a run completed with failed documents. */
async function run(opts: CliOptions, config: Config, logger: Logger, logSink: LogSink, signal: AbortSignal): Promise<number> {
  if (opts.status) {
    await showStatus(config, opts, logger);
    return EXIT.ok;
  }
  if (opts.hide) {
    const { projects, hidden } = opts.hide;
    const result = await withStores(config, logger, (stores) => setProjectsHidden(stores.records, projects, hidden));
    process.stderr.write(formatHideResult(result, hidden));
    return result.notFound.length > 0 ? EXIT.fatal : EXIT.ok;
  }
  if (opts.exportFile) {
    const { registry, file } = opts.exportFile;
    await withStores(config, logger, (stores) => runExportCommand(stores.records, registry, file, logger));
    return EXIT.ok;
  }
  if (opts.transactions) {
    const file = opts.transactions;
    await withStores(config, logger, (stores) => runTransactionsCommand(stores.records, file, logger));
    return EXIT.ok;
  }
  if (opts.enrich) {
    const summarizer = await buildSummarizer(config, logger);
    try {
      await withStores(config, logger, (stores) =>
        runEnrichCommand(stores, summarizer, buildCountryLookup(), logger, {
          ...defined({ projects: opts.projects }),
          signal,
        }),
      );
    } finally {
      await summarizer.close();
    }
    return EXIT.ok;
  }

  let projects: ProjectRef[] | undefined = opts.projects;
  if (opts.ids !== undefined && opts.registry !== undefined) {
    const { registry, ids } = opts;
    const fetched = await withStores(config, logger, (stores) =>
      runRegistryFetchCommand(stores.records, buildRegistryClient(registry, config, logger), ids, logger, { signal }),
    );
    if (!opts.documents) return EXIT.ok;
    projects = opts.projects ? fetched.refs.filter((r) => opts.projects?.some((p) => projectKey(p) === projectKey(r))) : fetched.refs;
  }
  if (opts.records) {
    const stores = await buildStores(config);
    try {
      const result = await importRecords(stores.records, opts.records, {
        ...defined({ defaultRegistry: opts.registry, replaceBase: opts.replaceBase }),
        logger,
      });
      process.stderr.write(
        `records: ${result.inserted} inserted, ${result.updated} updated, ${result.unchanged} unchanged, ` +
          `${result.failed.length} failed\n`,
      );
      for (const f of result.failed) process.stderr.write(`  ${f.source}: ${f.error}\n`);
      warnPlaceholders(result.placeholders, opts);
    } finally {
      await stores.close();
    }
    if (!opts.documents) return EXIT.ok;
    const imported = await importedRefs(opts.records, opts);
    // --projects narrows an import to some of its projects.
    projects = opts.projects ? imported.filter((r) => opts.projects?.some((p) => projectKey(p) === projectKey(r))) : imported;
  }

  // The scale-out stack queues the documents for its workers unless told to process them here.
  if (config.DATABASE_URL && !opts.inline) return enqueueRun(opts, config, logger, projects, signal);

  const deps = await buildIngestDeps(config, logger, { reindex: opts.reindex });
  const extractor = buildPdfExtractor(config);
  let summarizer: Summarizer | null = null;
  try {
    summarizer = await buildSummarizer(config, logger);
    logger.info({ backends: deps.backends, embedder: deps.embedder.id }, 'ingest starting');
    // --no-progress: log lines only; --progress: the bar even when stderr is not a terminal; default: by TTY.
    const bar = opts.progress ?? process.stderr.isTTY === true;
    const progress = bar ? createBarProgress() : createLogProgress(logger);
    // On a terminal, log lines are written above the bar instead of across it.
    logSink.attach(progress);
    const summary = await runIngest({
      deps,
      ...(opts.all ? { all: true } : { projects: projects ?? [] }),
      logger,
      progress,
      downloader: buildDownloader(config),
      extractor,
      force: opts.reindex,
      sentenceVectors: config.SENTENCE_VECTORS,
      signal,
      // Document-derived fields (summary, emissions, document groups) follow each project's documents.
      afterProject: createEnrichHook({ summarizer, countries: deps.countries, force: opts.reindex, signal }),
    });
    logSink.detach();
    logger.info({ summary: { ...summary, failures: summary.failures.length } }, 'ingest finished');
    process.stderr.write(`${formatSummary(summary)}\n`);
    for (const f of summary.failures) process.stderr.write(`  failed ${f.project} ${f.uri}: ${f.reason}\n`);
    if (summary.documents.heldByOtherRun > 0) {
      process.stderr.write(
        `ingest: another ingest on the same DATA_DIR${summary.otherRuns.length > 0 ? ` (${summary.otherRuns.join(', ')})` : ''} held or finished ` +
          `${summary.documents.heldByOtherRun} document(s); they were left to it\n`,
      );
    }
    if (summary.documents.failed > 0) {
      process.stderr.write(
        `ingest: ${summary.documents.failed} document(s) failed (exit code ${EXIT.documentsFailed}); ` +
          '`npm run ingest -- --status` lists them with their reasons\n',
      );
      return EXIT.documentsFailed;
    }
    return EXIT.ok;
  } finally {
    logSink.detach();
    await extractor.close();
    await summarizer?.close().catch(() => undefined);
    await deps.close();
  }
}

/** Says on stderr, once per import, that some document uris still hold a `{...}` placeholder and how to fix it. */
function warnPlaceholders(found: { source: string; project: string; uri: string }[], opts: CliOptions): void {
  const first = found[0];
  if (!first) return;
  const name = URI_PLACEHOLDER.exec(first.uri)?.[0] ?? '{...}';
  const fix =
    name === '{BASE}' && opts.replaceBase === undefined
      ? 'serve the files and pass --replace-base <url> (README: "Ingesting the corpus")'
      : 'fix the records, or pass --replace-base <url> for {BASE}';
  process.stderr.write(
    `warning: ${found.length} document uri(s) still hold a placeholder such as ${name} (first: ${first.uri} in ` +
      `${first.project}, ${first.source}); they cannot be downloaded: ${fix}\n`,
  );
}

async function main(): Promise<number> {
  let opts: CliOptions;
  try {
    opts = parseCliArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ingest: ${err.message}\n\n${USAGE}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ingest: ${err.message}\n`);
      return EXIT.fatal;
    }
    throw err;
  }
  const logSink = createLogSink(process.stdout);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'ingest', destination: logSink.stream });

  const controller = new AbortController();
  let interrupted = false;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    process.stderr.write(`ingest: ${sig} received; stopping after the current writes (again to force)\n`);
    controller.abort(new Error(`interrupted by ${sig}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    return await run(opts, config, logger, logSink, controller.signal);
  } catch (err) {
    if (interrupted) return EXIT.interrupted;
    const message = err instanceof Error ? err.message : String(err);
    logger.fatal({ err }, 'ingest failed');
    process.stderr.write(`ingest: ${message}\n`);
    return EXIT.fatal;
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
