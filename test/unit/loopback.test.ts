import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { addressBits, bareHost, isLoopbackHost } from '../../src/net/loopback.js';
import { chooseProxy } from '../../src/net/proxy.js';

// Hostnames as `new URL()` gives them, since that is what the base-URL and proxy rules see.
const hostname = (url: string) => new URL(url).hostname;

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.0.0.2',
    '127.255.255.254',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '0::0:1',
    '::1%lo',
    hostname('http://[0:0:0:0:0:0:0:1]:8080'),
    hostname('http://127.1'),
    hostname('http://LocalHost:3000'),
  ])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each([
    // A name under .localhost is resolved like any other name: a resolver or /etc/hosts may send
    // it anywhere, so it must not unlock plain http or skip the proxy.
    'app.localhost',
    'a.b.localhost',
    hostname('http://feed.localhost:8080'),
    'localhost.',
    'localhost.example.com',
    'notlocalhost',
    '128.0.0.1',
    '0.0.0.0',
    '::',
    '[::2]',
    'fe80::1%eth0',
    // IPv4-mapped ::ffff:127.0.0.1 is not on the list the rule names.
    hostname('http://[::ffff:127.0.0.1]'),
    'example.com',
    '',
  ])('%s is not loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('bareHost', () => {
  it('drops the brackets of an IPv6 URL hostname and leaves anything else alone', () => {
    expect(bareHost('[::1]')).toBe('::1');
    expect(bareHost('example.com')).toBe('example.com');
    expect(bareHost('127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('addressBits', () => {
  it.each<[string, bigint | undefined]>([
    ['::1', 1n],
    ['0:0:0:0:0:0:0:1', 1n],
    ['::1%lo', 1n],
    ['::', 0n],
    ['1::', 1n << 112n],
    ['2001:db8::8a2e:370:7334', 0x2001_0db8_0000_0000_0000_8a2e_0370_7334n],
    ['1:2:3:4:5:6:7:8', 0x0001_0002_0003_0004_0005_0006_0007_0008n],
    ['FFFF::', 0xffffn << 112n],
    // IPv4 lands on its IPv4-mapped IPv6 address, so both spellings are one address.
    ['10.0.0.1', 0xffff_0a00_0001n],
    ['::ffff:10.0.0.1', 0xffff_0a00_0001n],
    ['::ffff:a00:1', 0xffff_0a00_0001n],
    ['1:2:3:4:5:6:1.2.3.4', 0x0001_0002_0003_0004_0005_0006_0102_0304n],
    ['example.com', undefined],
    ['[::1]', undefined],
    ['', undefined],
  ])('%s', (address, bits) => {
    expect(addressBits(address)).toBe(bits);
  });
});

describe('the rules built on it', () => {
  it('refuses plain http to a name under .localhost', () => {
    const config = resolveConfig(
      {},
      { MODEL_FEED_API_KEY: 'k'.repeat(20), MODEL_FEED_BASE_URL: 'http://feed.localhost:8080' },
    );
    expect(config.setupError?.message).toContain('clear text');
  });

  it('sends a name under .localhost through the proxy like any other name', () => {
    const settings = { flag: undefined, https: undefined, http: 'http://proxy:3128', noProxy: undefined };
    expect(chooseProxy(new URL('http://feed.localhost:8080'), settings).proxy).toBe('http://proxy:3128');
    expect(chooseProxy(new URL('http://localhost:8080'), settings).proxy).toBeUndefined();
  });
});
