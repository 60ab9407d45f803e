import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../types.js';
import type { AppEnv } from '../env.js';
import { registerBatchMetadata } from './batch-metadata.js';
import { registerBatchSearch } from './batch-search.js';
import { registerMcp } from './mcp.js';
import { registerMetadata } from './metadata.js';
import { registerProjectSearch } from './project-search.js';

/** Every documented API endpoint, one register call each. createApp adds health, demo files and 405s around them. */
export function registerRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  registerMetadata(app, deps);
  registerBatchMetadata(app, deps);
  registerBatchSearch(app, deps);
  registerProjectSearch(app, deps);
  registerMcp(app, deps);
}
