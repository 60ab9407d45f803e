import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { demoDir, type ApiDeps } from '../src/deps.js';
import { projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import type { Logger } from '../src/logger.js';
import { buildDownloader, extractLimitsFromConfig } from './deps.js';
import { runIngest } from './pipeline.js';
import { importRecords, readRecordFiles } from './records.js';
import { createEnrichHook } from './stages/enrich.js';
import type { Downloader } from './types.js';

/**
 * The API's one way into the worker (DEMO_DATA): the demo records and their documents, so a newcomer's first search
 * has something to cite.
 */

export type DemoDeps = Pick<ApiDeps, 'config' | 'stores' | 'embedder' | 'summarizer' | 'countries'>;

export interface SeedDemoOptions {
  /** The address this server is reached at; `{BASE}` in the demo records' document uris becomes it. */
  baseUrl: string;
  logger: Logger;
  /** Stops the background indexing (the API's shutdown), so it does not write into closed stores. */
  signal: AbortSignal;
}

/**
 * Loads the demo records into an empty store, then indexes the demo projects' documents in the background through
 * the worker's real pipeline (the API serves meanwhile; the embedder works off the main thread). Resolves once the
 * records are loaded (rejects when that fails); `indexing` settles when the documents are done, and never rejects:
 * a failure is logged with what to do.
 */
export async function seedDemo(deps: DemoDeps, opts: SeedDemoOptions): Promise<{ indexing: Promise<void> }> {
  const { logger } = opts;
  const projects = await loadDemoRecords(deps, opts.baseUrl, logger);
  const indexing =
    projects.length === 0
      ? Promise.resolve()
      : indexDemoDocuments(deps, projects, opts).catch((err: unknown) => {
          logger.error({ err }, 'indexing the demo documents failed; search has nothing to cite until `npm run ingest -- --all`');
        });
  return { indexing };
}

/**
 * Loads the demo records into an empty store, with `{BASE}` in document uris pointing at this server. Returns the
 * demo projects the store holds (just loaded, or from an earlier start), so their documents get indexed: a start
 * interrupted before indexing finished is completed by the next one, and unchanged documents are skipped.
 */
async function loadDemoRecords(deps: DemoDeps, baseUrl: string, logger: Logger): Promise<ProjectRef[]> {
  const file = path.join(demoDir, 'records.jsonl');
  if (!existsSync(file)) {
    logger.warn({ file }, 'DEMO_DATA is on but the demo records file is missing; starting without demo data');
    return [];
  }
  const { records } = deps.stores;
  if ((await records.count()) === 0) {
    const result = await importRecords(records, file, { replaceBase: baseUrl, logger });
    logger.info({ inserted: result.inserted, failed: result.failed.length, baseUrl }, 'demo data loaded');
  } else {
    logger.info('record store is not empty; demo data not loaded');
  }
  const demoRefs: ProjectRef[] = [];
  for await (const item of readRecordFiles(file)) if (item.record) demoRefs.push(item.record.ref);
  const held = await records.getMany(demoRefs);
  return demoRefs.filter((ref) => held.has(projectKey(ref)));
}

/**
 * Indexes the demo projects' documents: the PDFs behind this server's own /demo/documents/ links are read from the
 * demo folder, other links downloaded (this server's address allowed explicitly, as an operator would with
 * DOWNLOAD_ALLOW_HOSTS).
 */
async function indexDemoDocuments(deps: DemoDeps, projects: ProjectRef[], opts: SeedDemoOptions): Promise<void> {
  const { config } = deps;
  const { baseUrl, logger, signal } = opts;
  const self = new URL(baseUrl);
  const summary = await runIngest({
    deps: { ...deps.stores, embedder: deps.embedder, countries: deps.countries },
    projects,
    logger,
    sentenceVectors: config.SENTENCE_VECTORS,
    downloader: demoFilesFirst(`${baseUrl}/demo/documents/`, buildDownloader(config, [self.host, `127.0.0.1:${self.port || '80'}`])),
    extractLimits: extractLimitsFromConfig(config),
    afterProject: createEnrichHook({ summarizer: deps.summarizer, countries: deps.countries, signal }),
    signal,
  });
  logger.info({ documents: summary.documents }, 'demo documents indexed');
}

/**
 * Reads the demo documents (uris under `prefix`) from disk rather than from this server, which wants a key for them
 * when API_KEYS is set; the bytes and hash are those the URL serves, so a later worker run finds them unchanged.
 * Other uris go to `downloader`.
 */
function demoFilesFirst(prefix: string, downloader: Downloader): Downloader {
  return {
    async download(uri, signal) {
      const name = uri.startsWith(prefix) ? uri.slice(prefix.length) : '';
      if (/^[A-Za-z0-9][A-Za-z0-9._-]*\.pdf$/.test(name)) {
        try {
          const bytes = await readFile(path.join(demoDir, 'documents', name));
          return { bytes, contentType: 'application/pdf', contentHash: createHash('sha256').update(bytes).digest('hex'), finalUrl: uri };
        } catch {
          // not a demo file after all: fetched like any other
        }
      }
      return downloader.download(uri, signal);
    },
    onIdle: () => downloader.onIdle(),
  };
}
