import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { IngestDeps } from '../../ingest/types.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { createReranker } from '../../src/adapters/rerankers/index.js';
import { createChatModel, createExtractiveSummarizer, createSummarizer } from '../../src/adapters/summarizers/index.js';
import type { Config } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import type { Logger } from '../../src/logger.js';
import { createMetadataService } from '../../src/services/metadata.js';
import { createSearchService, type SearchServiceOptions } from '../../src/services/search.js';

export interface SearchServer {
  baseUrl: string;
  answerModel: string;
  close(): Promise<void>;
}

/**
 * The real API (createApp with the search service over the given stores) on a real HTTP server on 127.0.0.1:
 * the same composition src/deps.ts makes, for the evaluation and the end-to-end tests.
 */
export async function startSearchServer(
  config: Config,
  deps: Pick<IngestDeps, 'records' | 'states' | 'index' | 'embedder'>,
  logger: Logger,
  tuning: Partial<SearchServiceOptions> = {},
): Promise<SearchServer> {
  const chat = await createChatModel(config, logger);
  const summarizer = await createSummarizer(config, logger, chat);
  const search = createSearchService({
    index: deps.index,
    embedder: deps.embedder,
    documents: deps.states,
    records: deps.records,
    summarizer,
    fallbackSummarizer: createExtractiveSummarizer(),
    reranker: createReranker(config, logger, chat),
    logger,
    defaultTopK: config.SEARCH_DEFAULT_TOP_K,
    maxTopK: config.SEARCH_MAX_TOP_K,
    ...tuning,
  });
  const app = createApp({
    config,
    logger,
    metadata: createMetadataService({ records: deps.records, countries: createCountryLookup() }),
    readiness: [],
    search,
  });
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    answerModel: summarizer.model,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await summarizer.close();
    },
  };
}
