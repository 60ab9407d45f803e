import { isIP } from 'node:net';

/**
 * Which document URIs the worker may fetch. URIs come from outside data (registry records), so the worker only
 * talks http(s) to allow-listed hosts, and refuses loopback, private, link-local and other non-public addresses
 * unless the operator named that host explicitly. Pure: callers resolve names and ask again with the address.
 */

/** Hosts that serve the registries' documents; always allowed (public addresses only). */
export const DEFAULT_DOCUMENT_HOSTS: readonly string[] = [
  'registry.verra.org',
  'verra.org',
  'registry.goldstandard.org',
  'cdm.unfccc.int',
  'acr2.apx.com',
  'thereserve2.apx.com',
  'registry.isometric.com',
  'app.regen.network',
];

export interface HostRule {
  /** Lower-case host name or IP literal (IPv6 without brackets). */
  host: string;
  /** null: any port. */
  port: number | null;
  /** Named by the operator: then the host may resolve to loopback or private addresses. */
  explicit: boolean;
}

export interface UrlPolicy {
  rules: HostRule[];
}

export class UrlPolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UrlPolicyError';
  }
}

/** Parses `host` or `host:port` (IPv6 as `[::1]:8080`); throws UrlPolicyError showing the bad entry. */
export function parseHostRule(entry: string, explicit: boolean): HostRule {
  const s = entry.trim().toLowerCase();
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:\s/[\]]+))(?::(\d{1,5}))?$/.exec(s);
  const host = m?.[1] ?? m?.[2];
  if (!m || host === undefined) throw new UrlPolicyError(`invalid allowed host ${JSON.stringify(entry)}: expected host or host:port`);
  if (m[1] !== undefined && isIP(m[1]) !== 6) throw new UrlPolicyError(`invalid IPv6 address in ${JSON.stringify(entry)}`);
  const port = m[3] === undefined ? null : Number(m[3]);
  if (port !== null && (port < 1 || port > 65535)) throw new UrlPolicyError(`invalid port in ${JSON.stringify(entry)}`);
  return { host, port, explicit };
}

/** The default registry hosts plus the operator's DOWNLOAD_ALLOW_HOSTS entries. */
export function createUrlPolicy(extraHosts: readonly string[] = [], defaults: readonly string[] = DEFAULT_DOCUMENT_HOSTS): UrlPolicy {
  return {
    rules: [...defaults.map((h) => parseHostRule(h, false)), ...extraHosts.map((h) => parseHostRule(h, true))],
  };
}

function hostOf(url: URL): string {
  const h = url.hostname.toLowerCase();
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

export type UrlDecision = { ok: true; rule: HostRule; url: URL } | { ok: false; reason: string };

/** Checks scheme, credentials and host allow-list; a literal IP host is also checked for its range. */
export function checkUrl(policy: UrlPolicy, raw: string | URL): UrlDecision {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    return { ok: false, reason: `invalid URL ${JSON.stringify(String(raw).slice(0, 200))}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `scheme ${url.protocol.replace(/:$/, '')} is not allowed (only http and https)` };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'URLs with credentials are not allowed' };
  const host = hostOf(url);
  const port = portOf(url);
  const rule = policy.rules.find((r) => r.host === host && (r.port === null || r.port === port));
  if (!rule) return { ok: false, reason: `host ${host}:${port} is not in the download allow-list (DOWNLOAD_ALLOW_HOSTS)` };
  if (isIP(host) !== 0) {
    const addr = checkAddress(rule, host);
    if (!addr.ok) return addr;
  }
  return { ok: true, rule, url };
}

/** Checks an address a name resolved to (or a literal): non-public ranges need an explicit rule. */
export function checkAddress(rule: HostRule, address: string): { ok: true } | { ok: false; reason: string } {
  const range = addressRange(address);
  if (range === 'public') return { ok: true };
  if (rule.explicit && range !== 'unspecified') return { ok: true };
  return {
    ok: false,
    reason: `address ${address} of host ${rule.host} is ${range}; refused unless the host is named in DOWNLOAD_ALLOW_HOSTS`,
  };
}

export type AddressRange =
  'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'reserved' | 'shared' | 'invalid';

function ipv4ToInt(a: string): number | null {
  const parts = a.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const v = Number(p);
    if (v > 255) return null;
    n = n * 256 + v;
  }
  return n;
}

function inV4(n: number, cidr: string, bits: number): boolean {
  const base = ipv4ToInt(cidr) ?? 0;
  const size = 2 ** (32 - bits);
  return n >= base && n < base + size;
}

function ipv4Range(a: string): AddressRange {
  const n = ipv4ToInt(a);
  if (n === null) return 'invalid';
  if (inV4(n, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(n, '127.0.0.0', 8)) return 'loopback';
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16)) return 'private';
  if (inV4(n, '169.254.0.0', 16)) return 'link-local';
  if (inV4(n, '100.64.0.0', 10)) return 'shared';
  if (inV4(n, '224.0.0.0', 4)) return 'multicast';
  if (
    inV4(n, '240.0.0.0', 4) ||
    inV4(n, '192.0.0.0', 24) ||
    inV4(n, '192.0.2.0', 24) ||
    inV4(n, '198.18.0.0', 15) ||
    inV4(n, '198.51.100.0', 24) ||
    inV4(n, '203.0.113.0', 24)
  ) {
    return 'reserved';
  }
  return 'public';
}

/** Expands an IPv6 address to 8 16-bit groups; null when malformed. */
function ipv6Groups(a: string): number[] | null {
  let s = a.toLowerCase();
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  const lastColon = s.lastIndexOf(':');
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    // Rewrite a dotted IPv4 tail (::ffff:10.0.0.1) as two hex groups.
    const n = ipv4ToInt(maybeV4);
    if (n === null) return null;
    s = `${s.slice(0, lastColon + 1)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (h: string): number[] | null => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0] ?? '');
  const rest = halves.length === 2 ? parse(halves[1] ?? '') : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length;
  if (halves.length === 1 && given !== 8) return null;
  if (given > 8) return null;
  const zeros = new Array<number>(8 - given).fill(0);
  return [...head, ...zeros, ...rest];
}

function ipv6Range(a: string): AddressRange {
  const g = ipv6Groups(a);
  if (g === null || g.length !== 8) return 'invalid';
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const allZeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (allZeroPrefix && g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
  if (allZeroPrefix && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible: judge the embedded IPv4 address.
  if (allZeroPrefix && (g5 === 0xffff || g5 === 0)) {
    return ipv4Range(`${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`);
  }
  // NAT64 (64:ff9b::/96) embeds an IPv4 address too.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return ipv4Range(`${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`);
  }
  if ((g0 & 0xfe00) === 0xfc00) return 'private';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved';
  return 'public';
}

/** Classifies an IP address literal. */
export function addressRange(address: string): AddressRange {
  const v = isIP(address);
  if (v === 4) return ipv4Range(address);
  if (v === 6) return ipv6Range(address);
  return 'invalid';
}
