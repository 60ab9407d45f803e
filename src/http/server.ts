import { readFileSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { AppError, toErrorBody, type ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';

/**
 * The Node HTTP server around the app: a connection cap that slow clients cannot fill (a share per address, and the
 * oldest connection still sending its request given up for a new one), timeouts, JSON error bodies for requests Node
 * refuses before the app sees them, and a drain that answers every request a client got to send.
 */

type FetchCallback = Parameters<typeof getRequestListener>[0];

export interface HttpServerOptions {
  port: number;
  hostname: string;
  /**
   * Open connections at most. At the cap a new connection takes the place of the one the app is not answering (still
   * sending its request, or idle) that has gone longest without an answer; with none, it is closed.
   */
  maxConnections: number;
  /**
   * Share (0-1] of maxConnections one client address (an IPv6 address by its /64) may hold; beyond it a new
   * connection from that address replaces that address's own oldest waiting connection, or is closed.
   */
  perAddressShare: number;
  /** Time to receive a request's headers (Node's headersTimeout). */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** Idle time after a response before a keep-alive connection is closed. */
  keepAliveTimeoutMs: number;
  logger: Logger;
}

export interface HttpServer {
  server: http.Server;
  address: AddressInfo;
  /**
   * Stops accepting connections and resolves once every request already sent has been answered and its connection
   * closed: requests being handled, and requests on connections accepted but not yet read. Connections that carry no
   * request are closed; responses written meanwhile say `Connection: close`. After `graceMs` every connection left is
   * cut; resolves `'forced'` then, else `'drained'`.
   */
  drain(graceMs: number): Promise<'drained' | 'forced'>;
  /** Connections held now, all or those counted against one client address (addressKey). */
  openConnections(address?: string): number;
}

/** During a drain, a connection that has sent nothing at all is given this long to send a request. */
const SILENT_CONNECTION_WAIT_MS = 1000;
/** During a drain, the longest time the connections the kernel has already completed are still accepted. */
const ACCEPT_BACKLOG_MS = 500;
/** Refused and displaced connections are logged at most once this often (with their counts). */
const DROP_LOG_MS = 10_000;
/** How often a drain looks for connections that have become idle. */
const DRAIN_SWEEP_MS = 50;
/** Descriptors kept free beside the connections (the SQLite files, worker threads, logs, outgoing sockets). */
const RESERVED_FDS = 64;

/** The soft limit of open files of this process (Linux), or undefined where it cannot be read. */
export function openFileLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m?.[1] === undefined ? undefined : Number(m[1]);
  } catch {
    return undefined;
  }
}

/** The raw bytes of a JSON error response, for a socket no ServerResponse owns. */
function rawErrorResponse(status: number, reason: string, code: ErrorCode, message: string): string {
  const body = JSON.stringify(toErrorBody(new AppError(code, message)));
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** What to answer for an error Node's HTTP parser (or its timeouts) raised before the app saw a request. */
export function clientErrorResponse(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawErrorResponse(
        431,
        'Request Header Fields Too Large',
        'payload_too_large',
        'the request headers are larger than the limit of 16 kB',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawErrorResponse(408, 'Request Timeout', 'invalid_request', 'the request was not received in time');
    case 'HPE_INVALID_METHOD':
      return rawErrorResponse(400, 'Bad Request', 'invalid_request', 'the request method is not a known HTTP method');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rawErrorResponse(413, 'Payload Too Large', 'payload_too_large', 'the chunk extensions of the request body are too large');
    default: {
      // llhttp's reasons are short fixed texts ("Invalid header value char", "Content-Length can't be present with
      // Transfer-Encoding"); the request's own bytes are never echoed.
      const given = (err as { reason?: unknown }).reason;
      const reason = typeof given === 'string' ? given : 'malformed';
      return rawErrorResponse(400, 'Bad Request', 'invalid_request', `the request is not valid HTTP/1.1: ${reason.slice(0, 200)}`);
    }
  }
}

/**
 * The client a connection is counted against: an IPv4 address (IPv4-mapped IPv6 included) as is, an IPv6 address
 * by its /64 prefix, the block one host is normally given, so one host cannot take the cap by rotating addresses.
 */
export function addressKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || remoteAddress === '') return '?';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped?.[1] !== undefined) return mapped[1];
  if (!remoteAddress.includes(':')) return remoteAddress;
  const [head = '', tail = ''] = remoteAddress.toLowerCase().split('%')[0]?.split('::') ?? [];
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = remoteAddress.includes('::')
    ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

