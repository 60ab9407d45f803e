import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import { buildEmbedder, buildStores, type BuildStoresOptions, type Stores } from '../src/deps.js';
import { createCountryLookup } from '../src/adapters/geo/country-lookup.js';
import { createUrlPolicy } from '../src/domain/url-policy.js';
import type { CountryLookup } from '../src/ports/country-lookup.js';
import type { Embedder } from '../src/ports/embedder.js';
import type { DownloaderOptions } from './stages/download.js';
import type { ExtractLimits } from './stages/extract.js';
import type { IngestDeps } from './types.js';

/**
 * The worker's composition: the same adapter choices as the API (src/deps.ts buildStores / buildEmbedder), so both
 * processes always agree on where records, document state, text and vectors live.
 */

export { buildEmbedder, buildStores, type BuildStoresOptions, type Stores } from '../src/deps.js';

export interface BuiltIngestDeps extends IngestDeps {
  countries: CountryLookup;
  backends: Stores['backends'];
  close(): Promise<void>;
}

/** Stores plus embedder: everything runIngest needs. */
export async function buildIngestDeps(config: Config, logger: Logger, opts: BuildStoresOptions = {}): Promise<BuiltIngestDeps> {
  const stores = await buildStores(config, opts, logger);
  let embedder: Embedder;
  try {
    embedder = await buildEmbedder(config, logger);
  } catch (err) {
    await stores.close();
    throw err;
  }
  return {
    records: stores.records,
    states: stores.states,
    texts: stores.texts,
    index: stores.index,
    embedder,
    countries: createCountryLookup(),
    backends: stores.backends,
    async close() {
      await embedder.close().catch(() => undefined);
      await stores.close();
    },
  };
}

/** Download limits and allow-list from the configuration (DOWNLOAD_*). */
export function downloaderOptionsFromConfig(config: Config): DownloaderOptions {
  return {
    policy: createUrlPolicy(config.DOWNLOAD_ALLOW_HOSTS),
    maxBytes: config.DOWNLOAD_MAX_BYTES,
    concurrency: config.DOWNLOAD_CONCURRENCY,
    perHostConcurrency: config.DOWNLOAD_PER_HOST_CONCURRENCY,
    timeoutMs: config.DOWNLOAD_TIMEOUT_MS,
    retries: config.DOWNLOAD_RETRIES,
  };
}

/** PDF extraction limits from the configuration (EXTRACT_*). */
export function extractLimitsFromConfig(config: Config): ExtractLimits {
  return {
    timeoutMs: config.EXTRACT_TIMEOUT_MS,
    maxMemoryMb: config.EXTRACT_MAX_MEMORY_MB,
    maxPages: config.EXTRACT_MAX_PAGES,
    maxTextChars: config.EXTRACT_MAX_TEXT_CHARS,
  };
}
