import { createHash } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import PQueue from 'p-queue';
import { parseRetryAfter } from '../../domain/retry-after.js';
import { isRetryableStatus, RETRYABLE_NET_CODES, retryPolicy, withRetry, type RetryPolicy } from '../../http-retry.js';
import { DownloadError, type DownloadedContent, type Downloader } from '../../ports/downloader.js';
import { checkAddress, checkUrl, type HostRule, type UrlPolicy } from './url-policy.js';

/**
 * Downloads documents from outside URIs, defensively: http(s) to allow-listed hosts only, every resolved address
 * and every redirect hop checked, a size cap enforced while streaming, bounded total and per-host concurrency,
 * and retries (src/http-retry.ts) only where a retry can help.
 */

/** Retries: @default retries 3, retryBaseDelayMs 1000, retryMaxDelayMs 60000, maxRetryAfterMs 60000 */
export interface DownloaderOptions extends Partial<RetryPolicy> {
  policy: UrlPolicy;
  /** @default 52428800 (50 MB) */
  maxBytes?: number;
  /** Downloads in flight over all hosts. @default 4 */
  concurrency?: number;
  /** Downloads in flight per host, to stay polite to a registry. @default 2 */
  perHostConcurrency?: number;
  /** Per attempt, from request to last byte. @default 60000 */
  timeoutMs?: number;
  /** @default 5 */
  maxRedirects?: number;
  /** Name resolution; tests inject one to simulate a host resolving to a private address. @default dns.lookup */
  lookup?: typeof dnsLookup;
  /** @default carbon-docs-ingest/0.1 */
  userAgent?: string;
  /** Called before each wait between attempts (for logging). */
  onRetry?: (info: { uri: string; attempt: number; delayMs: number; reason: string }) => void;
}

/** The options with their defaults applied and checked: what one attempt needs. */
interface Settings {
  policy: UrlPolicy;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  lookup: typeof dnsLookup;
  userAgent: string;
}

/** Creates a downloader; options are checked here once. */
export function createHttpDownloader(opts: DownloaderOptions): Downloader {
  const settings: Settings = {
    policy: opts.policy,
    maxBytes: opts.maxBytes ?? 50 * 1024 * 1024,
    timeoutMs: opts.timeoutMs ?? 60_000,
    maxRedirects: opts.maxRedirects ?? 5,
    lookup: opts.lookup ?? dnsLookup,
    userAgent: opts.userAgent ?? 'carbon-docs-ingest/0.1',
  };
  const concurrency = opts.concurrency ?? 4;
  const perHost = opts.perHostConcurrency ?? 2;
  for (const [name, v, min] of [
    ['maxBytes', settings.maxBytes, 1],
    ['concurrency', concurrency, 1],
    ['perHostConcurrency', perHost, 1],
    ['timeoutMs', settings.timeoutMs, 1],
    ['maxRedirects', settings.maxRedirects, 0],
  ] as const) {
    if (!Number.isInteger(v) || v < min) throw new RangeError(`downloader ${name} must be an integer >= ${min}, got ${v}`);
  }
  const retry = retryPolicy(opts, { retries: 3, retryBaseDelayMs: 1000, retryMaxDelayMs: 60_000, maxRetryAfterMs: 60_000 }, 'downloader');
  const queues = new HostQueues(concurrency, perHost);

  return {
    async download(uri, signal) {
      const first = checkUrl(settings.policy, uri);
      if (!first.ok) throw new DownloadError(first.reason, { kind: 'refused' });
      const host = first.url.host;
      try {
        return await withRetry(() => queues.run(host, () => attemptDownload(settings, uri, signal)), retry, {
          signal,
          classify: (err) =>
            err instanceof DownloadError
              ? { retryable: err.retryable, retryAfterMs: err.retryAfterMs }
              : { retryable: false, retryAfterMs: null },
          onRetry: ({ attempt, delayMs, error }) => opts.onRetry?.({ uri, attempt, delayMs, reason: error.message }),
          retryAfterTooLong: (error, retryAfterMs) =>
            new DownloadError(
              `${error.message}; the server asked to retry after ${Math.round(retryAfterMs / 1000)} s, longer than the downloader waits`,
              { kind: error instanceof DownloadError ? error.kind : 'other' },
            ),
        });
      } catch (err) {
        if (!(err instanceof DownloadError)) throw new DownloadError(describeNetError(err).message, { kind: 'network' });
        if (err.retryable && retry.retries > 0) {
          // Still retryable: the queue worker tries the document again later, with its own back-off.
          throw new DownloadError(`${err.message} (after ${retry.retries + 1} attempts)`, {
            kind: err.kind,
            outcome: err.outcome,
            retryable: true,
          });
        }
        throw err;
      }
    },
    onIdle: () => queues.onIdle(),
  };
}

