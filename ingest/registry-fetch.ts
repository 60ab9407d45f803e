import type { Logger } from '../src/logger.js';
import type { RecordStore } from '../src/ports/record-store.js';
import { RegistryError, type RegistryClient } from '../src/ports/registry-client.js';

/**
 * `npm run ingest -- --registry Verra --ids 4086,5533`: fetches raw records live from the registry's API and
 * upserts them (format `registry-json`), idempotently. Per-id outcomes are reported: stored, not found at the
 * registry, or failed with the client's message (HTML instead of JSON, retries exhausted...); one bad id never
 * stops the others. Documents are indexed afterwards by the usual pipeline (`--projects Verra:4086,...`).
 */

export interface FetchRecordsResult {
  registry: string;
  inserted: number;
  updated: number;
  unchanged: number;
  notFound: number[];
  failed: { projectId: number; error: string; retryable: boolean }[];
}

/** "4086,5533 6000" -> [4086, 5533, 6000]; throws naming the bad entry. */
export function parseIdList(value: string): number[] {
  const ids: number[] = [];
  for (const part of value.split(/[,\s]+/).filter((p) => p !== '')) {
    const id = Number(part);
    if (!/^\d+$/.test(part) || !Number.isSafeInteger(id) || id <= 0) {
      throw new Error(`--ids: ${JSON.stringify(part)} is not a positive integer project id`);
    }
    if (!ids.includes(id)) ids.push(id);
  }
  if (ids.length === 0) throw new Error('--ids: empty list');
  return ids;
}

export async function fetchRegistryRecords(
  client: RegistryClient,
  store: RecordStore,
  ids: readonly number[],
  opts: { logger?: Logger; signal?: AbortSignal } = {},
): Promise<FetchRecordsResult> {
  const result: FetchRecordsResult = {
    registry: client.registry,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    notFound: [],
    failed: [],
  };
  // The client queues and rate-limits its own requests, so asking for all ids at once is safe.
  await Promise.all(
    ids.map(async (projectId) => {
      try {
        const record = await client.fetchProject(projectId, opts.signal);
        if (record === null) {
          result.notFound.push(projectId);
          opts.logger?.warn({ registry: client.registry, projectId }, 'project not found at the registry');
          return;
        }
        const r = await store.upsert([{ ref: { registry: client.registry, projectId }, format: 'registry-json', raw: record }]);
        result.inserted += r.inserted;
        result.updated += r.updated;
        result.unchanged += r.unchanged;
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        // Store failures are fatal for the run (the caller reports them); registry failures are per id.
        if (!(err instanceof RegistryError) && !(err instanceof RangeError)) throw err;
        const retryable = err instanceof RegistryError && err.retryable;
        result.failed.push({ projectId, error: err.message, retryable });
        opts.logger?.error({ registry: client.registry, projectId, retryable }, err.message);
      }
    }),
  );
  result.notFound.sort((a, b) => a - b);
  result.failed.sort((a, b) => a.projectId - b.projectId);
  opts.logger?.info(
    {
      registry: client.registry,
      inserted: result.inserted,
      updated: result.updated,
      unchanged: result.unchanged,
      notFound: result.notFound.length,
      failed: result.failed.length,
    },
    'registry records fetched',
  );
  return result;
}
