import type { ApiMetrics } from './metrics.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { DiscoveryService } from '../services/discovery.js';
import type { MetadataService } from '../services/metadata.js';
import type { PassageService } from '../services/passages.js';
import type { PreparedQuery, SearchService } from '../services/search.js';

/** Per-request values set by the request-context middleware; every handler can rely on them. */
export interface AppVariables {
  requestId: string;
  logger: Logger;
  /** Which configured API key the request presented (`key1`, `key2`, ...), once auth has accepted it. */
  apiKeyId?: string;
  /** The request body as parsed by the jsonBody middleware (once; routes validate this value). */
  jsonBody?: unknown;
  /** The batch-search question whose embedding was started while the request was validated. */
  preparedQuery?: PreparedQuery;
}

export interface AppEnv {
  Variables: AppVariables;
}

/** A backing service /readyz checks; `check` throws (ideally a DependencyError) when it cannot be used. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

/**
 * What the HTTP layer needs, built by src/deps.ts (or by a test). Services, not adapters: routes never see a store.
 */
export interface AppDeps {
  config: Config;
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