/** Bounds downloads in flight over all hosts and per host. */
class HostQueues {
  readonly #total: PQueue;
  readonly #hosts = new Map<string, PQueue>();
  readonly #perHost: number;

  constructor(concurrency: number, perHost: number) {
    this.#total = new PQueue({ concurrency });
    this.#perHost = perHost;
  }

  run<T>(host: string, task: () => Promise<T>): Promise<T> {
    let q = this.#hosts.get(host);
    if (!q) {
      q = new PQueue({ concurrency: this.#perHost });
      this.#hosts.set(host, q);
    }
    return q.add(() => this.#total.add(task, { throwOnTimeout: true }), { throwOnTimeout: true });
  }

  async onIdle(): Promise<void> {
    await Promise.all([this.#total.onIdle(), ...[...this.#hosts.values()].map((q) => q.onIdle())]);
  }
}

/** One attempt: follows redirects, re-checking every hop, under the per-attempt time limit. */
async function attemptDownload(s: Settings, uri: string, outer: AbortSignal | undefined): Promise<DownloadedContent> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DownloadError(`timed out after ${s.timeoutMs} ms`, { kind: 'timeout', retryable: true })),
    s.timeoutMs,
  );
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  try {
    let current = uri;
    for (let hop = 0; ; hop++) {
      const decision = checkUrl(s.policy, current);
      if (!decision.ok)
        throw new DownloadError(hop === 0 ? decision.reason : `redirect to ${current} refused: ${decision.reason}`, { kind: 'refused' });
      let res: IncomingMessage;
      try {
        res = await get(s, decision.url, decision.rule, controller.signal);
      } catch (err) {
        throw toDownloadError(err, controller.signal);
      }
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && status !== 304) {
        res.resume();
        const location = res.headers.location;
        if (!location) throw new DownloadError(`HTTP ${status} redirect without a Location header`, { kind: 'redirect' });
        if (hop >= s.maxRedirects) throw new DownloadError(`more than ${s.maxRedirects} redirects`, { kind: 'redirect' });
        current = new URL(location, decision.url).href;
        continue;
      }
      if (status !== 200) {
        res.resume();
        const retryable = isRetryableStatus(status);
        throw new DownloadError(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`, {
          kind: `http_${status}`,
          retryable,
          retryAfterMs: retryable ? parseRetryAfter(res.headers['retry-after']) : null,
        });
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > s.maxBytes) {
        res.destroy();
        throw new DownloadError(`document is ${declared} bytes, over the ${s.maxBytes}-byte limit (DOWNLOAD_MAX_BYTES)`, {
          kind: 'too_large',
        });
      }
      let bytes: Buffer;
      try {
        bytes = await readBody(res, current, s.maxBytes);
      } catch (err) {
        throw toDownloadError(err, controller.signal);
      }
      const contentHash = createHash('sha256').update(bytes).digest('hex');
      return { bytes, contentType: res.headers['content-type'] ?? null, contentHash, finalUrl: current };
    }
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

/** One GET of one URL (no redirect following); resolves with the response once headers arrive. */
function get(s: Settings, url: URL, rule: HostRule, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'GET',
      headers: { 'user-agent': s.userAgent, accept: 'application/pdf, */*;q=0.5' },
      lookup: guardedLookup(rule, s.lookup),
      signal,
      // A fresh connection per request: a pooled socket could have been opened to an address checked earlier.
      agent: false,
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

/** dns.lookup wrapped so a connection can only be made to an address the rule accepts (defeats DNS rebinding). */
function guardedLookup(rule: HostRule, lookup: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const list = (Array.isArray(addresses) ? addresses : []) as LookupAddress[];
      if (list.length === 0) {
        callback(Object.assign(new Error(`${hostname} resolved to no address`), { code: 'ENOTFOUND' }), '', 0);
        return;
      }
      // Every address must pass: the socket may try any of them (happy eyeballs).
      for (const a of list) {
        const verdict = checkAddress(rule, a.address);
        if (!verdict.ok) {
          callback(Object.assign(new Error(verdict.reason), { code: 'EADDRREFUSED_POLICY' }), '', 0);
          return;
        }
      }
      if (options.all) callback(null, list);
      else {
        const first = list[0] as LookupAddress;
        callback(null, first.address, first.family);
      }
    });
  };
}

/** Where "%PDF-" may start: the PDF reference lets readers accept up to 1024 bytes of junk before it. */
const MAGIC_WINDOW = 1024;

/** MIME types that plainly are not PDFs: a document served with one of these is skipped, not failed. */
const NON_PDF_TYPES =
  /^(application\/(vnd\.google-earth\.kml\+xml|vnd\.google-earth\.kmz|zip|x-zip-compressed|vnd\.ms-excel|vnd\.openxmlformats-officedocument\.[\w.]+|msword|vnd\.oasis\.opendocument\.[\w.]+|json|xml)|text\/(csv|plain|xml)|image\/[\w.+-]+)$/;

/** Reads the body into memory, refusing more than maxBytes and stopping early when it cannot be a PDF. */
async function readBody(res: IncomingMessage, uri: string, maxBytes: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  let magicChecked = false;
  const mime = mimeOf(res.headers['content-type'] ?? null);
  for await (const part of res as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > maxBytes) {
      res.destroy();
      throw new DownloadError(`document is larger than the ${maxBytes}-byte limit (DOWNLOAD_MAX_BYTES); download stopped`, {
        kind: 'too_large',
      });
    }
    parts.push(part);
    if (!magicChecked && size >= MAGIC_WINDOW + 5) {
      magicChecked = true;
      const head = Buffer.concat(parts);
      if (!findPdfMagic(head)) {
        res.destroy();
        throw notPdf(uri, mime, head);
      }
    }
  }
  const body = Buffer.concat(parts);
  if (!magicChecked && !findPdfMagic(body)) throw notPdf(uri, mime, body);
  return body;
}

function mimeOf(contentType: string | null): string | null {
  if (!contentType) return null;
  return contentType.split(';')[0]?.trim().toLowerCase() || null;
}

function findPdfMagic(buf: Buffer): boolean {
  return buf.subarray(0, MAGIC_WINDOW + 5).includes('%PDF-');
}

function printable(buf: Buffer): string {
  return JSON.stringify(
    buf
      .subarray(0, 16)
      .toString('latin1')
      .replace(/[^\x20-\x7e]/g, '.'),
  );
}

/** Why a body is not a PDF: skipped when it plainly is another kind of file, failed otherwise. */
function notPdf(uri: string, mime: string | null, head: Buffer): DownloadError {
  let path = '';
  try {
    path = new URL(uri).pathname.toLowerCase();
  } catch {
    // not a URL: no extension to go by
  }
  if (mime && NON_PDF_TYPES.test(mime) && !path.endsWith('.pdf')) {
    return new DownloadError(`not a PDF (content-type ${mime}); skipped`, { kind: 'not_pdf', outcome: 'skipped' });
  }
  if (head.length === 0) return new DownloadError(`empty response body (content-type ${mime ?? 'none'})`, { kind: 'not_pdf' });
  return new DownloadError(`content is not a PDF (content-type ${mime ?? 'none'}; no %PDF- header, starts with ${printable(head)})`, {
    kind: 'not_pdf',
  });
}

function toDownloadError(err: unknown, signal: AbortSignal): DownloadError {
  if (err instanceof DownloadError) return err;
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    if (reason instanceof DownloadError) return reason;
    return new DownloadError('download aborted');
  }
  const { message, code } = describeNetError(err);
  if (code === 'EADDRREFUSED_POLICY') return new DownloadError(message, { kind: 'refused' });
  if (code === 'ENOTFOUND') return new DownloadError(`host not found (${message})`, { kind: 'network' });
  return new DownloadError(`network error: ${code ?? message}`, {
    kind: 'network',
    retryable: code === undefined || RETRYABLE_NET_CODES.has(code),
  });
}

function describeNetError(err: unknown): { message: string; code: string | undefined } {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { message, code };
}
