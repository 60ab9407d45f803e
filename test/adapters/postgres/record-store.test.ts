import { createPgRecordStore } from '../../../src/adapters/postgres/record-store.js';
import { recordStoreContract } from '../../contract/record-store.contract.js';
import { pgAvailability, pgBackend } from '../../contract/store-backends.js';
import { describeWithService } from '../../support/services.js';

describeWithService('PostgreSQL record store', pgAvailability, () => {
  recordStoreContract(
    'contract',
    pgBackend((pool) => createPgRecordStore({ pool })),
  );
});
