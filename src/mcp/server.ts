import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import { callTool, describeTool, type McpTool } from './tool.js';
import { askTool } from './tools/ask.js';
import { fetchTool } from './tools/fetch.js';
import { getProjectTool } from './tools/get-project.js';
import { searchProjectsTool } from './tools/search-projects.js';
import { searchTool } from './tools/search.js';
import type { McpDeps } from './types.js';

export const MCP_SERVER_NAME = 'carbon-docs';

/** The service's version (package.json), announced to clients. */
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const INSTRUCTIONS =
  'Carbon-credit projects held by registries (Verra first) and their documents. Find projects with search_projects, ' +
  'read one with get_project, and ask questions of their documents with ask (answers cite document, page and quote). ' +
  'search and fetch search passages across every project.';

/** Every tool, in the order tools/list gives them. */
export function mcpTools(deps: McpDeps): McpTool[] {
  return [searchProjectsTool(deps), getProjectTool(deps), askTool(deps), searchTool(deps), fetchTool(deps)];
}

/** The tools and their tools/list entries, built once: generating the JSON Schemas takes milliseconds. */
export interface McpToolset {
  byName: ReadonlyMap<string, McpTool>;
  listed: readonly Tool[];
}

export function createMcpToolset(deps: McpDeps): McpToolset {
  const tools = mcpTools(deps);
  return { byName: new Map(tools.map((t) => [t.name, t])), listed: tools.map(describeTool) };
}

/**
 * An MCP server over the tools: the SDK's low-level Server with tools/list and tools/call, so that arguments are
 * validated by the HTTP routes' own zod schemas and a bad one is answered with the HTTP API's message (the SDK's
 * McpServer would validate first and answer with its own). Not bound to a transport: stdio (src/mcp/main.ts) connects
 * one for the process, Streamable HTTP (src/http/routes/mcp.ts) one per request. `logger` gets unexpected failures.
 */
export function createMcpServer(toolset: McpToolset, logger: Logger): Server {
  const { byName, listed } = toolset;
  const server = new Server({ name: MCP_SERVER_NAME, version: VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  // A message the transport cannot read (a line that is not JSON-RPC) is logged and skipped; the session goes on.
  server.onerror = (err) => logger.warn({ err }, 'MCP protocol error');
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...listed] }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(request.params.name)}; tools: ${[...byName.keys()].join(', ')}`,
      );
    }
    return callTool(tool, request.params.arguments, { signal: extra.signal }, logger);
  });
  return server;
}
