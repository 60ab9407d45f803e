import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import type { Logger } from '../src/logger.js';
import type { CountryLookup } from '../src/ports/country-lookup.js';
import type { Downloader } from '../src/ports/downloader.js';
import type { Summarizer } from '../src/ports/summarizer.js';
import { runIngest, type IngestSummary } from './pipeline.js';
import { importRecords, readRecordFiles } from './records.js';
import { createEnrichHook } from './stages/enrich.js';
import { createPdfExtractor, type ExtractLimits } from './stages/extract.js';
import type { IngestDeps } from './types.js';

/**
 * The API's one way into the worker (DEMO_DATA): the demo records and their documents, so a newcomer's first search
 * has something to cite.
 */

/** The API's stores and models: the demo indexing writes where the API reads. */
export interface DemoDeps extends IngestDeps {
  summarizer: Summarizer;
  countries: CountryLookup;
}

export interface SeedDemoOptions {
  /** The address this server is reached at; `{BASE}` in the demo records' document uris becomes it. */
  baseUrl: string;
  /** The repository's demo folder: records.jsonl and documents/. */
  demoDir: string;
  /**
   * Fetches the documents the demo folder does not hold, built by the composition root (src/main.ts) with this
   * server's own address allowed.
   */
  downloader: Downloader;
  /** Limits of the extractor the indexing starts, and closes when it is done. @default DEFAULT_EXTRACT_LIMITS */
  extractLimits?: Partial<ExtractLimits>;
  /** Embed each chunk's sentences too (config SENTENCE_VECTORS). @default false */
  sentenceVectors?: boolean;
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
  const projects = await loadDemoRecords(deps, opts, logger);
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
async function loadDemoRecords(deps: DemoDeps, { baseUrl, demoDir }: SeedDemoOptions, logger: Logger): Promise<ProjectRef[]> {
  const file = path.join(demoDir, 'records.jsonl');
  if (!existsSync(file)) {
    logger.warn({ file }, 'DEMO_DATA is on but the demo records file is missing; starting without demo data');
    return [];
  }
  const { records } = deps;
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
 * demo folder, other links fetched by the downloader the root built. The extractor lives as long as this run.
 */
async function indexDemoDocuments(deps: DemoDeps, projects: ProjectRef[], opts: SeedDemoOptions): Promise<void> {
  const { baseUrl, logger, signal } = opts;
  const extractor = createPdfExtractor(opts.extractLimits);
  let summary: IngestSummary;
  try {
    summary = await runIngest({
      deps,
      projects,
      logger,
      sentenceVectors: opts.sentenceVectors ?? false,
      downloader: demoFilesFirst(`${baseUrl}/demo/documents/`, opts.demoDir, opts.downloader),
      extractor,
      afterProject: createEnrichHook({ summarizer: deps.summarizer, countries: deps.countries, signal }),
      signal,
    });
  } finally {
    await extractor.close();
  }
  // Logged once the extraction processes are gone too: readiness follows this line at once.
  logger.info({ documents: summary.documents }, 'demo documents indexed');
}

/**
 * Reads the demo documents (uris under `prefix`) from disk rather than from this server, which wants a key for them
 * when API_KEYS is set; the bytes and hash are those the URL serves, so a later worker run finds them unchanged.
 * Other uris go to `downloader`.
 */
export function demoFilesFirst(prefix: string, demoDir: string, downloader: Downloader): Downloader {
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
