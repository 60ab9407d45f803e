import { describe, expect, it } from 'vitest';
import { indexedContext } from '../../../src/adapters/full-text/chunk-context.js';

describe('indexedContext', () => {
  it('indexes the title without its extension or underscores, the type, and the chunk context, one a line', () => {
    expect(indexedContext('CDM_GFL-HFC23_registration_request_form.pdf', 'Registration Request', '2.1 Baseline')).toBe(
      'CDM GFL-HFC23 registration request form\nRegistration Request\n2.1 Baseline',
    );
  });

  it('leaves out a generic type and empty parts', () => {
    expect(indexedContext('Monitoring Report.docx', ' other ', undefined)).toBe('Monitoring Report');
    expect(indexedContext('', 'Unknown', '  ')).toBe('');
  });
});
