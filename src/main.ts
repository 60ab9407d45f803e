import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildDeps, demoDir, type ApiDeps } from './deps.js';
import { createApp } from './http/app.js';
import { createLogger, type Logger } from './logger.js';
import { extractLimitsFromConfig } from '../ingest/deps.js';
import { runIngest } from '../ingest/pipeline.js';
import { importRecords, readRecordFiles } from '../ingest/records.js';
import { createEnrichHook } from '../ingest/stages/enrich.js';
import { createUrlPolicy } from './domain/url-policy.js';
import { projectKey, type ProjectRef } from './domain/project-ref.js';

/** In-flight requests get this long to finish after SIGTERM/SIGINT before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Loads the demo records into an empty store, with `{BASE}` in document uris pointing at this server. Returns the
 * demo projects the store holds (just loaded, or from an earlier start), so their documents get indexed: a start
 * interrupted before indexing finished is completed by the next one, and unchanged documents are skipped.
 */
async function loadDemoData(deps: ApiDeps, baseUrl: string, logger: Logger): Promise<ProjectRef[]> {
  const file = path.join(demoDir, 'records.jsonl');
  if (!existsSync(file)) {
    logger.warn({ file }, 'DEMO_DATA is on but the demo records file is missing; starting without demo data');
    return [];
  }
  const { records } = deps.stores;
  if ((await records.count()) === 0) {
    const result = await importRecords(records, file, { replaceBase: baseUrl, logger });
    logger.info({ inserted: result.inserted, failed: result.failed.length, baseUrl }, 'demo data loaded');
  } else {
    logger.info('record store is not empty; demo data not loaded');
  }
  const demoRefs: ProjectRef[] = [];
  for await (const item of readRecordFiles(file)) if (item.record) demoRefs.push(item.record.ref);
  const held = await records.getMany(demoRefs);
  return demoRefs.filter((ref) => held.has(projectKey(ref)));
}

/**
 * Indexes the demo projects' documents in this process, through the worker's real pipeline: the PDFs are downloaded
 * from this server's own /demo/documents/ (its address is allowed explicitly, as an operator would with
 * DOWNLOAD_ALLOW_HOSTS), so a newcomer's first search has something to cite. Runs in the background; the API serves
 * meanwhile (the embedder works off the main thread).
 */
async function indexDemoDocuments(
  deps: ApiDeps,
  projects: ProjectRef[],
  baseUrl: string,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  const { config } = deps;
  const self = new URL(baseUrl);
  const summary = await runIngest({
    deps: { ...deps.stores, embedder: deps.embedder, countries: deps.countries },
    projects,
    logger,
    sentenceVectors: config.SENTENCE_VECTORS,
    downloader: {
      policy: createUrlPolicy([...config.DOWNLOAD_ALLOW_HOSTS, self.host, `127.0.0.1:${self.port || '80'}`]),
      maxBytes: config.DOWNLOAD_MAX_BYTES,
      concurrency: config.DOWNLOAD_CONCURRENCY,
      perHostConcurrency: config.DOWNLOAD_PER_HOST_CONCURRENCY,
      timeoutMs: config.DOWNLOAD_TIMEOUT_MS,
      retries: config.DOWNLOAD_RETRIES,
    },
    extractLimits: extractLimitsFromConfig(config),
    afterProject: createEnrichHook({ summarizer: deps.summarizer, countries: deps.countries, signal }),
    signal,
  });
  logger.info({ documents: summary.documents }, 'demo documents indexed');
}

function listen(app: ReturnType<typeof createApp>, config: Config): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () => resolve(server));
    server.once('error', reject);
  });
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }

  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });
  const deps = await buildDeps(config, logger);
  const app = createApp(deps);
  const server = await listen(app, config);
  const { port } = server.address() as AddressInfo;
  const baseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  logger.info({ host: config.HOST, port, baseUrl, records: deps.stores.backends.records, index: deps.stores.backends.index, embedder: deps.embedder.id, answers: deps.summarizer.model }, 'listening');

  // Background demo indexing stops with the process rather than writing into closed stores.
  const background = new AbortController();
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    background.abort();
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    const force = setTimeout(() => {
      logger.warn({ graceMs: SHUTDOWN_GRACE_MS }, 'requests still open after the grace period; closing their connections');
      if ('closeAllConnections' in server) server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    // close() closes idle keep-alive sockets once; a socket whose request was in flight becomes idle only after its
    // answer, and would otherwise be held open until its keep-alive timeout.
    const sweep = setInterval(() => {
      if ('closeIdleConnections' in server) server.closeIdleConnections();
    }, 100);
    sweep.unref();
    // close() stops accepting and calls back once every open request has been answered; only then are the stores
    // closed, so no request loses its store mid-way.
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      deps
        .close()
        .then(() => {
          logger.info('stopped');
          process.exit(0);
        })
        .catch((err: unknown) => {
          logger.error({ err }, 'closing stores failed');
          process.exit(1);
        });
    });
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  // After listening, so the demo records can point at the port actually bound (PORT=0 picks a free one).
  if (config.DEMO_DATA) {
    try {
      const demo = await loadDemoData(deps, baseUrl, logger);
      if (demo.length > 0) {
        indexDemoDocuments(deps, demo, baseUrl, logger, background.signal).catch((err: unknown) => {
          logger.error({ err }, 'indexing the demo documents failed; search has nothing to cite until `npm run ingest -- --all`');
        });
      }
    } catch (err) {
      logger.error({ err }, 'loading demo data failed; serving without it');
    }
  }
}

main().catch((err: unknown) => {
  // Startup failures (a store that cannot be opened, a port in use) end the process with one clear line.
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`startup failed: ${message}\n`);
  process.exit(1);
});
