import PQueue from 'p-queue';
import { z } from 'zod';
import { rawRecordSchema } from '../../domain/raw-record.js';
import { parseRetryAfter } from '../../domain/retry-after.js';
import type { Logger } from '../../logger.js';
import { httpUrl, isRetryableStatus, retryPolicy, withRetry, type RetryPolicy } from '../../http-retry.js';
import { RegistryError, type RegistryClient, type RegistryProjectSummary } from '../../ports/registry-client.js';

/**
 * Retries (src/http-retry.ts) for retryable statuses, network errors and time-outs.
 * @default retries 3, retryBaseDelayMs 500, retryMaxDelayMs 10000, maxRetryAfterMs 60000
 */
export interface VerraClientOptions extends Partial<RetryPolicy> {
  /** e.g. https://registry.verra.org (config VERRA_BASE_URL). */
  baseUrl: string;
  /** Injectable for tests and proxies. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Per-attempt time limit. @default 30000 */
  timeoutMs?: number;
  /** Requests started per `intervalMs` (every attempt counts, retries included). @default 2 */
  intervalCap?: number;
  /** @default 1000 */
  intervalMs?: number;
  /** Requests in flight at once. @default 2 */
  concurrency?: number;
  /** @default carbon-docs (+https://github.com) */
  userAgent?: string;
  logger?: Logger;
}

/** Verra's resource status codes for the search endpoint, by the status names records carry. */
export const VERRA_STATUS_CODES: Readonly<Record<string, readonly string[]>> = {
  'under development': ['VCS_EX_UNDER_DEVELOPMENT_CLD', 'VCS_EX_UNDER_DEVELOPMENT_OPN'],
  'under validation': ['VCS_EX_UNDER_VALIDATION_CLD', 'VCS_EX_UNDER_VALIDATION_OPN'],
  'registration requested': ['VCS_EX_REGISTRATION_REQUESTED', 'VCS_EX_REG_VER_APPR_REQUESTED'],
  registered: ['VCS_EX_REGISTERED'],
  'crediting period renewal requested': ['VCS_EX_CRD_PRD_REQUESTED', 'VCS_EX_CRD_PRD_VER_REQUESTED'],
  'on hold': ['VCS_EX_ONHOLD'],
  inactive: ['VCS_EX_INACTIVE'],
  rejected: ['VCS_EX_REJ'],
  withdrawn: ['VCS_EX_WITHDRAWN'],
  'transferred from other program': ['VCS_EX_CRED_TRANS_FRM_OTHER_PROG'],
};

const ALL_STATUS_CODES = [...new Set(Object.values(VERRA_STATUS_CODES).flat())];

/** The fields of a search hit the client uses; the rest of the item is ignored. */
const searchItemSchema = z
  .object({
    resourceIdentifier: z.union([z.string().regex(/^\d+$/), z.number().int().positive()]),
    resourceName: z.string().nullish(),
    resourceStatus: z.string().nullish(),
  })
  .passthrough();
const searchResponseSchema = z.union([z.object({ value: z.array(searchItemSchema) }).passthrough(), z.array(searchItemSchema)]);

const REGISTRY = 'Verra';
const PAGE_SIZE = 100;

