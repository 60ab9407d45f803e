import { describe, expect, it } from 'vitest';
import { DownloadError } from '../../src/ports/downloader.js';

describe('DownloadError', () => {
  it('is a final failure of kind other unless told otherwise', () => {
    const e = new DownloadError('boom');
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({
      name: 'DownloadError',
      message: 'boom',
      kind: 'other',
      retryable: false,
      retryAfterMs: null,
      outcome: 'failed',
    });
  });

  it('carries what the downloader says about a retry and the outcome', () => {
    const e = new DownloadError('HTTP 503', { kind: 'http_503', retryable: true, retryAfterMs: 2000 });
    expect(e).toMatchObject({ kind: 'http_503', retryable: true, retryAfterMs: 2000, outcome: 'failed' });
    expect(new DownloadError('not a PDF', { kind: 'not_pdf', outcome: 'skipped' }).outcome).toBe('skipped');
  });
});
