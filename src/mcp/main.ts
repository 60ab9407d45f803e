import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { buildDeps, demoSeed } from '../deps.js';
import { createLogger } from '../logger.js';
import { createMcpServer, createMcpToolset } from './server.js';
import { takeStdoutForProtocol } from './stdio.js';
import { seedDemo } from '../../ingest/demo.js';

/**
 * `npm run mcp`: the MCP tools over stdio, on the same configuration and stores as `npm start` (src/main.ts), for an
 * assistant that starts the server itself (Claude Desktop). Logs go to stderr; stdout carries only the protocol.
 */
async function main(): Promise<void> {
  const protocolOut = takeStdoutForProtocol();
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

  const logger = createLogger({ level: config.LOG_LEVEL, name: 'mcp', destination: process.stderr });
  const deps = await buildDeps(config, logger);
  const server = createMcpServer(createMcpToolset(deps), logger);

  const background = new AbortController();
  let stopping = false;
  const shutdown = (why: string): void => {
    if (stopping) return;
    stopping = true;
    background.abort();
    logger.info({ why }, 'shutting down');
    server
      .close()
      .then(() => deps.close())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, 'closing stores failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // The client ends the session by closing our stdin.
  process.stdin.once('end', () => shutdown('stdin closed'));

  await server.connect(new StdioServerTransport(process.stdin, protocolOut));
  logger.info(
    {
      records: deps.stores.backends.records,
      index: deps.stores.backends.index,
      embedder: deps.embedder.id,
      answers: deps.summarizer.model,
    },
    'MCP server on stdio',
  );

  // As `npm start` does, so that a first session has something to find; the demo records' document links point at
  // the API's address (`npm start` serves the PDFs there).
  if (config.DEMO_DATA) {
    const baseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`;
    try {
      const seed = demoSeed(deps, baseUrl);
      await seedDemo(seed.deps, { ...seed.options, logger, signal: background.signal });
    } catch (err) {
      logger.error({ err }, 'loading demo data failed; serving without it');
    }
  }
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`startup failed: ${message}\n`);
  process.exit(1);
});