interface Connection {
  socket: Socket;
  /** addressKey of the client. */
  address: string;
  /** Removed from the counts (closed, or displaced and being closed). */
  released: boolean;
  /** The request being received or answered, the latest one when pipelined. */
  request: IncomingMessage | undefined;
  /** Requests received and not yet answered (more than one when pipelined). */
  inFlight: number;
  response: ServerResponse | undefined;
  /** Has answered at least one request. */
  served: boolean;
  /** socket.bytesRead when its last response ended: more bytes read since are a next request arriving. */
  readAtIdle: number;
  acceptedAt: number;
  /** When its last response ended, else when it was accepted. */
  answeredAt: number;
}

/**
 * Starts the server. `fetch` is the app's handler; a request whose target @hono/node-server cannot turn into a URL
 * (`\` in the path, `*`, a bad Host) gets a 400 JSON error instead of its empty 400.
 */
export function startHttpServer(fetch: FetchCallback, opts: HttpServerOptions): Promise<HttpServer> {
  const listener = getRequestListener(fetch, {
    hostname: opts.hostname,
    errorHandler: (err) => {
      const why = err instanceof Error ? err.message : 'malformed request';
      const body = toErrorBody(new AppError('invalid_request', `the request target or Host header is not valid: ${why.slice(0, 200)}`));
      return new Response(JSON.stringify(body), { status: 400, headers: { 'Content-Type': 'application/json' } });
    },
  });
  const server = http.createServer(
    {
      headersTimeout: opts.headersTimeoutMs,
      requestTimeout: opts.requestTimeoutMs,
      keepAliveTimeout: opts.keepAliveTimeoutMs,
      // Node checks the two timeouts above only this often (30 s by default).
      connectionsCheckingInterval: Math.min(1000, opts.headersTimeoutMs),
    },
    listener,
  );
  server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  if (!(opts.perAddressShare > 0 && opts.perAddressShare <= 1)) {
    throw new RangeError(`perAddressShare must be in (0, 1] (got ${opts.perAddressShare})`);
  }
  const fdLimit = openFileLimit();
  let maxConnections = opts.maxConnections;
  if (fdLimit !== undefined && maxConnections > fdLimit - RESERVED_FDS) {
    maxConnections = Math.max(1, fdLimit - RESERVED_FDS);
    opts.logger.warn(
      { configured: opts.maxConnections, openFileLimit: fdLimit, maxConnections },
      'MAX_CONNECTIONS is too close to the open-file limit of this process; lowered (raise `ulimit -n` to allow more)',
    );
  }
  const perAddress = Math.max(1, Math.floor(maxConnections * opts.perAddressShare));

  let draining = false;
  let drainStartedAt = 0;
  const connections = new Map<Socket, Connection>();
  const perAddressCount = new Map<string, number>();

  function release(conn: Connection): void {
    if (conn.released) return;
    conn.released = true;
    connections.delete(conn.socket);
    const n = (perAddressCount.get(conn.address) ?? 1) - 1;
    if (n > 0) perAddressCount.set(conn.address, n);
    else perAddressCount.delete(conn.address);
  }

  /**
   * The connection a new one may replace (of `address` only, when given), or undefined: of those the app is not
   * answering (still sending a request's headers or body, or idle between requests), the one that has gone longest
   * without an answer. A request the app has whole is never cut. Oldest first rather than headers first: the newest
   * connections are mostly clients whose first bytes have not been read yet, and a flood must not displace them.
   */
  function displaceable(address?: string): Connection | undefined {
    let oldest: Connection | undefined;
    for (const conn of connections.values()) {
      if (address !== undefined && conn.address !== address) continue;
      const waiting = conn.inFlight === 0 || (conn.inFlight === 1 && conn.request !== undefined && !conn.request.complete);
      if (waiting && (oldest === undefined || conn.answeredAt < oldest.answeredAt)) oldest = conn;
    }
    return oldest;
  }

  // One line per DROP_LOG_MS at most: a flood of connections must not become a flood of log lines.
  const counts = { refusedPerAddress: 0, refusedFull: 0, displaced: 0 };
  let lastAddress = '';
  let dropLogAt = 0;
  function noteDrop(kind: keyof typeof counts, address: string): void {
    counts[kind]++;
    lastAddress = address;
    const now = Date.now();
    if (now - dropLogAt < DROP_LOG_MS) return;
    dropLogAt = now;
    opts.logger.warn(
      { ...counts, lastAddress, maxConnections, maxConnectionsPerAddress: perAddress },
      'connections refused or displaced: MAX_CONNECTIONS or its per-address share reached',
    );
    counts.refusedPerAddress = counts.refusedFull = counts.displaced = 0;
  }

  let accepted = 0;
  // After Node's own connection listener (registered when the server was created), so a connection refused here is
  // destroyed like any other.
  server.on('connection', (socket: Socket) => {
    accepted++;
    const address = addressKey(socket.remoteAddress);
    // An address at its share competes only with itself: its own oldest waiting connection makes room, or none does.
    const full = (perAddressCount.get(address) ?? 0) >= perAddress;
    if (full || connections.size >= maxConnections) {
      const victim = displaceable(full ? address : undefined);
      if (victim === undefined) {
        noteDrop(full ? 'refusedPerAddress' : 'refusedFull', address);
        socket.destroy();
        return;
      }
      noteDrop('displaced', victim.address);
      release(victim);
      victim.socket.destroy();
    }
    const conn: Connection = {
      socket,
      address,
      released: false,
      request: undefined,
      inFlight: 0,
      response: undefined,
      served: false,
      readAtIdle: 0,
      acceptedAt: Date.now(),
      answeredAt: Date.now(),
    };
    connections.set(socket, conn);
    perAddressCount.set(address, (perAddressCount.get(address) ?? 0) + 1);
    socket.once('close', () => release(conn));
  });
  // Before the app's listener, so a response of a draining server can still be told to close its connection.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const conn = connections.get(req.socket);
    if (conn === undefined) return;
    conn.inFlight++;
    conn.response = res;
    conn.request = req;
    if (draining) res.shouldKeepAlive = false;
    res.once('close', () => {
      conn.inFlight--;
      if (conn.response === res) {
        conn.response = undefined;
        conn.request = undefined;
      }
      conn.served = true;
      conn.readAtIdle = conn.socket.bytesRead;
      conn.answeredAt = Date.now();
      if (draining) closeIfIdle(conn, Date.now());
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node's own handler: answer only where no response has started on this connection.
    const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code !== 'ECONNRESET' && socket.writable && (!pending || !pending.headersSent)) {
      socket.end(clientErrorResponse(err));
      // A client that keeps the connection open after the answer is not waited for.
      setTimeout(() => socket.destroy(), 1000).unref();
    } else {
      socket.destroy();
    }
  });

  // Node hands a CONNECT request to this event and, with no listener, closes the socket unanswered; a client is owed
  // a response.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.end(rawErrorResponse(405, 'Method Not Allowed', 'method_not_allowed', 'CONNECT is not supported: this service is not a proxy'));
    setTimeout(() => socket.destroy(), 1000).unref();
  });

  /** During a drain: closes a connection that carries no request and has not begun sending one. */
  function closeIfIdle(conn: Connection, now: number): void {
    if (conn.inFlight > 0) return;
    if (conn.socket.bytesRead > conn.readAtIdle) return; // a request is arriving: the headers timeout bounds it
    if (!conn.served && now - Math.max(conn.acceptedAt, drainStartedAt) < SILENT_CONNECTION_WAIT_MS) return;
    conn.socket.destroy();
  }

  function drain(graceMs: number): Promise<'drained' | 'forced'> {
    draining = true;
    drainStartedAt = Date.now();
    for (const conn of connections.values()) {
      if (conn.response !== undefined && !conn.response.headersSent) conn.response.shouldKeepAlive = false;
    }
    return new Promise((resolve) => {
      let forced = false;
      const sweep = setInterval(() => {
        const now = Date.now();
        for (const conn of connections.values()) closeIfIdle(conn, now);
      }, DRAIN_SWEEP_MS);
      const force = setTimeout(() => {
        forced = true;
        for (const conn of connections.values()) conn.socket.destroy();
      }, graceMs);
      // Connections the kernel completed before the listening socket closes would be reset by closing it, though
      // their clients have sent their requests (the event loop was busy when the signal came). Node accepts one per
      // turn of the event loop, so the listener stays open until a turn accepts none (at most ACCEPT_BACKLOG_MS).
      let seen = -1;
      const stopListening = (): void => {
        if (accepted !== seen && Date.now() - drainStartedAt < ACCEPT_BACKLOG_MS) {
          seen = accepted;
          setImmediate(stopListening);
          return;
        }
        // net.Server's close, not http.Server's: the latter also destroys every connection with no request in
        // progress, including those whose request has arrived but not yet been read.
        net.Server.prototype.close.call(server, () => {
          clearInterval(sweep);
          clearTimeout(force);
          resolve(forced ? 'forced' : 'drained');
        });
      };
      setImmediate(stopListening);
    });
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.hostname, () => {
      server.off('error', reject);
      const openConnections = (address?: string): number =>
        address === undefined ? connections.size : (perAddressCount.get(addressKey(address)) ?? 0);
      resolve({ server, address: server.address() as AddressInfo, drain, openConnections });
    });
  });
}
