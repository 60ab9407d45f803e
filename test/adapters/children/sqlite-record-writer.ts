/**
 * A second process for the cross-process test: opens DATA_DIR itself and writes records into it while the test
 * process holds its own store open on the same file. Usage:
 *   import <dataDir> <records file>          -> importRecords (as `npm run ingest -- --records` does)
 *   upsert <dataDir> <firstId> <count>       -> upserts Verra records firstId.. in batches of 10
 * Prints one JSON line with the result; exits 1 with the error on stderr.
 */
import { openSqlite } from '../../../src/adapters/sqlite/database.js';
import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { importRecords } from '../../../ingest/records.js';

const [mode, dataDir, a, b] = process.argv.slice(2);
if (dataDir === undefined || a === undefined) throw new Error('usage: import|upsert <dataDir> ...');
const db = openSqlite({ dataDir });
const store = await createSqliteRecordStore({ db });
try {
  if (mode === 'import') {
    const result = await importRecords(store, a, { replaceBase: 'http://127.0.0.1:9' });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else if (mode === 'upsert') {
    const first = Number(a);
    const count = Number(b);
    const totals = { inserted: 0, updated: 0, unchanged: 0 };
    for (let start = first; start < first + count; start += 10) {
      const ids = Array.from({ length: Math.min(10, first + count - start) }, (_, i) => start + i);
      const r = await store.upsert(
        ids.map((id) => ({
          ref: { registry: 'Verra', projectId: id },
          format: 'registry-json' as const,
          raw: { registry: 'Verra', resourceIdentifier: String(id), resourceName: `Project ${id}` },
        })),
      );
      totals.inserted += r.inserted;
      totals.updated += r.updated;
      totals.unchanged += r.unchanged;
      // Give the other process a chance to take the write lock between batches, as a real ingest would.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    process.stdout.write(`${JSON.stringify(totals)}\n`);
  } else {
    throw new Error(`unknown mode ${String(mode)}`);
  }
} finally {
  await store.close();
  db.close();
}
