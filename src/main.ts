import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildDeps, demoDir, type ApiDeps } from './deps.js';
import { createApp } from './http/app.js';
import { startHttpServer } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { extractLimitsFromConfig } from '../ingest/deps.js';
import { runIngest } from '../ingest/pipeline.js';
import { importRecords, readRecordFiles } from '../ingest/records.js';
import { createDownloader, type Downloader } from '../ingest/stages/download.js';
import { createEnrichHook } from '../ingest/stages/enrich.js';
import { createUrlPolicy } from './domain/url-policy.js';
import { projectKey, type ProjectRef } from './domain/project-ref.js';

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
 * Indexes the demo projects' documents in this process, through the worker's real pipeline: the PDFs behind this
 * server's own /demo/documents/ links are read from the demo folder, other links downloaded (this server's address
 * allowed explicitly, as an operator would with DOWNLOAD_ALLOW_HOSTS), so a newcomer's first search has something to
 * cite. Runs in the background; the API serves
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
  const prefix = `${baseUrl}/demo/documents/`;
  const downloader = createDownloader({
    policy: createUrlPolicy([...config.DOWNLOAD_ALLOW_HOSTS, self.host, `127.0.0.1:${self.port || '80'}`]),
    maxBytes: config.DOWNLOAD_MAX_BYTES,
    concurrency: config.DOWNLOAD_CONCURRENCY,
    perHostConcurrency: config.DOWNLOAD_PER_HOST_CONCURRENCY,
    timeoutMs: config.DOWNLOAD_TIMEOUT_MS,
    retries: config.DOWNLOAD_RETRIES,
  });
  // The demo documents are read from disk rather than from this server, which wants a key for them when API_KEYS is
  // set; the bytes and hash are those the URL serves, so a later worker run finds them unchanged.
  const demoFiles: Downloader = {
    async download(uri, signal) {
      const name = uri.startsWith(prefix) ? uri.slice(prefix.length) : '';
      if (/^[A-Za-z0-9][A-Za-z0-9._-]*\.pdf$/.test(name)) {
        try {
          const bytes = await readFile(path.join(demoDir, 'documents', name));
          return { bytes, contentType: 'application/pdf', contentHash: createHash('sha256').update(bytes).digest('hex'), finalUrl: uri };
        } catch {
          // not a demo file after all: fetched like any other
        }
      }
      return downloader.download(uri, signal);
    },
    onIdle: () => downloader.onIdle(),
  };
  const summary = await runIngest({
    deps: { ...deps.stores, embedder: deps.embedder, countries: deps.countries },
    projects,
    logger,
    sentenceVectors: config.SENTENCE_VECTORS,
    downloader: demoFiles,
    extractLimits: extractLimitsFromConfig(config),
    afterProject: createEnrichHook({ summarizer: deps.summarizer, countries: deps.countries, signal }),
    signal,
  });
  logger.info({ documents: summary.documents }, 'demo documents indexed');
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
  const http = await startHttpServer(app.fetch, {
    port: config.PORT,
    hostname: config.HOST,
    maxConnections: config.MAX_CONNECTIONS,
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    logger,
  });
  const { port } = http.address;
  const baseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  logger.info({ host: config.HOST, port, baseUrl, records: deps.stores.backends.records, index: deps.stores.backends.index, embedder: deps.embedder.id, answers: deps.summarizer.model }, 'listening');

  // Background demo indexing stops with the process rather than writing into closed stores.
  const background = new AbortController();
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    background.abort();
    logger.info({ signal, graceMs: config.SHUTDOWN_GRACE_MS }, 'shutting down: no new connections, finishing requests in flight');
    // The drain answers every request already sent (accepted but not yet read too); only then are the stores
    // closed, so no request loses its store mid-way.
    http
      .drain(config.SHUTDOWN_GRACE_MS)
      .then((how) => {
        if (how === 'forced') logger.warn({ graceMs: config.SHUTDOWN_GRACE_MS }, 'requests still open after the grace period; their connections were closed');
        return deps.close();
      })
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'closing stores failed');
        process.exit(1);
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
