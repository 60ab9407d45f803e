/**
 * An HTTP Retry-After value as milliseconds to wait: delta-seconds ("120", fractional accepted) or an HTTP date
 * (past dates give 0); null when absent, empty or unreadable. Shared by the document downloader and the registry
 * clients.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value === null || value === undefined || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
