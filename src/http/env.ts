import type { Logger } from '../logger.js';
import type { PreparedQuery } from '../services/search.js';

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
