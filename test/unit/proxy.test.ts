import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProxySettings } from '../../src/config.js';
import { chooseProxy, noProxyMatch } from '../../src/net/proxy.js';

const none: ProxySettings = { flag: undefined, https: undefined, http: undefined, noProxy: undefined };
const url = (u: string) => new URL(u);

describe('chooseProxy', () => {
  it('goes direct with no proxy configured', () => {
    expect(chooseProxy(url('https://feed.example.com'), none)).toEqual({
      proxy: undefined,
      reason: 'direct: no proxy configured',
    });
  });

  it('uses HTTPS_PROXY for https, falling back to HTTP_PROXY', () => {
    expect(
      chooseProxy(url('https://a.com'), { ...none, https: 'http://s:1', http: 'http://h:1' }).proxy,
    ).toBe('http://s:1');
    expect(chooseProxy(url('https://a.com'), { ...none, http: 'http://h:1' }).proxy).toBe('http://h:1');
    expect(chooseProxy(url('http://a.com'), { ...none, https: 'http://s:1' }).proxy).toBeUndefined();
  });

  it('lets --proxy win and reports where the proxy came from, without credentials', () => {
    const choice = chooseProxy(url('https://a.com'), {
      ...none,
      flag: 'http://user:secret@f:1',
      https: 'http://s:1',
    });
    expect(choice.proxy).toBe('http://user:secret@f:1');
    expect(choice.reason).toBe('via http://***@f:1 (from --proxy)');
  });

  it('never proxies loopback', () => {
    expect(chooseProxy(url('http://127.0.0.1:3000'), { ...none, http: 'http://h:1' }).reason).toContain(
      'loopback',
    );
  });

  it('honours NO_PROXY and says which entry matched', () => {
    const settings = { ...none, https: 'http://s:1', noProxy: 'internal.corp, .svc' };
    expect(chooseProxy(url('https://feed.internal.corp'), settings)).toEqual({
      proxy: undefined,
      reason: 'direct: NO_PROXY entry "internal.corp" matches feed.internal.corp',
    });
    expect(chooseProxy(url('https://example.com'), settings).proxy).toBe('http://s:1');
  });
});

