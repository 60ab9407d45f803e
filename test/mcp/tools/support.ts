import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createCountryLookup } from '../../../src/adapters/geo/country-lookup.js';
import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import { documentIdFor } from '../../../src/domain/chunking.js';
import type { ProjectRef } from '../../../src/domain/project-ref.js';
import { createLogger } from '../../../src/logger.js';
import { callTool, type McpTool } from '../../../src/mcp/tool.js';
import type { McpDeps } from '../../../src/mcp/types.js';
import type { DocumentTextStore } from '../../../src/ports/document-text-store.js';
import { createDiscoveryService } from '../../../src/services/discovery.js';
import { createMetadataService } from '../../../src/services/metadata.js';
import { createPassageService } from '../../../src/services/passages.js';
import { createSearchService } from '../../../src/services/search.js';
import { createSearchFixture, searchOptions, type SearchFixture } from '../../services/support/fixtures.js';

const logger = createLogger({ level: 'silent', name: 'mcp-tool-test' });

export const CONFIG: McpDeps['config'] = { MAX_BATCH_PROJECTS: 5, SEARCH_MAX_TOP_K: 20, SEARCH_DEFAULT_TOP_K: 4 };

/** Verra 1650's project description, two pages, indexed under the id its address gives (as the ingest does). */
export const REF: ProjectRef = { registry: 'Verra', projectId: 1650 };
export const PAGES = [
  'The project distributes efficient cookstoves to rural households in Malawi.',
  'The crediting period is ten years, from 1 March 2018 to 28 February 2028.',
];
export const URI = 'https://docs.example.org/1650/pd.pdf';

export interface ToolFixture {
  deps: McpDeps;
  close(): Promise<void>;
}

/** The MCP tools' services over real SQLite stores holding one project and its indexed document. */
export async function createToolFixture(): Promise<ToolFixture> {
  const f: SearchFixture = await createSearchFixture();
  const texts: DocumentTextStore = await createSqliteDocumentTextStore({ db: f.db });
  await f.addRecord(REF);
  await f.addDocument(REF, 'pd', PAGES);
  const state = await f.states.get(REF, 'pd');
  if (state === null) throw new Error('fixture document missing');
  await f.states.put({ ...state, documentId: documentIdFor(URI), uri: URI, title: 'PD.pdf' });
  await f.states.removeOthers(REF, [documentIdFor(URI)]);
  await texts.put(REF, documentIdFor(URI), PAGES);
  const search = createSearchService(searchOptions(f));
  return {
    deps: {
      config: CONFIG,
      metadata: createMetadataService({ records: f.records, countries: createCountryLookup() }),
      search,
      discovery: createDiscoveryService({ records: f.records, documents: f.states }),
      passages: createPassageService({ search, documents: f.states, texts }),
    },
    async close() {
      await texts.close();
      await f.close();
    },
  };
}

/** Calls a tool as the MCP server does: arguments checked against its input schema, errors as error results. */
export function call(tool: McpTool, args: unknown): Promise<CallToolResult> {
  return callTool(tool, args, { signal: new AbortController().signal }, logger);
}

export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}
