import type { Config } from '../src/config.js';
import type { Logger } from '../src/logger.js';
import { buildEmbedder, buildStores, extractLimitsFromConfig, type BuildStoresOptions, type Stores } from '../src/deps.js';
import { createCountryLookup } from '../src/adapters/geo/country-lookup.js';
import { createPgIngestQueue } from '../src/adapters/postgres/ingest-queue.js';
import { createVerraClient } from '../src/adapters/verra/registry-client.js';
import { canonicalRegistry } from '../src/domain/registries.js';
import type { CountryLookup } from '../src/ports/country-lookup.js';
import type { Embedder } from '../src/ports/embedder.js';
import type { IngestQueue } from '../src/ports/ingest-queue.js';
import type { RegistryClient } from '../src/ports/registry-client.js';
import { createPdfExtractor } from './stages/extract.js';
import type { IngestDeps, PdfExtractor } from './types.js';
import { defined } from '../src/defined.js';

/**
 * The worker's composition: the same adapter choices as the API (src/deps.ts buildStores / buildEmbedder /
 * buildSummarizer), so both processes always agree on where records, document state, text and vectors live; plus
 * the worker's own: the registry API client, the PDF extractor, the country lookup, the job queue.
 */

export {
  buildDownloader,
  buildEmbedder,
  buildStores,
  buildSummarizer,
  downloaderOptionsFromConfig,
  extractLimitsFromConfig,
  type BuildStoresOptions,
  type Stores,
} from '../src/deps.js';

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
    ...(stores.leases ? { leases: stores.leases } : {}),
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

/** The PDF text extractor under the EXTRACT_* limits; its owner closes it when the process ends. */
export function buildPdfExtractor(config: Config): PdfExtractor {
  return createPdfExtractor(extractLimitsFromConfig(config));
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
