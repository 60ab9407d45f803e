import type { ProjectRef } from '../domain/project-ref.js';

/** Who holds a document, and until when (ms since the epoch). */
export interface LeaseHolder {
  holder: string;
  expiresAt: number;
}

/**
 * Leases on documents for concurrent embedded ingests on one DATA_DIR (`npm run ingest` twice): a document is
 * processed by the run that holds its lease, and another run leaves it alone. A lease lapses at its expiry unless
 * renewed, so a run that died (SIGKILL) holds nothing for long.
 */
export interface DocumentLeases {
  /** Takes the document for `holder` for `ttlMs`, unless another holder's lease on it has not expired: then its holder. */
  claim(ref: ProjectRef, documentId: string, holder: string, ttlMs: number): Promise<{ taken: true } | ({ taken: false } & LeaseHolder)>;
  /** Takes the document from `from` (a holder known to be gone) for `holder`; false when `from` no longer holds it. */
  takeOver(ref: ProjectRef, documentId: string, from: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Extends every lease `holder` has by `ttlMs` from now. */
  renew(holder: string, ttlMs: number): Promise<void>;
  /** Gives the document up (only `holder`'s own lease). */
  release(ref: ProjectRef, documentId: string, holder: string): Promise<void>;
  close(): Promise<void>;
}
