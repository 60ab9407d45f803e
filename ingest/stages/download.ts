import { createHash } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import { parseRetryAfter } from '../../src/domain/retry-after.js';
import { checkAddress, checkUrl, type HostRule, type UrlPolicy } from '../../src/domain/url-policy.js';
import { URI_PLACEHOLDER } from '../records.js';
import type { DocumentWorkItem, DownloadedContent, Stage } from '../types.js';

/**
 * Downloads documents from outside URIs, defensively: http(s) to allow-listed hosts only, every resolved address
 * and every redirect hop checked, a size cap enforced while streaming, bounded total and per-host concurrency,
 * and retries with backoff (honouring Retry-After) only where a retry can help.
 */

export interface DownloaderOptions {
  policy: UrlPolicy;
  /** @default 52428800 (50 MB) */
  maxBytes?: number;
  /** Downloads in flight over all hosts. @default 4 */
  concurrency?: number;
  /** Downloads in flight per host, to stay polite to a registry. @default 2 */
  perHostConcurrency?: number;
  /** Per attempt, from request to last byte. @default 60000 */
  timeoutMs?: number;
  /** Attempts after the first one, for retryable failures only. @default 3 */
  retries?: number;
  /** First backoff delay; doubles each retry, with jitter. @default 1000 */
  retryBaseDelayMs?: number;
  /** Cap on any wait between attempts, Retry-After included. @default 60000 */
  retryMaxDelayMs?: number;
  /** @default 5 */
  maxRedirects?: number;
  /** Name resolution; tests inject one to simulate a host resolving to a private address. @default dns.lookup */
  lookup?: typeof dnsLookup;
  /** @default carbon-docs-ingest/0.1 */
  userAgent?: string;
  /** Called before each wait between attempts (for logging). */
  onRetry?: (info: { uri: string; attempt: number; delayMs: number; reason: string }) => void;
}

/** A failed download, saying whether trying again can help and how long the server asked us to wait. */
export class DownloadError extends Error {
  readonly retryable: boolean;
  readonly retryAfterMs: number | null;
  /** `skipped`: the URI names something that is not a PDF (recorded, not an error). */
  readonly outcome: 'failed' | 'skipped';
  constructor(message: string, opts: { retryable?: boolean; retryAfterMs?: number | null; outcome?: 'failed' | 'skipped' } = {}) {
    super(message);
    this.name = 'DownloadError';
    this.retryable = opts.retryable ?? false;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.outcome = opts.outcome ?? 'failed';
  }
}

