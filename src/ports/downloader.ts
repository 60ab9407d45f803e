/**
 * Fetches a document's bytes for the worker's download stage. The HTTP adapter (src/adapters/download/) enforces
 * the allow-list, size and time limits; the API's demo seeding wraps one to read its own files from disk.
 */

export interface DownloadedContent {
  bytes: Buffer;
  contentType: string | null;
  /** sha256 of the bytes, hex. */
  contentHash: string;
  /** After redirects. */
  finalUrl: string;
}

export interface Downloader {
  /** The document's bytes, or throws DownloadError with a reason fit for the document's state. */
  download(uri: string, signal?: AbortSignal): Promise<DownloadedContent>;
  /** Waits for downloads in flight to finish. */
  onIdle(): Promise<void>;
}

/**
 * What kind of failure a download was, as a bounded label for metrics (the message names URLs and sizes):
 * `http_<status>`, `timeout`, `network`, `too_large`, `refused` (URL policy), `redirect`, `not_pdf`, `other`.
 */
export type DownloadFailureKind = `http_${number}` | 'timeout' | 'network' | 'too_large' | 'refused' | 'redirect' | 'not_pdf' | 'other';

/** A failed download, saying whether trying again can help and how long the server asked us to wait. */
export class DownloadError extends Error {
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  /** `skipped`: the URI names something that is not a PDF (recorded, not an error). */
  readonly outcome: 'failed' | 'skipped';
  readonly kind: DownloadFailureKind;
  constructor(
    message: string,
    opts: { kind?: DownloadFailureKind; retryable?: boolean; retryAfterMs?: number | null; outcome?: 'failed' | 'skipped' } = {},
  ) {
    super(message);
    this.name = 'DownloadError';
    this.kind = opts.kind ?? 'other';
    this.retryable = opts.retryable ?? false;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.outcome = opts.outcome ?? 'failed';
  }
}
