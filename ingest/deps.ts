import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import { buildEmbedder, buildStores, type BuildStoresOptions, type Stores } from '../src/deps.js';
import { createCountryLookup } from '../src/adapters/geo/country-lookup.js';
import { createPgIngestQueue } from '../src/adapters/postgres/ingest-queue.js';
import { createVerraClient } from '../src/adapters/verra/registry-client.js';
import { canonicalRegistry } from '../src/domain/registries.js';
import { createUrlPolicy } from '../src/domain/url-policy.js';
import type { CountryLookup } from '../src/ports/country-lookup.js';
import type { Embedder } from '../src/ports/embedder.js';
import type { IngestQueue } from '../src/ports/ingest-queue.js';
import type { RegistryClient } from '../src/ports/registry-client.js';
import { createDownloader, type DownloaderOptions } from './download/http-downloader.js';
import type { ExtractLimits } from './stages/extract.js';
import type { Downloader, IngestDeps } from './types.js';
import { defined } from '../src/defined.js';

/**
 * The worker's composition: the same adapter choices as the API (src/deps.ts buildStores / buildEmbedder /
 * buildSummarizer), so both processes always agree on where records, document state, text and vectors live; plus
 * the worker's own: the registry API client, the document downloader, the country lookup.
 */

export { buildEmbedder, buildStores, buildSummarizer, type BuildStoresOptions, type Stores } from '../src/deps.js';

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
    countries: buildCountryLookup(),
    backends: stores.backends,
    async close() {
      await embedder.close().catch(() => undefined);
      await stores.close();
    },
  };
}

/** Names a project's country from its record (the enrich command and the search context use it). */
export function buildCountryLookup(): CountryLookup {
  return createCountryLookup();
}

/** The live client of a registry; only Verra has a public record API the service speaks. */
export function buildRegistryClient(registry: string, config: Pick<Config, 'VERRA_BASE_URL'>, logger?: Logger): RegistryClient {
  const canonical = canonicalRegistry(registry);
  if (canonical === 'Verra') return createVerraClient({ baseUrl: config.VERRA_BASE_URL, ...defined({ logger }) });
  throw new Error(
    `no registry API client for ${JSON.stringify(registry)}: records can be fetched live from Verra only; ` +
      'import other registries from their CSV exports (--export <registry> <csv>)',
  );
}

/**
 * Download limits and allow-list from the configuration (DOWNLOAD_*), the one place they are read; `extraHosts` are
 * allowed beside DOWNLOAD_ALLOW_HOSTS (the API allows its own address for its demo documents).
 */
export function downloaderOptionsFromConfig(config: Config, extraHosts: readonly string[] = []): DownloaderOptions {
  return {
    policy: createUrlPolicy([...config.DOWNLOAD_ALLOW_HOSTS, ...extraHosts]),
    maxBytes: config.DOWNLOAD_MAX_BYTES,
    concurrency: config.DOWNLOAD_CONCURRENCY,
    perHostConcurrency: config.DOWNLOAD_PER_HOST_CONCURRENCY,
    timeoutMs: config.DOWNLOAD_TIMEOUT_MS,
    retries: config.DOWNLOAD_RETRIES,
  };
}

/** The HTTP document downloader under the DOWNLOAD_* settings. */
export function buildDownloader(config: Config, extraHosts: readonly string[] = []): Downloader {
  return createDownloader(downloaderOptionsFromConfig(config, extraHosts));
}

/** PDF extraction limits from the configuration (EXTRACT_*, and OCR_*: OCR_MAX_PAGES=0 turns OCR off). */
export function extractLimitsFromConfig(config: Config): ExtractLimits {
  return {
    timeoutMs: config.EXTRACT_TIMEOUT_MS,
    maxMemoryMb: config.EXTRACT_MAX_MEMORY_MB,
    maxPages: config.EXTRACT_MAX_PAGES,
    maxTextChars: config.EXTRACT_MAX_TEXT_CHARS,
    ocr:
      config.OCR_MAX_PAGES === 0
        ? null
        : {
            maxPages: config.OCR_MAX_PAGES,
            dpi: config.OCR_DPI,
            minConfidence: config.OCR_MIN_CONFIDENCE,
            pageCpuMs: config.OCR_PAGE_CPU_MS,
          },
  };
}

/**
 * The scale-out job queue (pg-boss on PostgreSQL) when DATABASE_URL is set; null for the embedded default, whose
 * `npm run ingest` processes documents in its own process.
 */
export async function buildIngestQueue(config: Config, logger: Logger): Promise<IngestQueue | null> {
  if (!config.DATABASE_URL) return null;
  return createPgIngestQueue({
    connectionString: config.DATABASE_URL,
    leaseSeconds: config.INGEST_JOB_LEASE_SECONDS,
    retryLimit: config.INGEST_RETRY_LIMIT,
    retryDelaySeconds: config.INGEST_RETRY_DELAY_SECONDS,
    pollingIntervalSeconds: config.INGEST_POLL_SECONDS,
    onError: (err) => logger.warn({ err }, 'job queue: a poll or maintenance step failed; retrying'),
  });
}
