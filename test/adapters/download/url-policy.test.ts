import { describe, expect, it } from 'vitest';
import { addressRange, checkUrl, createUrlPolicy, parseHostRule } from '../../../src/adapters/download/url-policy.js';

describe('addressRange', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.7', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fd00::1', 'private'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a00:1', 'private'],
    ['2606:4700::6810:84e5', 'public'],
    ['not-an-ip', 'invalid'],
  ])('%s is %s', (address, range) => {
    expect(addressRange(address)).toBe(range);
  });
});

describe('host rules', () => {
  it('parses host, host:port and [v6]:port, and rejects junk with the entry shown', () => {
    expect(parseHostRule('Registry.Verra.org', true)).toEqual({ host: 'registry.verra.org', port: null, explicit: true });
    expect(parseHostRule('127.0.0.1:8080', true)).toEqual({ host: '127.0.0.1', port: 8080, explicit: true });
    expect(parseHostRule('[::1]:9000', false)).toEqual({ host: '::1', port: 9000, explicit: false });
    expect(() => parseHostRule('http://x', true)).toThrow(/invalid allowed host "http:\/\/x"/);
    expect(() => parseHostRule('x:99999', true)).toThrow(/invalid port/);
  });

  it('matches host and port; a rule without a port allows any port', () => {
    const policy = createUrlPolicy(['mirror.example:8443'], ['registry.verra.org']);
    expect(checkUrl(policy, 'https://registry.verra.org/app/x.pdf').ok).toBe(true);
    expect(checkUrl(policy, 'https://registry.verra.org:444/x.pdf').ok).toBe(true);
    expect(checkUrl(policy, 'https://mirror.example:8443/x.pdf').ok).toBe(true);
    expect(checkUrl(policy, 'https://mirror.example/x.pdf')).toEqual({
      ok: false,
      reason: 'host mirror.example:443 is not in the download allow-list (DOWNLOAD_ALLOW_HOSTS)',
    });
    expect(checkUrl(policy, 'https://verra.org.evil.test/x.pdf').ok).toBe(false);
  });

  it('allows loopback literals only when the operator named them', () => {
    expect(checkUrl(createUrlPolicy(['127.0.0.1:3000']), 'http://127.0.0.1:3000/pdf/a.pdf').ok).toBe(true);
    expect(checkUrl(createUrlPolicy(['[::1]:3000']), 'http://[::1]:3000/pdf/a.pdf').ok).toBe(true);
    const r = checkUrl(createUrlPolicy([], ['127.0.0.1']), 'http://127.0.0.1:3000/a.pdf');
    expect(r.ok).toBe(false);
    // 0.0.0.0 means "this host" to many stacks: never allowed.
    expect(checkUrl(createUrlPolicy(['0.0.0.0:3000']), 'http://0.0.0.0:3000/a.pdf').ok).toBe(false);
  });
});
