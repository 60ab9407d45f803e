import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { defined } from '../../defined.js';
import { createMcpServer, createMcpToolset } from '../../mcp/server.js';
import { jsonBody } from '../middleware/json-body.js';
import type { AppEnv } from '../env.js';
import type { AppDeps } from '../types.js';

/** The MCP tools over Streamable HTTP (docs/mcp.md). */
export const MCP_PATH = '/mcp';

/**
 * POST /mcp: the MCP server of src/mcp over Streamable HTTP, in stateless mode: each request gets its own server and
 * transport (over tools built once) and no session is kept, so any API process (behind any balancer) answers any call,
 * and a restart loses nothing. Responses are plain JSON (no event stream): the tools send no progress notifications.
 * Behind the same API-key check and rate limit as every other path; GET and DELETE (sessions' streams and ends) are
 * 405.
 */
export function registerMcp(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const { config } = deps;
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: MCP_PATH,
    operationId: 'mcp',
    summary: 'MCP tools over Streamable HTTP (stateless)',
    description:
      'Model Context Protocol JSON-RPC messages: tools search_projects, get_project, ask, search and fetch (docs/mcp.md). ' +
      'Send `Accept: application/json, text/event-stream`. Tool errors are results with `isError: true`.',
    responses: {
      200: { description: 'A JSON-RPC response.', content: { 'application/json': { schema: { type: 'object' } } } },
      202: { description: 'A notification, accepted.' },
    },
  });
  const toolset = createMcpToolset({
    config,
    metadata: deps.metadata,
    ...defined({ search: deps.search, discovery: deps.discovery, passages: deps.passages }),
  });
  const [contentType, readBody] = jsonBody({ maxBytes: config.MAX_BODY_BYTES });
  if (!contentType || !readBody) throw new Error('jsonBody: expected its two guards');
  app.post(MCP_PATH, contentType, readBody, async (c) => {
    const server = createMcpServer(toolset, c.get('logger'));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: c.get('jsonBody') });
    } finally {
      await server.close();
    }
  });
}
