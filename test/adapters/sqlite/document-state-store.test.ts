import { createSqliteDocumentStateStore } from '../../../src/adapters/sqlite/document-state-store.js';
import { documentStateStoreContract } from '../../contract/document-state-store.contract.js';
import { sqliteBackend } from '../../contract/store-backends.js';

documentStateStoreContract(
  'SQLite document state store',
  sqliteBackend((db) => createSqliteDocumentStateStore({ db })),
);
