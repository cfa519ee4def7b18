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
  ];
  it.each(cases)('%s with NO_PROXY=%s → %s', (target, noProxy, bypass) => {
    expect(noProxyMatch(url(target), noProxy) !== undefined).toBe(bypass);
  });
});
