import { createPgDocumentTextStore } from '../../../src/adapters/postgres/document-text-store.js';
import { documentTextStoreContract } from '../../contract/document-text-store.contract.js';
import { pgAvailability, pgBackend } from '../../contract/store-backends.js';
import { describeWithService } from '../../support/services.js';

describeWithService('PostgreSQL document text store', pgAvailability, () => {
  documentTextStoreContract(
    'contract',
    pgBackend((pool) => createPgDocumentTextStore({ pool })),
  );
});
