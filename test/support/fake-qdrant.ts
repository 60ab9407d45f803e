import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP server that answers like Qdrant's REST API (1.18) for the endpoints the vector index uses, with
 * exact in-memory behaviour and Qdrant's envelope `{result, status, time}` / `{status: {error}, time}`. It checks
 * what real Qdrant checks (point id format, vector names and dimensions, unique sparse indices) so that a wrong
 * request fails here as it would there. Every request is recorded for assertions on the wire format.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
}

export interface FakeQdrant {
  url: string;
  requests: RecordedRequest[];
  /** Makes the next `n` requests fail with this HTTP status (fault injection). */
  failNext(n: number, status: number): void;
  /** Makes the first request that `match` accepts fail with this HTTP status, once (e.g. one upsert of many). */
  failWhen(match: (req: RecordedRequest) => boolean, status?: number): void;
  close(): Promise<void>;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Payload = Record<string, Json>;

interface SparseVector {
  indices: number[];
  values: number[];
}

interface DenseConfig {
  size: number;
  distance: string;
  /** Qdrant's multivector: a point holds several vectors, scored by `max_sim` (sum over query vectors of the best). */
  multivector_config?: { comparator: 'max_sim' };
}

interface Point {
  id: string | number;
  /** One vector per name, or several for a multivector. */
  dense: Map<string, number[][]>;
  sparse: Map<string, SparseVector>;
  payload: Payload;
}

interface Collection {
  vectors: Map<string, DenseConfig>;
  sparse: Map<string, { modifier?: string }>;
  metadata: Payload | null;
  payloadSchema: Record<string, { data_type: string; points: number }>;
  points: Map<string, Point>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function pointKey(id: unknown): string {
  if (typeof id === 'number' && Number.isInteger(id) && id >= 0) return `n:${id}`;
  if (typeof id === 'string' && UUID.test(id)) return `u:${id.toLowerCase()}`;
  throw new HttpError(
    400,
    `Format error in JSON body: value ${JSON.stringify(id)} is not a valid point ID, valid values are either an unsigned integer or a UUID`,
  );
}

function normalize(v: number[]): number[] {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return n === 0 ? v : v.map((x) => x / n);
}

function getPath(payload: Payload, key: string): Json | undefined {
  let cur: Json | undefined = payload;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function matchCondition(point: Point, cond: unknown): boolean {
  if (!isRecord(cond)) throw new HttpError(400, 'Format error in JSON body: condition must be an object');
  if ('must' in cond || 'should' in cond || 'must_not' in cond || 'min_should' in cond) return matchFilter(point, cond);
  if ('has_id' in cond) {
    const ids = Array.isArray(cond.has_id) ? cond.has_id : [];
    return ids.some((id) => pointKey(id) === pointKey(point.id));
  }
  if (typeof cond.key !== 'string') throw new HttpError(400, 'Format error in JSON body: unsupported condition');
  const value = getPath(point.payload, cond.key);
  const values = Array.isArray(value) ? value : [value];
  const match = cond.match;
  if (isRecord(match)) {
    if ('value' in match) return values.some((v) => v === match.value);
    const any = match.any;
    if (Array.isArray(any)) return values.some((v) => any.includes(v));
    throw new HttpError(400, 'Format error in JSON body: unsupported match');
  }
  throw new HttpError(400, `Format error in JSON body: unsupported condition on ${cond.key}`);
}

function matchFilter(point: Point, filter: unknown): boolean {
  if (filter === undefined || filter === null) return true;
  if (!isRecord(filter)) throw new HttpError(400, 'Format error in JSON body: filter must be an object');
  const list = (v: unknown): unknown[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
  const must = list(filter.must);
  const should = list(filter.should);
  const mustNot = list(filter.must_not);
  if (!must.every((c) => matchCondition(point, c))) return false;
  if (should.length > 0 && !should.some((c) => matchCondition(point, c))) return false;
  if (mustNot.some((c) => matchCondition(point, c))) return false;
  return true;
}

function parseSparse(v: unknown, where: string): SparseVector {
  if (!isRecord(v) || !Array.isArray(v.indices) || !Array.isArray(v.values)) {
    throw new HttpError(400, `Format error in JSON body: ${where} is not a sparse vector`);
  }
  const indices = v.indices as unknown[];
  const values = v.values as unknown[];
  if (indices.length !== values.length) {
    throw new HttpError(400, `Wrong input: Sparse vector indices and values must have the same length`);
  }
  if (!indices.every((i) => typeof i === 'number' && Number.isInteger(i) && i >= 0 && i <= 0xffffffff)) {
    throw new HttpError(400, `Format error in JSON body: sparse indices must be u32`);
  }
  if (new Set(indices).size !== indices.length) {
    throw new HttpError(400, 'Wrong input: Sparse vector indices must be unique');
  }
  if (!values.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new HttpError(400, 'Format error in JSON body: sparse values must be numbers');
  }
  return { indices: indices as number[], values: values as number[] };
}

function dot(a: number[], b: number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
}

function pickPayload(payload: Payload, withPayload: unknown): Payload | null {
  if (withPayload === true) return payload;
  if (Array.isArray(withPayload)) {
    const out: Payload = {};
    for (const k of withPayload) if (typeof k === 'string' && k in payload) out[k] = payload[k] ?? null;
    return out;
  }
  return null;
}

function compareIds(a: Point, b: Point): number {
  // Qdrant orders integer ids before UUIDs; within a kind by value.
  const ka = pointKey(a.id);
  const kb = pointKey(b.id);
  if (typeof a.id === 'number' && typeof b.id === 'number') return a.id - b.id;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  if (chunks.length === 0) return undefined;
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'Format error in JSON body: expected value');
  }
}

export async function startFakeQdrant(opts: { version?: string; apiKey?: string } = {}): Promise<FakeQdrant> {
  const collections = new Map<string, Collection>();
  const requests: RecordedRequest[] = [];
  let failures = 0;
  let failureStatus = 500;
  let failOn: { match: (req: RecordedRequest) => boolean; status: number } | null = null;
  let operationId = 0;
  const version = opts.version ?? '1.18.0';

  const need = (name: string): Collection => {
    const c = collections.get(name);
    if (!c) throw new HttpError(404, `Not found: Collection \`${name}\` doesn't exist!`);
    return c;
  };

  const upsertPoints = (c: Collection, body: unknown): void => {
    if (!isRecord(body) || !Array.isArray(body.points)) {
      throw new HttpError(400, 'Format error in JSON body: missing field `points`');
    }
    const parsed: Point[] = [];
    for (const raw of body.points) {
      if (!isRecord(raw)) throw new HttpError(400, 'Format error in JSON body: point must be an object');
      const id = raw.id as string | number;
      pointKey(id);
      const dense = new Map<string, number[][]>();
      const sparse = new Map<string, SparseVector>();
      const vec = raw.vector;
      const entries: [string, unknown][] = Array.isArray(vec) ? [['', vec]] : isRecord(vec) ? Object.entries(vec) : [];
      for (const [name, v] of entries) {
        const dcfg = c.vectors.get(name);
        if (dcfg) {
          const isVector = (x: unknown): x is number[] => Array.isArray(x) && x.every((y) => typeof y === 'number');
          const many = dcfg.multivector_config
            ? Array.isArray(v) && v.length > 0 && v.every(isVector)
              ? v
              : null
            : isVector(v)
              ? [v]
              : null;
          if (!many) {
            throw new HttpError(
              400,
              `Wrong input: vector ${name} must be ${dcfg.multivector_config ? 'a non-empty array of arrays' : 'an array'} of numbers`,
            );
          }
          for (const one of many) {
            if (one.length !== dcfg.size) {
              throw new HttpError(400, `Wrong input: Vector dimension error: expected dim: ${dcfg.size}, got ${one.length}`);
            }
          }
          dense.set(
            name,
            many.map((one) => (dcfg.distance === 'Cosine' ? normalize(one) : one)),
          );
        } else if (c.sparse.has(name)) {
          sparse.set(name, parseSparse(v, `vector ${name}`));
        } else {
          throw new HttpError(400, `Wrong input: Not existing vector name error: ${name}`);
        }
      }
      for (const name of c.vectors.keys()) {
        if (!dense.has(name)) throw new HttpError(400, `Wrong input: Vector ${name} is missing`);
      }
      // A copy: payload operations must not rewrite the recorded request.
      parsed.push({ id, dense, sparse, payload: (isRecord(raw.payload) ? { ...raw.payload } : {}) as Payload });
    }
    for (const p of parsed) c.points.set(pointKey(p.id), p);
  };

  /** The points a PointsSelector names: `{points: [ids]}` or `{filter}`. */
  const selected = (c: Collection, body: unknown): [string, Point][] => {
    if (isRecord(body) && Array.isArray(body.points)) {
      return body.points.flatMap((id) => {
        const p = c.points.get(pointKey(id));
        return p ? [[pointKey(id), p] as [string, Point]] : [];
      });
    }
    if (isRecord(body) && isRecord(body.filter)) return [...c.points].filter(([, p]) => matchFilter(p, body.filter));
    throw new HttpError(400, 'Format error in JSON body: expected `points` or `filter`');
  };

  const deletePoints = (c: Collection, body: unknown): void => {
    for (const [k] of selected(c, body)) c.points.delete(k);
  };

  const deletePayload = (c: Collection, body: unknown): void => {
    if (!isRecord(body) || !Array.isArray(body.keys) || !body.keys.every((k) => typeof k === 'string')) {
      throw new HttpError(400, 'Format error in JSON body: missing field `keys`');
    }
    const keys = body.keys as string[];
    for (const [, p] of selected(c, body)) for (const k of keys) delete p.payload[k];
  };

  const filtered = (c: Collection, filter: unknown): Point[] => [...c.points.values()].filter((p) => matchFilter(p, filter));

  const query = (c: Collection, body: unknown): { points: unknown[] } => {
    if (!isRecord(body)) throw new HttpError(400, 'Format error in JSON body: expected an object');
    const limit = typeof body.limit === 'number' ? body.limit : 10;
    const using = typeof body.using === 'string' ? body.using : '';
    const candidates = filtered(c, body.filter);
    let scored: { p: Point; score: number }[];
    if (Array.isArray(body.query)) {
      const cfg = c.vectors.get(using);
      if (!cfg) throw new HttpError(400, `Wrong input: Not existing vector name error: ${using}`);
      const multi = Array.isArray(body.query[0]);
      if (multi !== Boolean(cfg.multivector_config)) {
        throw new HttpError(400, `Wrong input: ${multi ? 'a multivector query' : 'a single vector query'} for vector ${using}`);
      }
      const queries = (multi ? body.query : [body.query]) as number[][];
      for (const q of queries) {
        if (q.length !== cfg.size) {
          throw new HttpError(400, `Wrong input: Vector dimension error: expected dim: ${cfg.size}, got ${q.length}`);
        }
      }
      const qs = queries.map((q) => (cfg.distance === 'Cosine' ? normalize(q) : q));
      // max_sim: for each query vector its best match among the point's vectors, summed.
      const score = (vs: number[][]): number => qs.reduce((sum, q) => sum + Math.max(...vs.map((v) => dot(v, q))), 0);
      scored = candidates.map((p) => ({ p, score: score(p.dense.get(using) ?? [[]]) }));
    } else if (isRecord(body.query) && 'indices' in body.query) {
      const cfg = c.sparse.get(using);
      if (!cfg) throw new HttpError(400, `Wrong input: Not existing vector name error: ${using}`);
      const q = parseSparse(body.query, 'query');
      // IDF over the whole collection, as Qdrant computes it for `modifier: "idf"`.
      const n = [...c.points.values()].filter((p) => p.sparse.has(using)).length;
      const idf = new Map<number, number>();
      for (const i of q.indices) {
        const df = [...c.points.values()].filter((p) => p.sparse.get(using)?.indices.includes(i)).length;
        idf.set(i, Math.log((n - df + 0.5) / (df + 0.5) + 1));
      }
      scored = [];
      for (const p of candidates) {
        const sv = p.sparse.get(using);
        if (!sv) continue;
        let score = 0;
        let matched = false;
        q.indices.forEach((qi, k) => {
          const at = sv.indices.indexOf(qi);
          if (at < 0) return;
          matched = true;
          const w = (sv.values[at] ?? 0) * (q.values[k] ?? 0);
          score += cfg.modifier === 'idf' ? w * (idf.get(qi) ?? 0) : w;
        });
        if (matched) scored.push({ p, score });
      }
    } else {
      throw new HttpError(400, 'Format error in JSON body: unsupported query');
    }
    scored.sort((a, b) => b.score - a.score || compareIds(a.p, b.p));
    return {
      points: scored.slice(0, limit).map(({ p, score }) => ({
        id: p.id,
        version: 0,
        score,
        payload: pickPayload(p.payload, body.with_payload ?? false),
      })),
    };
  };

  const handle = async (method: string, path: string, body: unknown): Promise<unknown> => {
    if (method === 'GET' && path === '/') return { title: 'qdrant - vector search engine', version, commit: 'fake' };
    const m = /^\/collections\/([^/]+)(\/.*)?$/.exec(path);
    if (!m) throw new HttpError(404, `Not found: ${path}`);
    const name = decodeURIComponent(m[1] ?? '');
    const rest = m[2] ?? '';
    const op = () => ({ operation_id: ++operationId, status: 'completed' });

    if (rest === '/exists' && method === 'GET') return { exists: collections.has(name) };
    if (rest === '') {
      if (method === 'GET') {
        const c = need(name);
        return {
          status: 'green',
          optimizer_status: 'ok',
          points_count: c.points.size,
          indexed_vectors_count: 0,
          segments_count: 1,
          config: {
            params: {
              vectors: Object.fromEntries(c.vectors),
              sparse_vectors: Object.fromEntries(c.sparse),
              shard_number: 1,
              replication_factor: 1,
              write_consistency_factor: 1,
              on_disk_payload: true,
            },
            hnsw_config: { m: 16, ef_construct: 100, full_scan_threshold: 10000 },
            optimizer_config: {},
            metadata: c.metadata,
          },
          payload_schema: c.payloadSchema,
        };
      }
      if (method === 'PUT') {
        if (collections.has(name)) throw new HttpError(409, `Wrong input: Collection \`${name}\` already exists!`);
        if (!isRecord(body)) throw new HttpError(400, 'Format error in JSON body: expected an object');
        const vectors = new Map<string, DenseConfig>();
        const v = body.vectors;
        const addDense = (key: string, cfg: unknown) => {
          if (!isRecord(cfg) || typeof cfg.size !== 'number' || typeof cfg.distance !== 'string') {
            throw new HttpError(400, 'Format error in JSON body: vector params need size and distance');
          }
          const mv = cfg.multivector_config;
          if (mv !== undefined && mv !== null && !(isRecord(mv) && mv.comparator === 'max_sim')) {
            throw new HttpError(400, 'Format error in JSON body: multivector_config.comparator must be max_sim');
          }
          vectors.set(key, {
            size: cfg.size,
            distance: cfg.distance,
            ...(isRecord(mv) ? { multivector_config: { comparator: 'max_sim' as const } } : {}),
          });
        };
        if (isRecord(v) && 'size' in v) addDense('', v);
        else if (isRecord(v)) for (const [k, cfg] of Object.entries(v)) addDense(k, cfg);
        const sparse = new Map<string, { modifier?: string }>();
        if (isRecord(body.sparse_vectors)) {
          for (const [k, cfg] of Object.entries(body.sparse_vectors)) {
            sparse.set(k, isRecord(cfg) && typeof cfg.modifier === 'string' ? { modifier: cfg.modifier } : {});
          }
        }
        collections.set(name, {
          vectors,
          sparse,
          metadata: isRecord(body.metadata) ? (body.metadata as Payload) : null,
          payloadSchema: {},
          points: new Map(),
        });
        return true;
      }
      if (method === 'DELETE') return collections.delete(name);
    }
    const c = need(name);
    if (rest === '/index' && method === 'PUT') {
      if (!isRecord(body) || typeof body.field_name !== 'string') {
        throw new HttpError(400, 'Format error in JSON body: missing field `field_name`');
      }
      const schema = typeof body.field_schema === 'string' ? body.field_schema : 'keyword';
      c.payloadSchema[body.field_name] = { data_type: schema, points: 0 };
      return op();
    }
    if (rest === '/points' && method === 'PUT') {
      upsertPoints(c, body);
      return op();
    }
    if (rest === '/points/delete' && method === 'POST') {
      deletePoints(c, body);
      return op();
    }
    if (rest === '/points/batch' && method === 'POST') {
      // Operations apply in order, as Qdrant applies a batch: one result per operation.
      if (!isRecord(body) || !Array.isArray(body.operations)) {
        throw new HttpError(400, 'Format error in JSON body: missing field `operations`');
      }
      return body.operations.map((operation) => {
        if (!isRecord(operation)) throw new HttpError(400, 'Format error in JSON body: operation must be an object');
        if ('upsert' in operation) upsertPoints(c, operation.upsert);
        else if ('delete' in operation) deletePoints(c, operation.delete);
        else if ('delete_payload' in operation) deletePayload(c, operation.delete_payload);
        else throw new HttpError(400, `Format error in JSON body: unsupported operation ${Object.keys(operation).join(', ')}`);
        return op();
      });
    }
    if (rest === '/points/query' && method === 'POST') return query(c, body);
    if (rest === '/points/count' && method === 'POST') {
      return { count: filtered(c, isRecord(body) ? body.filter : undefined).length };
    }
    if (rest === '/points/scroll' && method === 'POST') {
      const b = isRecord(body) ? body : {};
      const limit = typeof b.limit === 'number' ? b.limit : 10;
      const all = filtered(c, b.filter).sort(compareIds);
      let start = 0;
      if (b.offset !== undefined && b.offset !== null) {
        const key = pointKey(b.offset);
        start = all.findIndex((p) => pointKey(p.id) >= key);
        if (start < 0) start = all.length;
      }
      const page = all.slice(start, start + limit);
      const next = all[start + limit];
      return {
        points: page.map((p) => ({ id: p.id, payload: pickPayload(p.payload, b.with_payload ?? true) })),
        next_page_offset: next ? next.id : null,
      };
    }
    throw new HttpError(404, `Not found: ${method} ${path}`);
  };

  const send = (res: ServerResponse, status: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const server: Server = createServer(async (req, res) => {
    const started = process.hrtime.bigint();
    const time = () => Number(process.hrtime.bigint() - started) / 1e9;
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      const body = await readBody(req);
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body,
      });
      if (opts.apiKey !== undefined && req.headers['api-key'] !== opts.apiKey) {
        res.writeHead(401, { 'content-type': 'text/plain' });
        res.end('Must provide an API key or an Authorization bearer token');
        return;
      }
      const recorded = requests[requests.length - 1];
      if (failOn && recorded && failOn.match(recorded)) {
        const { status } = failOn;
        failOn = null;
        throw new HttpError(status, 'Service internal error: injected failure');
      }
      if (failures > 0) {
        failures--;
        throw new HttpError(failureStatus, 'Service internal error: injected failure');
      }
      const result = await handle(req.method ?? 'GET', url.pathname, body);
      if (url.pathname === '/') send(res, 200, result);
      else send(res, 200, { result, status: 'ok', time: time() });
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      send(res, status, { status: { error: message }, time: time() });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(n, status) {
      failures = n;
      failureStatus = status;
    },
    failWhen(match, status = 500) {
      failOn = { match, status };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
