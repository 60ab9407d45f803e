import { createSqliteDocumentTextStore } from '../../../src/adapters/sqlite/document-text-store.js';
import { documentTextStoreContract } from '../../contract/document-text-store.contract.js';
import { sqliteBackend } from '../../contract/store-backends.js';

documentTextStoreContract(
  'SQLite document text store',
  sqliteBackend((db) => createSqliteDocumentTextStore({ db })),
);
