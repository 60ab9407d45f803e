import type { DiscoveryService } from '../services/discovery.js';
import type { MetadataService } from '../services/metadata.js';
import type { PassageService } from '../services/passages.js';
import type { SearchService } from '../services/search.js';

/**
 * What the MCP tools run on: the services the HTTP routes call (never a store), and the limits the routes' schemas
 * take from the configuration. A service left out makes its tools answer `unavailable`, as the routes do.
 */
export interface McpDeps {
  config: { MAX_BATCH_PROJECTS: number; SEARCH_MAX_TOP_K: number; SEARCH_DEFAULT_TOP_K: number };
  metadata: MetadataService;
  search?: SearchService;
  discovery?: DiscoveryService;
  passages?: PassageService;
}
