import { createPgDocumentStateStore } from '../../../src/adapters/postgres/document-state-store.js';
import { documentStateStoreContract } from '../../contract/document-state-store.contract.js';
import { pgAvailability, pgBackend } from '../../contract/store-backends.js';
import { describeWithService } from '../../support/services.js';

describeWithService('PostgreSQL document state store', pgAvailability, () => {
  documentStateStoreContract(
    'contract',
    pgBackend((pool) => createPgDocumentStateStore({ pool })),
  );
});
