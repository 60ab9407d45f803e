import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEnrichCommand, runExportCommand, runTransactionsCommand } from '../../ingest/derived-commands.js';
import { createCountryLookup } from '../../src/adapters/geo/country-lookup.js';
import { openSqlite, type SqliteDatabase } from '../../src/adapters/sqlite/database.js';
import { createSqliteDocumentStateStore } from '../../src/adapters/sqlite/document-state-store.js';
import { createSqliteDocumentTextStore } from '../../src/adapters/sqlite/document-text-store.js';
import { createSqliteRecordStore } from '../../src/adapters/sqlite/record-store.js';
import { createExtractiveSummarizer } from '../../src/adapters/summarizers/extractive.js';
import { deriveCleaned } from '../../src/domain/derive-cleaned.js';
import { createLogger } from '../../src/logger.js';
import type { RecordStore } from '../../src/ports/record-store.js';
import { corpusAvailable, corpusPath } from '../support/corpus.js';
import { describeWithService } from '../support/services.js';

const logger = createLogger({ level: 'silent', name: 'test' });
let db: SqliteDatabase;
let records: RecordStore;
let output = '';
const out = { write: (s: string) => ((output += s), true) };

beforeEach(async () => {
  db = openSqlite({ dataDir: ':memory:' });
  records = await createSqliteRecordStore({ db });
  output = '';
});
afterEach(async () => {
  await records.close();
  db.close();
});

describeWithService('worker commands for derived data', { available: corpusAvailable, why: 'corpus not found' }, () => {
  it('imports the Verra export, then its transactions, then recomputes enrichment, and reports each step', async () => {
    const exp = await runExportCommand(records, 'Verra', corpusPath('registry-exports', 'verra', 'projects.csv'), logger, out);
    expect(exp.inserted).toBe(50);
    expect(output).toMatch(/^Verra export: 50 rows, 50 inserted/m);
    const tx = await runTransactionsCommand(records, corpusPath('registry-exports', 'verra', 'transactions.csv'), logger, out);
    expect(output).toMatch(new RegExp(`transactions \\(verra\\): 200 rows, ${tx.updated} projects updated`));
    expect(tx.updated + tx.unknownProjects.length).toBe(56);
    const states = await createSqliteDocumentStateStore({ db });
    const texts = await createSqliteDocumentTextStore({ db });
    const e = await runEnrichCommand({ records, states, texts }, createExtractiveSummarizer(), createCountryLookup(), logger, {
      projects: [
        { registry: 'Verra', projectId: 5957 },
        { registry: 'Verra', projectId: 1 },
      ],
      out,
    });
    expect(e.enriched).toBe(1);
    expect(e.failed).toEqual([{ project: 'Verra:1', error: 'not in the record store' }]);
    const kenya = await records.get({ registry: 'Verra', projectId: 5957 });
    expect(kenya?.enrichment.emissionsReductionsSource).toBe('estimate');
    if (!kenya) throw new Error('5957 missing');
    const cleaned = deriveCleaned(kenya, { requestedRegistry: 'Verra', countries: createCountryLookup() });
    expect(Object.keys(cleaned.metadata.emissions_reductions)).toHaveLength(21);
    expect(cleaned.metadata.reduction_activity).toEqual(['Agricultural Land Management', 'Agriculture Forestry and Other Land Use']);
    expect(output).toMatch(/enrichment: 1 projects recomputed, 1 failed/);
    await texts.close();
    await states.close();
  });
});

describe('worker commands: errors', () => {
  it('rejects an unknown export registry with the list of known ones', async () => {
    await expect(runExportCommand(records, 'Nowhere', 'x.csv', logger, out)).rejects.toThrow(/known: verra \(Verra\)/);
  });
});