describe('noProxyMatch', () => {
  const cases: Array<[string, string, boolean]> = [
    ['https://a.example.com', '*', true],
    ['https://example.com', 'example.com', true],
    ['https://a.example.com', 'example.com', true],
    ['https://notexample.com', 'example.com', false],
    ['https://example.com', '.example.com', false],
    ['https://a.example.com', '.example.com', true],
    ['https://a.example.com', '*.example.com', true],
    ['https://example.com:8443', 'example.com:8443', true],
    ['https://example.com', 'example.com:8443', false],
    ['https://example.com', 'example.com:443', true],
    ['https://10.0.0.5', '10.0.0.5', true],
    ['https://[::1]:8080', '[::1]:8080', true],
    ['https://EXAMPLE.com', 'Example.COM', true],
    ['https://example.com', '', false],
    ['https://example.com', 'other.com,,  example.com', true],
    ['https://10.0.0.5', '10.0.0.6', false],
    ['https://10.0.0.5:8080', '10.0.0.5:8080', true],
    ['https://10.0.0.5', '10.0.0.5:8080', false],
  ];
  it.each(cases)('%s with NO_PROXY=%s → %s', (target, noProxy, bypass) => {
    expect(noProxyMatch(url(target), noProxy) !== undefined).toBe(bypass);
  });

  // As curl and Go: a range matches a target written as an IP literal, never a name (no DNS).
  const ranges: Array<[string, string, boolean]> = [
    ['https://10.1.2.3', '10.0.0.0/8', true],
    ['https://10.255.255.255:8443', '10.0.0.0/8', true],
    ['https://11.0.0.1', '10.0.0.0/8', false],
    ['https://192.168.1.77', '192.168.1.0/24', true],
    ['https://192.168.2.1', '192.168.1.0/24', false],
    ['https://[fd12:3456::1]', 'fd00::/8', true],
    ['https://[fe80::1]', 'fd00::/8', false],
    ['https://[::1]:8080', '::1/128', true],
    ['https://[::2]', '::1/128', false],
    ['https://10.9.9.9', '10.0.0.5/8', true],
    // An IPv4-mapped target is that IPv4 address, as Go's net.IPNet sees it.
    ['https://[::ffff:10.0.0.1]', '10.0.0.0/8', true],
    ['https://10.0.0.1', 'fd00::/8', false],
    ['https://intranet.corp', '10.0.0.0/8', false],
    ['https://10.0.0.1', 'example.com, 10.0.0.0/8', true],
    // Not a range: ignored, never thrown.
    ['https://10.0.0.1', '10.0.0.0/33', false],
    ['https://[::1]', '::1/129', false],
    ['https://10.0.0.1', 'intranet/8', false],
  ];
  it.each(ranges)('%s with NO_PROXY=%s → %s (range)', (target, noProxy, bypass) => {
    expect(noProxyMatch(url(target), noProxy) !== undefined).toBe(bypass);
  });

  const ipv6: Array<[string, string, boolean]> = [
    ['https://[::1]', '::1', true],
    ['https://[::1]:8080', '::1', true],
    ['https://[2001:db8::1]', '2001:db8::1', true],
    ['https://[2001:db8::2]', '2001:db8::1', false],
    ['https://[2001:db8::1]', '2001:DB8:0:0:0:0:0:1', true],
    ['https://[::1]', '[::1]', true],
    ['https://[::1]:8080', '[::1]', true],
    ['https://[::1]', '[::1]:443', true],
    ['https://[::1]:9090', '[::1]:8080', false],
    ['https://[2001:db8::1]:8080', '[2001:db8:0::1]:8080', true],
  ];
  it.each(ipv6)('%s with NO_PROXY=%s → %s (IPv6)', (target, noProxy, bypass) => {
    expect(noProxyMatch(url(target), noProxy) !== undefined).toBe(bypass);
  });

  // A trailing dot only marks a name as absolute; it is the same host either way.
  const trailingDots: Array<[string, string, boolean]> = [
    ['https://example.com', 'example.com.', true],
    ['https://example.com.', 'example.com', true],
    ['https://example.com.', 'example.com.', true],
    ['https://a.example.com.', 'example.com', true],
    ['https://a.example.com.', '.example.com', true],
    ['https://a.example.com', '.example.com.', true],
    ['https://a.example.com', '*.example.com.', true],
    ['https://example.com.', '.example.com', false],
    ['https://example.com.:8443', 'example.com:8443', true],
    ['https://example.com', 'example.com.:443', true],
    ['https://example.com', 'example.com.:8443', false],
    ['https://notexample.com.', 'example.com', false],
    ['https://example.com', '.', false],
  ];
  it.each(trailingDots)('%s with NO_PROXY=%s → %s (trailing dot)', (target, noProxy, bypass) => {
    expect(noProxyMatch(url(target), noProxy) !== undefined).toBe(bypass);
  });

  it('says which entry matched, as written apart from case', () => {
    expect(noProxyMatch(url('https://10.1.2.3'), 'example.com, 10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(noProxyMatch(url('https://[::1]'), 'Example.com ::1')).toBe('::1');
  });
});

describe('noProxyMatch on careless settings', () => {
  // NO_PROXY is copied between machines by hand; a bad entry must never stop the runner.
  const piece = fc.constantFrom(
    ...'0123456789abcdef:./[]%*, '.split(''),
    '::',
    '/8',
    '/129',
    '/999',
    'eth0',
    'example.com',
    '::ffff:',
  );
  const targets = ['https://[::1]', 'https://10.0.0.1:8443', 'https://[fe80::1]', 'https://example.com.'];
  it('never throws, whatever the entries', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), fc.constantFrom(...targets), (pieces, target) => {
        const matched = noProxyMatch(url(target), pieces.join(''));
        expect(matched === undefined || typeof matched === 'string').toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
