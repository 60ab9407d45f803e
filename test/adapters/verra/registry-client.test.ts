import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createVerraClient } from '../../../src/adapters/verra/registry-client.js';
import { RegistryError } from '../../../src/ports/registry-client.js';
import { parseRetryAfter } from '../../../src/domain/retry-after.js';
import { corpusAvailable, corpusPath } from '../../support/corpus.js';
import { describeWithService } from '../../support/services.js';

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  at: number;
  headers: IncomingMessage['headers'];
}

/**
 * A local registry replaying recorded answers: each test installs a script, a function of the request number
 * (per path) that writes the response.
 */
type Script = (req: Seen, n: number, res: ServerResponse) => void;

let server: Server;
let baseUrl = '';
let seen: Seen[] = [];
let script: Script = (_r, _n, res) => {
  res.writeHead(500).end();
};
let record4086 = Buffer.alloc(0);

beforeAll(async () => {
  if (corpusAvailable) record4086 = await readFile(corpusPath('records', 'verra_4086_raw.json'));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const s: Seen = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        headers: req.headers,
      };
      seen.push(s);
      script(s, seen.filter((x) => x.path === s.path).length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen = [];
});

const json = (res: ServerResponse, status: number, body: Buffer | string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(body);
};

const fastClient = (extra: Partial<Parameters<typeof createVerraClient>[0]> = {}) =>
  createVerraClient({
    baseUrl,
    retryBaseDelayMs: 20,
    retryMaxDelayMs: 50,
    intervalCap: 100,
    intervalMs: 100,
    timeoutMs: 2000,
    ...extra,
  });

