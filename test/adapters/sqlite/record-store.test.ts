import { createSqliteRecordStore } from '../../../src/adapters/sqlite/record-store.js';
import { recordStoreContract } from '../../contract/record-store.contract.js';
import { sqliteBackend } from '../../contract/store-backends.js';

recordStoreContract(
  'SQLite record store',
  sqliteBackend((db) => createSqliteRecordStore({ db })),
);
