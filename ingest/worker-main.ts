/**
 * `npm run worker`: a scale-out ingestion worker. Claims document jobs from the PostgreSQL queue (DATABASE_URL) that
 * `npm run ingest` fills, runs the stages, and settles them; any number of these processes, on any machines, share
 * the work. With METRICS_PORT set it serves GET /metrics. SIGTERM / SIGINT: stop claiming and finish the documents in
 * flight; a second signal stops at once (their jobs go to another worker when their lease expires).
 * Exit codes: 0 after a clean stop, 1 on a fatal error (bad configuration, PostgreSQL unreachable), 2 on bad arguments.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { createLogger, type Logger } from '../src/logger.js';
import { buildDownloader, buildIngestDeps, buildIngestQueue, buildPdfExtractor, buildSummarizer, type BuiltIngestDeps } from './deps.js';
import { createWorkerMetrics, startMetricsListener, type MetricsListener } from './metrics.js';
import { createWorkerHandlers } from './worker.js';
import type { IngestQueue } from '../src/ports/ingest-queue.js';
import type { Summarizer } from '../src/ports/summarizer.js';

const USAGE = `Usage: npm run worker -- [--concurrency <n>]

Claims document jobs queued by \`npm run ingest\` (DATABASE_URL must name the PostgreSQL that holds the queue) and
processes them; run as many as you like, on as many machines. Settings: WORKER_CONCURRENCY, INGEST_JOB_LEASE_SECONDS,
INGEST_RETRY_LIMIT, INGEST_RETRY_DELAY_SECONDS, INGEST_POLL_SECONDS, METRICS_PORT (README "Scale-out").

  --concurrency <n>   documents this process runs at once (default WORKER_CONCURRENCY, 2)
  -h, --help          this text`;

interface WorkerArgs {
  concurrency?: number;
  help: boolean;
}

function parseWorkerArgs(argv: string[]): WorkerArgs {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { concurrency: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  });
  const out: WorkerArgs = { help: values.help ?? false };
  if (values.concurrency !== undefined) {
    const n = Number(values.concurrency);
    if (!(Number.isInteger(n) && n >= 1 && n <= 64))
      throw new Error(`--concurrency must be an integer from 1 to 64, got ${values.concurrency}`);
    out.concurrency = n;
  }
  return out;
}

async function runWorker(
  config: Config,
  args: WorkerArgs,
  logger: Logger,
  stopClaiming: AbortSignal,
  hardStop: AbortSignal,
): Promise<void> {
  const workerName = `${os.hostname()}:${process.pid}`;
  let deps: BuiltIngestDeps | null = null;
  let queue: IngestQueue | null = null;
  let summarizer: Summarizer | null = null;
  let listener: MetricsListener | null = null;
  const extractor = buildPdfExtractor(config);
  try {
    deps = await buildIngestDeps(config, logger);
    await deps.index.open({ embedderId: deps.embedder.id, dimensions: deps.embedder.dimensions });
    queue = await buildIngestQueue(config, logger);
    if (!queue) throw new ConfigError('DATABASE_URL is not set');
    summarizer = await buildSummarizer(config, logger);
    const metrics = createWorkerMetrics(queue);
    if (config.METRICS_PORT !== undefined) {
      listener = await startMetricsListener(metrics.registry, {
        port: config.METRICS_PORT,
        host: config.HOST,
        keys: config.API_KEYS,
        public: config.METRICS_PUBLIC,
      });
    }
    const handlers = createWorkerHandlers({
      deps,
      downloader: buildDownloader(config),
      extractor,
      summarizer,
      logger,
      sentenceVectors: config.SENTENCE_VECTORS,
      metrics,
      signal: hardStop,
    });
    const concurrency = args.concurrency ?? config.WORKER_CONCURRENCY;
    logger.info(
      { worker: workerName, concurrency, embedder: deps.embedder.id, backends: deps.backends, metricsPort: listener?.port ?? null },
      'worker ready',
    );
    await queue.work(handlers, { concurrency, workerName, signal: stopClaiming });
    logger.info({ worker: workerName }, 'worker stopping: finishing the documents in flight');
  } finally {
    await queue?.close().catch((err: unknown) => logger.warn({ err }, 'closing the queue failed'));
    await listener?.close();
    await extractor.close();
    await summarizer?.close().catch(() => undefined);
    await deps?.close();
  }
}

async function main(): Promise<number> {
  let args: WorkerArgs;
  try {
    args = parseWorkerArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`worker: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}\n`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`worker: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (!config.DATABASE_URL) {
    process.stderr.write(
      'worker: DATABASE_URL is not set. The job queue lives in PostgreSQL; without it, `npm run ingest` processes ' +
        'the documents in its own process.\n',
    );
    return 1;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker' });
  const stopClaiming = new AbortController();
  const hardStop = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (stopClaiming.signal.aborted) {
      process.stderr.write(`worker: ${sig} again; stopping now (the jobs in flight go to another worker after their lease)\n`);
      hardStop.abort(new Error(`interrupted by ${sig}`));
      setTimeout(() => process.exit(130), 1000).unref();
      return;
    }
    process.stderr.write(`worker: ${sig} received; finishing the documents in flight (again to stop now)\n`);
    stopClaiming.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await runWorker(config, args, logger, stopClaiming.signal, hardStop.signal);
    return 0;
  } catch (err) {
    logger.fatal({ err }, 'worker failed');
    process.stderr.write(`worker: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (err: unknown) => {
    process.stderr.write(`worker: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
