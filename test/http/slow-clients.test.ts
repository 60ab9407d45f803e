import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressKey, startHttpServer, type HttpServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logger.js';
import { createTestApp, type TestApp } from './fixture.js';

/**
 * Hostile slow clients against the real server (issue 45): hundreds of connections that trickle their headers or
 * bodies, re-opened as soon as they are closed, from one loopback address or from many, while another address asks
 * ordinary questions. The timeouts are short so that each scenario takes seconds.
 */

const CAP = 200;
const SHARE = 0.1; // 20 connections per address
const HEADERS_TIMEOUT_MS = 1500;

let t: TestApp;
let s: HttpServer;

beforeAll(async () => {
  t = await createTestApp();
  s = await startHttpServer(t.app.fetch, {
    port: 0,
    hostname: '127.0.0.1',
    maxConnections: CAP,
    perAddressShare: SHARE,
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: 3000,
    keepAliveTimeoutMs: 1000,
    logger: createLogger({ level: 'silent', name: 'test' }),
  });
});
afterAll(async () => {
  await s.drain(1000);
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Style = 'headers' | 'body';

interface Attack {
  /**
   * The most connections of the attack open at once (the attacker's view). A peak, not the count at one moment: the
   * server closes the connections over an address's share at once, so how many are open beyond it at a given instant
   * depends on the machine's load.
   */
  peak(): number;
  stop(): Promise<void>;
}

/**
 * `slots` attacker loops from `addresses`: each opens a connection, sends the start of a request and then one byte
 * every 300 ms, never finishing; when the server closes it, it re-opens (after 50 ms) until stopped.
 */
function attack(addresses: string[], slots: number, style: Style): Attack {
  let stopped = false;
  let open = 0;
  let peak = 0;
  const sockets = new Set<net.Socket>();
  const head =
    style === 'headers'
      ? 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '
      : 'POST /project-documents/metadata HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n{"a":"';
  const slot = async (i: number): Promise<void> => {
    for (let round = 0; round < 1000 && !stopped; round++) {
      await new Promise<void>((resolve) => {
        const socket = net.connect({ port: s.address.port, host: '127.0.0.1', localAddress: addresses[i % addresses.length] });
        sockets.add(socket);
        let drip: NodeJS.Timeout | undefined;
        socket.on('error', () => undefined);
        socket.once('connect', () => {
          open++;
          peak = Math.max(peak, open);
          socket.write(head);
          drip = setInterval(() => !socket.destroyed && socket.write('a'), 300);
        });
        socket.once('close', () => {
          if (drip !== undefined) {
            clearInterval(drip);
            open--;
          }
          sockets.delete(socket);
          resolve();
        });
      });
      await sleep(50);
    }
  };
  const loops = Array.from({ length: slots }, (_, i) => slot(i));
  return {
    peak: () => peak,
    async stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
      await Promise.all(loops);
    },
  };
}

/** One ordinary request on a fresh connection from 127.0.0.1: its status, or 0 when it got no answer within 5 s. */
function ordinaryRequest(): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect({ port: s.address.port, host: '127.0.0.1', localAddress: '127.0.0.1' });
    let text = '';
    const guard = setTimeout(() => socket.destroy(), 5000);
    socket.on('error', () => undefined);
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.once('connect', () => {
      const body = '{"projectId": 5533, "registry": "Verra"}';
      socket.write(
        `POST /project-documents/metadata HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    });
    socket.once('close', () => {
      clearTimeout(guard);
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0));
    });
  });
}

/** `n` ordinary requests, four at a time; how many were answered 200. */
async function ordinaryTraffic(n: number): Promise<number> {
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < n) {
        next++;
        if ((await ordinaryRequest()) === 200) ok++;
      }
    }),
  );
  return ok;
}

/** Runs `slots` attacker loops, lets them fill what they can, then sends 100 ordinary requests meanwhile. */
async function underAttack(
  addresses: string[],
  slots: number,
  style: Style,
): Promise<{ ok: number; attackerPeak: number; held: number; heldByFirst: number }> {
  const a = attack(addresses, slots, style);
  try {
    await sleep(1000);
    const attackerPeak = a.peak();
    const held = s.openConnections();
    const heldByFirst = s.openConnections(addresses[0]);
    const ok = await ordinaryTraffic(100);
    return { ok, attackerPeak, held, heldByFirst };
  } finally {
    await a.stop();
  }
}

describe('slow clients cannot shut others out (issue 45)', () => {
  it('400 slow-header connections from one address hold at most its share; another address is served', async () => {
    const { ok, attackerPeak, held, heldByFirst } = await underAttack(['127.0.0.2'], 400, 'headers');
    expect(attackerPeak).toBeGreaterThan(CAP * SHARE); // the attacker connected far more than it may hold
    expect(heldByFirst).toBeLessThanOrEqual(CAP * SHARE);
    expect(held).toBeLessThanOrEqual(CAP * SHARE + 4);
    expect(ok).toBeGreaterThanOrEqual(90);
  }, 60_000);

  it('400 slow-header connections from 40 addresses fill the cap; the oldest make room, another address is served', async () => {
    const addresses = Array.from({ length: 40 }, (_, i) => `127.0.0.${10 + i}`);
    const { ok, held, heldByFirst } = await underAttack(addresses, 400, 'headers');
    expect(held).toBeGreaterThanOrEqual(CAP - 10); // the cap was really reached
    expect(heldByFirst).toBeLessThanOrEqual(CAP * SHARE);
    expect(ok).toBeGreaterThanOrEqual(90);
  }, 60_000);

  it('400 slow-body connections from 40 addresses fill the cap; another address is served', async () => {
    const addresses = Array.from({ length: 40 }, (_, i) => `127.0.0.${60 + i}`);
    const { ok, held } = await underAttack(addresses, 400, 'body');
    expect(held).toBeGreaterThanOrEqual(CAP - 10);
    expect(ok).toBeGreaterThanOrEqual(90);
  }, 60_000);

  it('is serving normally afterwards', async () => {
    expect(await ordinaryTraffic(8)).toBe(8);
  });
});

describe('addressKey', () => {
  it('counts IPv4 (mapped too) as is and IPv6 by its /64', () => {
    expect(addressKey('127.0.0.2')).toBe('127.0.0.2');
    expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey(undefined)).toBe('?');
  });
});