describeWithService(
  'Verra client against a replay of the real 4086 record',
  {
    available: corpusAvailable,
    why: `corpus not found at ${corpusPath()}`,
  },
  () => {
    it('fetches the resource summary and returns the parsed raw record with its registry', async () => {
      script = (req, _n, res) => {
        if (req.path === '/uiapi/resource/resourceSummary/4086') json(res, 200, record4086);
        else json(res, 404, '{}');
      };
      const record = await fastClient().fetchProject(4086);
      expect(record?.registry).toBe('Verra');
      expect(record?.resourceIdentifier).toBe('4086');
      expect(record?.resourceName).toBe('Suihuang Adjusted Water Management in Rice Cultivation');
      expect(record?.participationSummaries[0]?.attributes.find((a) => a.code === 'PROTOCOL_NAME')?.values[0]?.value).toBe('AMS-III.AU');
      expect(record?.documentGroups.map((g) => g.code)).toEqual([
        'VCS_PIPELINE_DOCUMENTS',
        'VCS_REGISTRATION_DOCUMENTS',
        'VCS_ISSUANCE_DOCUMENTS',
        'VCS_OTHER_DOCUMENTS',
      ]);
      // The description keeps its CR LF sequences byte for byte.
      const original = JSON.parse(record4086.toString('utf8')) as { description: string };
      expect(record?.description).toBe(original.description);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.method).toBe('GET');
      expect(seen[0]?.headers.accept).toContain('application/json');
    });

    it('retries a 429 after the Retry-After delay, then succeeds', async () => {
      script = (_req, n, res) => {
        if (n === 1) json(res, 429, '{"message":"Too Many Requests"}', { 'retry-after': '1' });
        else json(res, 200, record4086);
      };
      const started = Date.now();
      const record = await fastClient().fetchProject(4086);
      expect(record?.resourceIdentifier).toBe('4086');
      expect(seen).toHaveLength(2);
      const gap = (seen[1]?.at ?? 0) - (seen[0]?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual(950);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('retries 500, 502 and 503 answers with backoff, then succeeds', async () => {
      script = (_req, n, res) => {
        if (n <= 3) json(res, [500, 502, 503][n - 1] ?? 500, '{"error":"upstream"}');
        else json(res, 200, record4086);
      };
      const record = await fastClient().fetchProject(4086);
      expect(record?.resourceName).toContain('Suihuang');
      expect(seen).toHaveLength(4);
    });

    it('recovers from a dropped connection', async () => {
      script = (_req, n, res) => {
        if (n === 1) res.socket?.destroy();
        else json(res, 200, record4086);
      };
      const record = await fastClient().fetchProject(4086);
      expect(record?.resourceIdentifier).toBe('4086');
      expect(seen).toHaveLength(2);
    });
  },
);

describe('Verra client: bad and missing answers', () => {
  it('returns null for a 404', async () => {
    script = (_req, _n, res) => json(res, 404, '{"message":"not found"}');
    expect(await fastClient().fetchProject(999999)).toBeNull();
    expect(seen).toHaveLength(1);
  });

  it('rejects an HTML page with a clear, non-retryable error', async () => {
    script = (_req, _n, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><title>Verra Registry</title></head><body><app-root></app-root></body></html>');
    };
    const err = await fastClient()
      .fetchProject(4086)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    const e = err as RegistryError;
    expect(e.message).toMatch(/HTML page instead of JSON/);
    expect(e.message).toContain('text/html');
    expect(e.message).toContain('/uiapi/resource/resourceSummary/4086');
    expect(e.retryable).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it('rejects HTML served as JSON and bodies that are not JSON', async () => {
    script = (_req, n, res) => json(res, 200, n === 1 ? '<html>app</html>' : '{"resourceIdentifier": "4086",');
    await expect(fastClient().fetchProject(4086)).rejects.toThrow(/HTML page instead of JSON/);
    await expect(fastClient().fetchProject(4086)).rejects.toThrow(/not JSON/);
  });

  it('rejects JSON that is not a project record, naming the field', async () => {
    script = (_req, _n, res) => json(res, 200, '{"resourceIdentifier":"abc","resourceName":"x"}');
    await expect(fastClient().fetchProject(4086)).rejects.toThrow(/unexpected shape.*resourceIdentifier/);
  });

  it('rejects a record for another project than the one asked for', async () => {
    script = (_req, _n, res) => json(res, 200, '{"resourceIdentifier":"1","resourceName":"x"}');
    await expect(fastClient().fetchProject(4086)).rejects.toThrow(/answered for project 1 when asked for 4086/);
  });

  it('gives up after the configured retries on persistent 500s with a retryable error', async () => {
    script = (_req, _n, res) => json(res, 500, '{"error":"boom"}');
    const err = (await fastClient({ retries: 2 })
      .fetchProject(4086)
      .catch((e: unknown) => e)) as RegistryError;
    expect(err).toBeInstanceOf(RegistryError);
    expect(err.status).toBe(500);
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('500');
    expect(seen).toHaveLength(3);
  });

  it('does not retry other 4xx answers', async () => {
    script = (_req, _n, res) => json(res, 403, '{"error":"forbidden"}');
    const err = (await fastClient()
      .fetchProject(4086)
      .catch((e: unknown) => e)) as RegistryError;
    expect(err.status).toBe(403);
    expect(err.retryable).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it('refuses to wait for a Retry-After longer than its limit', async () => {
    script = (_req, _n, res) => json(res, 429, '{}', { 'retry-after': '3600' });
    await expect(fastClient({ maxRetryAfterMs: 5000 }).fetchProject(4086)).rejects.toThrow(/retry after 3600 s/);
    expect(seen).toHaveLength(1);
  });

  it('times out a silent registry and reports it', async () => {
    script = () => undefined; // never answers
    const err = (await fastClient({ timeoutMs: 200, retries: 1 })
      .fetchProject(4086)
      .catch((e: unknown) => e)) as RegistryError;
    expect(err).toBeInstanceOf(RegistryError);
    expect(err.message).toMatch(/no answer within 200 ms/);
    expect(seen).toHaveLength(2);
  });

  it('rejects ids that are not positive integers before any request', async () => {
    await expect(fastClient().fetchProject(0)).rejects.toThrow(/positive integer/);
    await expect(fastClient().fetchProject(1.5)).rejects.toThrow(/positive integer/);
    expect(seen).toHaveLength(0);
  });

  it('rejects a bad base URL at creation', () => {
    expect(() => createVerraClient({ baseUrl: 'not a url' })).toThrow(/not a URL/);
    expect(() => createVerraClient({ baseUrl: 'ftp://example.org' })).toThrow(/http/);
  });

  it('starts no more requests per interval than its cap', async () => {
    script = (req, _n, res) => json(res, 404, '{}');
    const client = createVerraClient({ baseUrl, intervalCap: 2, intervalMs: 300, concurrency: 10 });
    await Promise.all([1, 2, 3, 4, 5, 6].map((id) => client.fetchProject(id)));
    const times = seen.map((s) => s.at).sort((a, b) => a - b);
    expect(times).toHaveLength(6);
    for (let i = 2; i < times.length; i++) {
      // Any three consecutive starts span at least one interval.
      expect((times[i] ?? 0) - (times[i - 2] ?? 0)).toBeGreaterThanOrEqual(250);
    }
  });
});

describe('Verra client: project search', () => {
  it('posts the VCS search body with statuses and name, pages with $maxResults/$skip, and maps the hits', async () => {
    const all = Array.from({ length: 130 }, (_, i) => ({
      resourceIdentifier: 5000 + i,
      resourceName: `Project ${i}`,
      resourceStatus: 'Registered',
      country: 'India',
    }));
    script = (req, _n, res) => {
      const skip = Number(req.query.get('$skip') ?? '0');
      const max = Number(req.query.get('$maxResults') ?? '0');
      json(res, 200, JSON.stringify({ totalCount: all.length, value: all.slice(skip, skip + max) }));
    };
    const hits = await fastClient().searchProjects({ name: 'Project', status: 'Registered', limit: 120 });
    expect(hits).toHaveLength(120);
    expect(hits[0]).toEqual({ projectId: 5000, name: 'Project 0', status: 'Registered' });
    expect(hits[119]?.projectId).toBe(5119);
    expect(seen).toHaveLength(2);
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.path).toBe('/uiapi/resource/resource/search');
    expect(seen[0]?.query.get('$maxResults')).toBe('100');
    expect(seen[0]?.query.get('$skip')).toBe('0');
    expect(seen[1]?.query.get('$maxResults')).toBe('20');
    expect(seen[1]?.query.get('$skip')).toBe('100');
    expect(JSON.parse(seen[0]?.body ?? '{}')).toEqual({
      program: 'VCS',
      resourceStatuses: ['VCS_EX_REGISTERED'],
      resourceName: 'Project',
    });
  });

  it('stops at the last page, accepts a bare array, and asks for every status by default', async () => {
    script = (_req, _n, res) => json(res, 200, JSON.stringify([{ resourceIdentifier: '4086', resourceName: 'Suihuang' }]));
    const hits = await fastClient().searchProjects({});
    expect(hits).toEqual([{ projectId: 4086, name: 'Suihuang' }]);
    const body = JSON.parse(seen[0]?.body ?? '{}') as { resourceStatuses: string[]; resourceName?: string };
    expect(body.resourceStatuses).toContain('VCS_EX_UNDER_VALIDATION_OPN');
    expect(body.resourceStatuses).toContain('VCS_EX_REGISTERED');
    expect(body.resourceName).toBeUndefined();
  });

  it('rejects an unknown status and an HTML search answer', async () => {
    await expect(fastClient().searchProjects({ status: 'Sleeping' })).rejects.toThrow(/unknown Verra project status/);
    script = (_req, _n, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Verra</body></html>');
    };
    await expect(fastClient().searchProjects({ name: 'x' })).rejects.toThrow(/HTML page instead of JSON/);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
  });
});