export interface Downloader {
  /** The document's bytes, or throws DownloadError with a reason fit for the document's state. */
  download(uri: string, signal?: AbortSignal): Promise<DownloadedContent>;
  /** Waits for downloads in flight to finish. */
  onIdle(): Promise<void>;
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
const RETRYABLE_NET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

/** MIME types that plainly are not PDFs: a document served with one of these is skipped, not failed. */
const NON_PDF_TYPES =
  /^(application\/(vnd\.google-earth\.kml\+xml|vnd\.google-earth\.kmz|zip|x-zip-compressed|vnd\.ms-excel|vnd\.openxmlformats-officedocument\.[\w.]+|msword|vnd\.oasis\.opendocument\.[\w.]+|json|xml)|text\/(csv|plain|xml)|image\/[\w.+-]+)$/;

function mimeOf(contentType: string | null): string | null {
  if (!contentType) return null;
  return contentType.split(';')[0]?.trim().toLowerCase() || null;
}

/** Where "%PDF-" may start: the PDF reference lets readers accept up to 1024 bytes of junk before it. */
const MAGIC_WINDOW = 1024;

function findPdfMagic(buf: Buffer): boolean {
  return buf.subarray(0, MAGIC_WINDOW + 5).includes('%PDF-');
}

function printable(buf: Buffer): string {
  return JSON.stringify(buf.subarray(0, 16).toString('latin1').replace(/[^\x20-\x7e]/g, '.'));
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

function describeNetError(err: unknown): { message: string; code: string | undefined } {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return { message, code };
}

/** Creates a downloader; options are checked here once. */
export function createDownloader(opts: DownloaderOptions): Downloader {
  const maxBytes = opts.maxBytes ?? 50 * 1024 * 1024;
  const concurrency = opts.concurrency ?? 4;
  const perHost = opts.perHostConcurrency ?? 2;
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const retries = opts.retries ?? 3;
  const baseDelay = opts.retryBaseDelayMs ?? 1000;
  const maxDelay = opts.retryMaxDelayMs ?? 60_000;
  const maxRedirects = opts.maxRedirects ?? 5;
  const lookup = opts.lookup ?? dnsLookup;
  const userAgent = opts.userAgent ?? 'carbon-docs-ingest/0.1';
  for (const [name, v, min] of [
    ['maxBytes', maxBytes, 1],
    ['concurrency', concurrency, 1],
    ['perHostConcurrency', perHost, 1],
    ['timeoutMs', timeoutMs, 1],
    ['retries', retries, 0],
    ['maxRedirects', maxRedirects, 0],
  ] as const) {
    if (!Number.isInteger(v) || v < min) throw new RangeError(`downloader ${name} must be an integer >= ${min}, got ${v}`);
  }

  const total = new PQueue({ concurrency });
  const hosts = new Map<string, PQueue>();
  const hostQueue = (host: string): PQueue => {
    let q = hosts.get(host);
    if (!q) {
      q = new PQueue({ concurrency: perHost });
      hosts.set(host, q);
    }
    return q;
  };

  /** One GET of one URL (no redirect following); resolves with the response once headers arrive. */
  function get(url: URL, rule: HostRule, signal: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(url, {
        method: 'GET',
        headers: { 'user-agent': userAgent, accept: 'application/pdf, */*;q=0.5' },
        lookup: guardedLookup(rule, lookup),
        signal,
        // A fresh connection per request: a pooled socket could have been opened to an address checked earlier.
        agent: false,
      });
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
  }

  /** Reads the body into memory, refusing more than maxBytes and stopping early when it cannot be a PDF. */
  async function readBody(res: IncomingMessage, uri: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    let size = 0;
    let magicChecked = false;
    const mime = mimeOf(res.headers['content-type'] ?? null);
    for await (const part of res as AsyncIterable<Buffer>) {
      size += part.length;
      if (size > maxBytes) {
        res.destroy();
        throw new DownloadError(`document is larger than the ${maxBytes}-byte limit (DOWNLOAD_MAX_BYTES); download stopped`);
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

  function notPdf(uri: string, mime: string | null, head: Buffer): DownloadError {
    const path = (() => {
      try {
        return new URL(uri).pathname.toLowerCase();
      } catch {
        return '';
      }
    })();
    if (mime && NON_PDF_TYPES.test(mime) && !path.endsWith('.pdf')) {
      return new DownloadError(`not a PDF (content-type ${mime}); skipped`, { outcome: 'skipped' });
    }
    if (head.length === 0) return new DownloadError(`empty response body (content-type ${mime ?? 'none'})`);
    return new DownloadError(
      `content is not a PDF (content-type ${mime ?? 'none'}; no %PDF- header, starts with ${printable(head)})`,
    );
  }

  /** One attempt: follows redirects, re-checking every hop. */
  async function attempt(uri: string, outer: AbortSignal | undefined): Promise<DownloadedContent> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DownloadError(`timed out after ${timeoutMs} ms`, { retryable: true })),
      timeoutMs,
    );
    const onOuterAbort = (): void => controller.abort(outer?.reason);
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      let current = uri;
      for (let hop = 0; ; hop++) {
        const decision = checkUrl(opts.policy, current);
        if (!decision.ok) throw new DownloadError(hop === 0 ? decision.reason : `redirect to ${current} refused: ${decision.reason}`);
        let res: IncomingMessage;
        try {
          res = await get(decision.url, decision.rule, controller.signal);
        } catch (err) {
          throw toDownloadError(err, controller.signal);
        }
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && status !== 304) {
          res.resume();
          const location = res.headers.location;
          if (!location) throw new DownloadError(`HTTP ${status} redirect without a Location header`);
          if (hop >= maxRedirects) throw new DownloadError(`more than ${maxRedirects} redirects`);
          current = new URL(location, decision.url).href;
          continue;
        }
        if (status !== 200) {
          res.resume();
          const retryable = RETRYABLE_STATUS.has(status);
          throw new DownloadError(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`, {
            retryable,
            retryAfterMs: retryable ? parseRetryAfter(res.headers['retry-after']) : null,
          });
        }
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          res.destroy();
          throw new DownloadError(`document is ${declared} bytes, over the ${maxBytes}-byte limit (DOWNLOAD_MAX_BYTES)`);
        }
        let bytes: Buffer;
        try {
          bytes = await readBody(res, current);
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

  function toDownloadError(err: unknown, signal: AbortSignal): DownloadError {
    if (err instanceof DownloadError) return err;
    if (signal.aborted) {
      const reason: unknown = signal.reason;
      if (reason instanceof DownloadError) return reason;
      return new DownloadError('download aborted');
    }
    const { message, code } = describeNetError(err);
    if (code === 'EADDRREFUSED_POLICY') return new DownloadError(message);
    if (code === 'ENOTFOUND') return new DownloadError(`host not found (${message})`);
    return new DownloadError(`network error: ${code ?? message}`, { retryable: code === undefined || RETRYABLE_NET_CODES.has(code) });
  }

  function delayFor(err: DownloadError, attemptNumber: number): number {
    if (err.retryAfterMs !== null) return Math.min(err.retryAfterMs, maxDelay);
    const exp = baseDelay * 2 ** (attemptNumber - 1);
    // Full jitter keeps many workers from retrying in lockstep.
    return Math.min(maxDelay, Math.round(exp / 2 + (Math.random() * exp) / 2));
  }

  return {
    async download(uri, signal) {
      const first = checkUrl(opts.policy, uri);
      if (!first.ok) throw new DownloadError(first.reason);
      const host = first.url.host;
      return pRetry(
        async () => {
          try {
            return await hostQueue(host).add(() => total.add(() => attempt(uri, signal), { throwOnTimeout: true }), {
              throwOnTimeout: true,
            });
          } catch (err) {
            const e = err instanceof DownloadError ? err : new DownloadError(describeNetError(err).message);
            if (!e.retryable || signal?.aborted) throw new AbortError(e);
            throw e;
          }
        },
        {
          retries,
          minTimeout: 0,
          maxTimeout: 0,
          factor: 1,
          randomize: false,
          ...(signal ? { signal } : {}),
          onFailedAttempt: async (err) => {
            if (err.retriesLeft <= 0 || !(err instanceof DownloadError)) return;
            const delayMs = delayFor(err, err.attemptNumber);
            opts.onRetry?.({ uri, attempt: err.attemptNumber, delayMs, reason: err.message });
            await new Promise((r) => setTimeout(r, delayMs));
          },
        },
      ).catch((err: unknown) => {
        if (err instanceof DownloadError) {
          if (err.retryable && retries > 0) throw new DownloadError(`${err.message} (after ${retries + 1} attempts)`, { outcome: err.outcome });
          throw err;
        }
        throw new DownloadError(describeNetError(err).message);
      });
    },
    async onIdle() {
      await Promise.all([total.onIdle(), ...[...hosts.values()].map((q) => q.onIdle())]);
    },
  };
}

/** Stage: fetches the document's bytes; a refused or failed download ends the item with its reason. */
export const download: Stage = async (item: DocumentWorkItem, ctx) => {
  const placeholder = URI_PLACEHOLDER.exec(item.uri)?.[0];
  if (placeholder !== undefined) {
    const fix = placeholder === '{BASE}' ? ': import the records again with --replace-base <url>' : '';
    return { ...item, outcome: { kind: 'failed', reason: `download: the uri still holds the placeholder ${placeholder}${fix}` } };
  }
  try {
    const content = await ctx.downloader.download(item.uri, ctx.signal);
    return { ...item, content };
  } catch (err) {
    if (err instanceof DownloadError) {
      return { ...item, outcome: err.outcome === 'skipped' ? { kind: 'skipped', reason: err.message } : { kind: 'failed', reason: `download: ${err.message}` } };
    }
    throw err;
  }
};
