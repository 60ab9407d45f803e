import type { ApiMetrics } from './metrics.js';
import type { Logger } from '../logger.js';
import type { DiscoveryService } from '../services/discovery.js';
import type { MetadataService } from '../services/metadata.js';
import type { PassageService } from '../services/passages.js';
import type { SearchService } from '../services/search.js';

/** A backing service /readyz checks; `check` throws (ideally a DependencyError) when it cannot be used. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/**
 * The settings the HTTP layer reads (names as in src/config.ts, which src/deps.ts passes whole): limits, keys and
 * the public address. The configuration module itself stays with the composition roots.
 */
export interface HttpSettings {
  API_KEYS: readonly string[];
  AUTH_FAILURES_PER_MINUTE: number;
  RATE_LIMIT_PER_MINUTE: number;
  METRICS_PUBLIC: boolean;
  MAX_BODY_BYTES: number;
  MAX_BATCH_PROJECTS: number;
  SEARCH_DEFAULT_TOP_K: number;
  SEARCH_MAX_TOP_K: number;
  PUBLIC_BASE_URL?: string | undefined;
}

/**
 * What the HTTP layer needs, built by src/deps.ts (or by a test). Services, not adapters: routes never see a store.
 */
export interface AppDeps {
  config: HttpSettings;
  logger: Logger;
  metadata: MetadataService;
  /** Batch document search; when absent the route answers 503 `unavailable` (e.g. a metadata-only deployment). */
  search?: SearchService;
  /** Project discovery (POST /projects/search); when absent the route answers 503 `unavailable`. */
  discovery?: DiscoveryService;
  /** Passages across every project (the MCP `search` and `fetch` tools); when absent they answer `unavailable`. */
  passages?: PassageService;
  /** Checked in order by GET /readyz; the first failure names the store in a 503. */
  readiness: readonly ReadinessCheck[];
  /** Folder served read-only at GET /demo/documents/<name>.pdf; unset serves nothing. */
  demoDocumentsDir?: string;
  /** Prometheus metrics served at GET /metrics (http/metrics.ts); unset serves none. */
  metrics?: ApiMetrics;
}
