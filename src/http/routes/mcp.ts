import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { defined } from '../../defined.js';
import { createMcpServer, createMcpToolset } from '../../mcp/server.js';
import { jsonBody } from '../middleware/json-body.js';
import { standardErrorResponses } from '../schemas/error.js';
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
  const jsonRpc = { type: 'object' as const, description: 'A JSON-RPC 2.0 message.' };
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: MCP_PATH,
    operationId: 'mcp',
    summary: 'MCP tools over Streamable HTTP (stateless)',
    description:
      'Model Context Protocol JSON-RPC messages: tools search_projects, get_project, ask, search and fetch (docs/mcp.md). ' +
      'Send `Accept: application/json, text/event-stream`. Tool errors are results with `isError: true`.',
    responses: {
      ...standardErrorResponses(config),
      200: { description: 'A JSON-RPC response.', content: { 'application/json': { schema: jsonRpc } } },
      202: { description: 'A notification, accepted.' },
      // The MCP SDK's transport answers these two itself, with a JSON-RPC error rather than the service's error body.
      400: {
        description: 'A body that is not JSON (`invalid_request`), or JSON that is not a JSON-RPC message (JSON-RPC error -32700).',
        content: { 'application/json': { schema: { anyOf: [{ $ref: '#/components/schemas/Error' }, jsonRpc] } } },
      },
      406: {
        description: 'The Accept header does not name both `application/json` and `text/event-stream` (JSON-RPC error -32000).',
        content: { 'application/json': { schema: jsonRpc } },
      },
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