function describeBody(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > 160 ? `${oneLine.slice(0, 160)}...` : oneLine;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

/**
 * HTTP client for Verra's public registry API: `GET /uiapi/resource/resourceSummary/{id}` (the raw record, SPEC 2.4)
 * and `POST /uiapi/resource/resource/search`. Every attempt passes a rate limiter (p-queue interval cap);
 * retryable statuses, network errors and time-outs are retried under the shared policy (src/http-retry.ts).
 * Anything that is not the expected JSON (the registry has been seen serving its HTML app instead) is a
 * RegistryError naming the URL, the status, the content type and the start of the body.
 */
export function createVerraClient(opts: VerraClientOptions): RegistryClient {
  const baseUrl = httpUrl(opts.baseUrl, 'Verra client: baseUrl').toString().replace(/\/+$/, '');
  const doFetch = opts.fetch ?? globalThis.fetch;
  const retry = retryPolicy(opts, { retries: 3, retryBaseDelayMs: 500, retryMaxDelayMs: 10_000, maxRetryAfterMs: 60_000 }, 'Verra client');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const userAgent = opts.userAgent ?? 'carbon-docs (registry client)';
  const queue = new PQueue({
    concurrency: opts.concurrency ?? 2,
    intervalCap: opts.intervalCap ?? 2,
    interval: opts.intervalMs ?? 1000,
  });
  const log = opts.logger?.child({ component: 'verra-client' });

  /** One HTTP exchange; throws RegistryError for everything but a usable JSON answer or a 404. */
  async function attempt(url: string, init: RequestInit, signal?: AbortSignal): Promise<unknown | null> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await doFetch(url, { ...init, signal: combined, redirect: 'follow' });
    } catch (err) {
      if (signal?.aborted) throw err;
      const timedOut = timeout.aborted || isAbort(err);
      const what = timedOut ? `no answer within ${timeoutMs} ms` : `network error: ${(err as Error).message}`;
      throw new RegistryError(REGISTRY, url, `Verra registry ${what} (${url})`, { retryable: true, cause: err });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new RegistryError(REGISTRY, url, `Verra registry connection broke while reading the answer (${url})`, {
        status: res.status,
        retryable: true,
        cause: err,
      });
    }
    const type = res.headers.get('content-type') ?? '(none)';
    if (res.status === 404) return null;
    if (isRetryableStatus(res.status)) {
      throw new RegistryError(REGISTRY, url, `Verra registry answered ${res.status} ${res.statusText} (${url}): ${describeBody(text)}`, {
        status: res.status,
        retryable: true,
        retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
      });
    }
    if (res.status < 200 || res.status >= 300) {
      throw new RegistryError(REGISTRY, url, `Verra registry answered ${res.status} ${res.statusText} (${url}): ${describeBody(text)}`, {
        status: res.status,
      });
    }
    if (res.status === 204 || text.trim() === '') return null;
    const looksHtml = /html/i.test(type) || /^\s*</.test(text);
    if (looksHtml) {
      throw new RegistryError(
        REGISTRY,
        url,
        `Verra registry answered with an HTML page instead of JSON (status ${res.status}, content-type ${type}, ` +
          `${url}); the registry may be serving its web app or a browser check at this address: ${describeBody(text)}`,
        { status: res.status },
      );
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new RegistryError(
        REGISTRY,
        url,
        `Verra registry answered with a body that is not JSON (status ${res.status}, content-type ${type}, ${url}): ` + describeBody(text),
        { status: res.status, cause: err },
      );
    }
  }

  function request(url: string, init: RequestInit, signal?: AbortSignal): Promise<unknown | null> {
    return withRetry(() => queue.add(() => attempt(url, init, signal), { throwOnTimeout: true }), retry, {
      signal,
      classify: (err) =>
        err instanceof RegistryError
          ? { retryable: err.retryable, retryAfterMs: err.retryAfterMs }
          : { retryable: false, retryAfterMs: null },
      onRetry: ({ attempt: n, delayMs, error }) => {
        const status = error instanceof RegistryError ? error.status : null;
        log?.warn({ url, status, attempt: n, waitMs: delayMs }, error.message);
      },
      retryAfterTooLong: (error, retryAfterMs) =>
        new RegistryError(
          REGISTRY,
          url,
          `${error.message}; it asked to retry after ${Math.round(retryAfterMs / 1000)} s, longer than the ` +
            `${Math.round(retry.maxRetryAfterMs / 1000)} s this client waits`,
          { status: error instanceof RegistryError ? error.status : null, retryable: true, retryAfterMs },
        ),
    });
  }

  return {
    registry: REGISTRY,

    async fetchProject(projectId, signal) {
      if (!Number.isInteger(projectId) || projectId <= 0) {
        throw new RangeError(`Verra project id must be a positive integer (got ${JSON.stringify(projectId)})`);
      }
      const url = `${baseUrl}/uiapi/resource/resourceSummary/${projectId}`;
      const body = await request(url, { method: 'GET', headers: { accept: 'application/json', 'user-agent': userAgent } }, signal);
      if (body === null) return null;
      if (typeof body !== 'object' || Array.isArray(body)) {
        throw new RegistryError(REGISTRY, url, `Verra registry answered with JSON that is not a project record (${url})`);
      }
      // The registry's own records carry no `registry` field; the service stores every record with one.
      const withRegistry = { registry: REGISTRY, ...(body as Record<string, unknown>) };
      const parsed = rawRecordSchema.safeParse(withRegistry);
      if (!parsed.success) {
        const issues = parsed.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`)
          .join('; ');
        throw new RegistryError(REGISTRY, url, `Verra registry record for ${projectId} has an unexpected shape (${url}): ${issues}`);
      }
      if (Number(parsed.data.resourceIdentifier) !== projectId) {
        throw new RegistryError(
          REGISTRY,
          url,
          `Verra registry answered for project ${parsed.data.resourceIdentifier} when asked for ${projectId} (${url})`,
        );
      }
      return parsed.data;
    },

    async searchProjects(query, signal) {
      const limit = Math.max(1, Math.min(query.limit ?? 50, 10_000));
      let statuses = ALL_STATUS_CODES;
      if (query.status !== undefined) {
        const codes = VERRA_STATUS_CODES[query.status.trim().toLowerCase()];
        if (!codes) {
          throw new RangeError(
            `unknown Verra project status ${JSON.stringify(query.status)}; known: ${Object.keys(VERRA_STATUS_CODES).join(', ')}`,
          );
        }
        statuses = [...codes];
      }
      const body: Record<string, unknown> = { program: 'VCS', resourceStatuses: statuses };
      if (query.name !== undefined && query.name.trim() !== '') body.resourceName = query.name.trim();
      const out: RegistryProjectSummary[] = [];
      for (let skip = 0; out.length < limit;) {
        const pageSize = Math.min(PAGE_SIZE, limit - out.length);
        const url = `${baseUrl}/uiapi/resource/resource/search?$maxResults=${pageSize}&$skip=${skip}&$count=true`;
        const answer = await request(
          url,
          {
            method: 'POST',
            headers: { accept: 'application/json', 'content-type': 'application/json', 'user-agent': userAgent },
            body: JSON.stringify(body),
          },
          signal,
        );
        if (answer === null) break;
        const parsed = searchResponseSchema.safeParse(answer);
        if (!parsed.success) {
          throw new RegistryError(REGISTRY, url, `Verra registry search answered with JSON of an unexpected shape (${url})`);
        }
        const items = Array.isArray(parsed.data) ? parsed.data : parsed.data.value;
        for (const item of items.slice(0, limit - out.length)) {
          out.push({
            projectId: Number(item.resourceIdentifier),
            name: item.resourceName ?? '',
            ...(item.resourceStatus ? { status: item.resourceStatus } : {}),
          });
        }
        if (items.length < pageSize) break;
        skip += items.length;
      }
      return out;
    },
  };
}
