import { ConfigError, loadConfig, type Config } from './config.js';
import { buildDeps, demoSeed } from './deps.js';
import { NotReadyError } from './errors.js';
import { createApp } from './http/app.js';
import type { ReadinessCheck } from './http/types.js';
import { startHttpServer } from './http/server.js';
import { createLogger } from './logger.js';
import { seedDemo } from '../ingest/demo.js';

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
  // With DEMO_DATA, /readyz waits for the demo documents: a search before they are indexed would cite nothing.
  let demoPending = config.DEMO_DATA;
  const demoReadiness: ReadinessCheck = {
    name: 'demo documents',
    check: () =>
      demoPending
        ? Promise.reject(new NotReadyError('the demo documents are being indexed; search cites them once done'))
        : Promise.resolve(),
  };
  const app = createApp({ ...deps, readiness: config.DEMO_DATA ? [...deps.readiness, demoReadiness] : deps.readiness });
  const http = await startHttpServer(app.fetch, {
    port: config.PORT,
    hostname: config.HOST,
    maxConnections: config.MAX_CONNECTIONS,
    perAddressShare: config.MAX_CONNECTIONS_PER_ADDRESS_SHARE,
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
    logger,
  });
  const { port } = http.address;
  const baseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${port}`;
  logger.info(
    {
      host: config.HOST,
      port,
      baseUrl,
      records: deps.stores.backends.records,
      index: deps.stores.backends.index,
      embedder: deps.embedder.id,
      answers: deps.summarizer.model,
    },
    'listening',
  );

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
        if (how === 'forced')
          logger.warn({ graceMs: config.SHUTDOWN_GRACE_MS }, 'requests still open after the grace period; their connections were closed');
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
      // The documents are indexed in the background; seedDemo logs a failure there itself (and readiness then
      // stops waiting: the stores serve, without the demo).
      const seed = demoSeed(deps, baseUrl);
      const { indexing } = await seedDemo(seed.deps, { ...seed.options, logger, signal: background.signal });
      void indexing.finally(() => {
        demoPending = false;
      });
    } catch (err) {
      demoPending = false;
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
