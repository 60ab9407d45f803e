import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { projectKey, type ProjectRef } from '../src/domain/project-ref.js';
import { exportMappingFor, REGISTRY_EXPORTS, type ExportRow, type RegistryExportMapping } from '../src/domain/registry-exports/index.js';
import { cell } from '../src/domain/registry-exports/common.js';
import type { Logger } from '../src/logger.js';
import type { ProjectRecordInput, RecordFormat, RecordStore } from '../src/ports/record-store.js';

/**
 * `npm run ingest -- --export <registry> <csv>`: a registry's project export as a source of records. Each row is
 * stored as-is (format `csv:<source>`, raw = the row object with the file's own headers) under the numeric id its
 * mapping derives (docs/registry-exports.md); the cleaned record is derived from it on read (deriveFromExport).
 * Idempotent like every record import. A project the store already holds as a registry JSON record (richer:
 * documents, attributes) is not replaced by its export row unless `replaceRegistryRecords` is set.
 */

export interface ImportExportOptions {
  logger?: Logger;
  /** Replace projects held as `registry-json` records too. @default false */
  replaceRegistryRecords?: boolean;
  /** @default 500 */
  batchSize?: number;
}

export interface ImportExportResult {
  registry: string;
  format: RecordFormat;
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  /** Rows not imported: no usable id, or the id seen earlier in the file. */
  failed: { source: string; error: string }[];
  /** Projects kept as the registry JSON record the store already held. */
  keptRegistryRecords: number[];
}

export function listExportSources(): string {
  return REGISTRY_EXPORTS.map((m) => `${m.source} (${m.registry})`).join(', ');
}

async function* readRows(file: string, mapping: RegistryExportMapping): AsyncGenerator<{ source: string; row: ExportRow }> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error('not a file');
  } catch (err) {
    throw new Error(`export file not readable: ${file} (${(err as Error).message})`);
  }
  const parser = createReadStream(file).pipe(
    parse({
      bom: true,
      columns: (header: string[]) => {
        const trimmed = header.map((h) => h.trim());
        const missing = mapping.requiredColumns.filter((c) => !trimmed.includes(c));
        if (missing.length > 0) {
          throw new Error(
            `${file}: not a ${mapping.registry} projects export; missing column(s) ${missing.join(', ')} ` +
              `(got: ${trimmed.slice(0, 12).join(', ')}${trimmed.length > 12 ? ', ...' : ''})`,
          );
        }
        return header;
      },
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
    }),
  );
  try {
    for await (const rec of parser as AsyncIterable<{ record: ExportRow; info: { lines: number } }>) {
      yield { source: `${file}:${rec.info.lines}`, row: rec.record };
    }
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(message.startsWith(file) ? message : `${file}: unreadable CSV: ${message}`, { cause: err });
  }
}

export async function importRegistryExport(
  store: RecordStore,
  registryName: string,
  file: string,
  opts: ImportExportOptions = {},
): Promise<ImportExportResult> {
  const mapping = exportMappingFor(registryName);
  if (!mapping) {
    throw new Error(`no export mapping for registry ${JSON.stringify(registryName)}; known: ${listExportSources()}`);
  }
  const batchSize = opts.batchSize ?? 500;
  const format: RecordFormat = `csv:${mapping.source}`;
  const result: ImportExportResult = {
    registry: mapping.registry,
    format,
    rows: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    failed: [],
    keptRegistryRecords: [],
  };
  const seen = new Map<number, string>();
  let batch: ProjectRecordInput[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    let toWrite = batch;
    if (!opts.replaceRegistryRecords) {
      const existing = await store.getMany(batch.map((b) => b.ref));
      toWrite = batch.filter((b) => {
        const held = existing.get(projectKey(b.ref));
        if (held && held.format === 'registry-json') {
          result.keptRegistryRecords.push(b.ref.projectId);
          return false;
        }
        return true;
      });
    }
    if (toWrite.length > 0) {
      const r = await store.upsert(toWrite);
      result.inserted += r.inserted;
      result.updated += r.updated;
      result.unchanged += r.unchanged;
    }
    batch = [];
  };

  for await (const { source, row } of readRows(file, mapping)) {
    result.rows++;
    const projectId = mapping.projectId(row);
    if (projectId === null) {
      const error = `${mapping.idColumn} ${JSON.stringify(cell(row, mapping.idColumn))} gives no numeric project id`;
      result.failed.push({ source, error });
      opts.logger?.warn({ source }, `export row not imported: ${error}`);
      continue;
    }
    const earlier = seen.get(projectId);
    if (earlier !== undefined) {
      const error = `project ${projectId} already imported from ${earlier}; duplicate row skipped`;
      result.failed.push({ source, error });
      opts.logger?.warn({ source }, error);
      continue;
    }
    seen.set(projectId, source);
    const ref: ProjectRef = { registry: mapping.registry, projectId };
    batch.push({ ref, format, raw: { ...row } });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  opts.logger?.info(
    {
      file,
      registry: mapping.registry,
      rows: result.rows,
      inserted: result.inserted,
      updated: result.updated,
      unchanged: result.unchanged,
      failed: result.failed.length,
      keptRegistryRecords: result.keptRegistryRecords.length,
    },
    'registry export imported',
  );
  return result;
}
