import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { IngestDeps } from '../../ingest/types.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { buildSearch } from '../../src/deps.js';
import { buildIngestDeps, type BuiltIngestDeps } from '../../ingest/deps.js';
import { createMetadataService } from '../../src/services/metadata.js';
import type { SearchServiceOptions } from '../../src/services/search.js';

export interface SearchServer {
  baseUrl: string;
  answerModel: string;
  close(): Promise<void>;
}

/**
 * The real API (createApp with the search service src/deps.ts buildSearch composes over the given stores) on a real
 * HTTP server on 127.0.0.1, for the evaluation, the search benchmark and the end-to-end tests.
 */
export async function startSearchServer(
  config: Config,
  deps: Pick<IngestDeps, 'records' | 'states' | 'index' | 'embedder'> & Partial<Pick<IngestDeps, 'texts'>>,
  logger: Logger,
  tuning: Partial<SearchServiceOptions> = {},
): Promise<SearchServer> {
  const { search, summarizer } = await buildSearch(config, logger, deps, deps.embedder, tuning);
  const app = createApp({
    config,
    logger,
    metadata: createMetadataService({ records: deps.records, countries: createCountryLookup() }),
    readiness: [],
    search,
  });
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    answerModel: summarizer.model,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await summarizer.close();
    },
  };
}

/**
 * The folder the evaluation caches an embedder's index of a corpus in (main.ts builds it; quotes.ts reads it). The
 * development corpus (`corpus`) keeps the folder it always had.
 */
export function evalDataDir(embedder: string, corpusName = 'corpus'): string {
  const name = embedder.replace(/[^A-Za-z0-9.-]+/g, '_');
  return path.join(tmpdir(), 'carbon-docs-eval', corpusName === 'corpus' ? name : `${name}@${corpusName.replace(/[^A-Za-z0-9.-]+/g, '_')}`);
}

/** The configuration the evaluation searches with: the cached index, the embedded stores, no demo data. */
export function evalConfig(embedder: string, extra: Record<string, string> = {}): Config {
  return loadConfig({
    ...process.env,
    DATA_DIR: evalDataDir(embedder),
    EMBEDDER: embedder,
    DEMO_DATA: 'false',
    DATABASE_URL: '',
    QDRANT_URL: '',
    LLM: process.env.LLM ?? 'extractive',
    SEARCH_MAX_TOP_K: '50',
    ...extra,
  });
}

/**
 * The index `npm run eval` cached for an embedder, opened in-process with the extractive answer whatever LLM is set
 * (quotes.ts and generic.ts measure the quotes and the answers made of them). The caller closes `deps`.
 */
export async function openCachedIndex(
  embedder: string,
  name: string,
  corpusName = 'corpus',
): Promise<{ config: Config; logger: Logger; deps: BuiltIngestDeps }> {
  const dataDir = evalDataDir(embedder, corpusName);
  if (!existsSync(path.join(dataDir, 'eval-cache.json'))) {
    throw new Error(`no cached index in ${dataDir}: run npm run eval -- --embedders ${embedder} --modes hybrid first`);
  }
  const logger = createLogger({ level: 'warn', name });
  const modelsDir = process.env.MODELS_DIR ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../models');
  const config = evalConfig(embedder, { LLM: 'extractive', MODELS_DIR: modelsDir, DATA_DIR: dataDir });
  const deps = await buildIngestDeps(config, logger);
  try {
    await deps.index.open({ embedderId: deps.embedder.id, dimensions: deps.embedder.dimensions });
  } catch (err) {
    await deps.close();
    throw err;
  }
  return { config, logger, deps };
}

/** The value after `--name` on the command line, if any (the evaluation scripts' options). */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Whether `--name` is on the command line. */
export const flag = (name: string): boolean => process.argv.includes(`--${name}`);
