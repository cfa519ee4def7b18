import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { endpointUrl, parseHttpAddress } from '../../src/http/address.js';
import { allowedAuthorities, hostOrOriginRefusal, isWildcardHost } from '../../src/http/host-check.js';

describe('parseHttpAddress', () => {
  it.each([
    ['8080', { host: '127.0.0.1', port: 8080 }],
    [' 0 ', { host: '127.0.0.1', port: 0 }],
    ['localhost:3000', { host: 'localhost', port: 3000 }],
    ['127.0.0.2:0', { host: '127.0.0.2', port: 0 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['0.0.0.0:80', { host: '0.0.0.0', port: 80 }],
    [':9000', { host: '127.0.0.1', port: 9000 }],
  ])('%s → %o', (raw, expected) => {
    expect(parseHttpAddress(raw)).toEqual(expected);
  });

  it.each(['', 'http', '65536', '127.0.0.1', '::1:8080', 'host:port', '-1', 'http://localhost:80'])(
    'refuses %j with one line naming --http and the form',
    (raw) => {
      expect(() => parseHttpAddress(raw)).toThrow(/^--http must be \[host:\]port .*e\.g\. --http 8080/);
    },
  );
});

describe('parseHttpAddress with --host', () => {
  it.each([
    ['8080', '0.0.0.0', { host: '0.0.0.0', port: 8080 }],
    ['0', ' ::1 ', { host: '::1', port: 0 }],
    ['0', '[::1]', { host: '::1', port: 0 }],
    ['localhost:0', 'LOCALHOST', { host: 'localhost', port: 0 }],
    ['[::1]:0', '0:0::1', { host: '::1', port: 0 }],
    ['127.0.0.1:0', '127.0.0.1', { host: '127.0.0.1', port: 0 }],
  ])('--http %s --host %s → %o', (raw, host, expected) => {
    expect(parseHttpAddress(raw, host)).toEqual(expected);
  });

  it('refuses two different hosts, naming both', () => {
    expect(() => parseHttpAddress('127.0.0.1:8080', '0.0.0.0')).toThrow(
      '--http 127.0.0.1:8080 and --host 0.0.0.0 name different hosts; name the host once, in either.',
    );
  });

  it.each(['', ' ', '127.0.0.1:8080', 'localhost:80', 'http://localhost', 'a b'])(
    'refuses --host %j: an address without a port',
    (host) => {
      expect(() => parseHttpAddress('8080', host)).toThrow(/^--host must be an address or host name/);
    },
  );
});

describe('endpointUrl', () => {
  const at = (address: string, port = 8080): AddressInfo => ({ address, port, family: '' });
  it('prints the bound address, a wildcard as loopback, with the endpoint path', () => {
    expect(endpointUrl(at('127.0.0.1'))).toBe('http://127.0.0.1:8080/api/mcp');
    expect(endpointUrl(at('::1'))).toBe('http://[::1]:8080/api/mcp');
    expect(endpointUrl(at('0.0.0.0'))).toBe('http://127.0.0.1:8080/api/mcp');
    expect(endpointUrl(at('::'))).toBe('http://[::1]:8080/api/mcp');
    expect(endpointUrl(at('::ffff:127.0.0.1'))).toBe('http://127.0.0.1:8080/api/mcp');
  });
});

describe('allowedAuthorities', () => {
  it('loopback names with the bound port, and the bound host itself', () => {
    expect([...allowedAuthorities({ host: '127.0.0.1', port: 5000 })].sort()).toEqual([
      '127.0.0.1:5000',
      '[::1]:5000',
      'localhost:5000',
    ]);
    expect(allowedAuthorities({ host: '192.0.2.7', port: 5000 }).has('192.0.2.7:5000')).toBe(true);
    expect(allowedAuthorities({ host: 'FD00::2', port: 5000 }).has('[fd00::2]:5000')).toBe(true);
  });

  it('a wildcard bind accepts the addresses of every interface', () => {
    const allowed = allowedAuthorities({ host: '0.0.0.0', port: 5000 }, () => ['192.0.2.2', 'fe80::1']);
    expect(allowed.has('192.0.2.2:5000')).toBe(true);
    expect(allowed.has('[fe80::1]:5000')).toBe(true);
    expect(allowed.has('0.0.0.0:5000')).toBe(false);
    expect(isWildcardHost('::')).toBe(true);
    expect(isWildcardHost('[::]')).toBe(true);
    expect(isWildcardHost('::1')).toBe(false);
  });

  it('port 80 is also accepted without the port, as clients send it', () => {
    const allowed = allowedAuthorities({ host: '127.0.0.1', port: 80 });
    expect(allowed.has('localhost')).toBe(true);
    expect(allowed.has('localhost:80')).toBe(true);
  });
});

describe('hostOrOriginRefusal', () => {
  const allowed = allowedAuthorities({ host: '127.0.0.1', port: 5000 });
  const refusal = (host: string | undefined, origin?: string) =>
    hostOrOriginRefusal({ host, origin }, allowed);

  it('accepts each loopback name with the bound port, in any case, with no Origin or a matching one', () => {
    for (const host of ['localhost:5000', '127.0.0.1:5000', '[::1]:5000', 'LOCALHOST:5000']) {
      expect(refusal(host)).toBeUndefined();
      expect(refusal(host, `http://${host}`)).toBeUndefined();
    }
    expect(refusal('127.0.0.1:5000', 'http://localhost:5000')).toBeUndefined();
  });

  it.each([
    ['evil.example', undefined],
    ['evil.example:5000', undefined],
    [undefined, undefined],
    ['localhost:5001', undefined],
    ['localhost', undefined],
    ['127.0.0.1:5000.evil.example', undefined],
  ])('refuses Host %j', (host, origin) => {
    expect(refusal(host, origin)).toMatch(/^Forbidden: Host ".*" is not this local server/);
  });

  it.each([
    'http://evil.example',
    'http://evil.example:5000',
    'http://localhost:3000',
    'https://localhost:5000',
    'null',
    'file://',
    'not a url',
  ])('refuses Origin %j even with a good Host', (origin) => {
    expect(refusal('localhost:5000', origin)).toMatch(/^Forbidden: Origin ".*" is not this local server/);
  });

  it('quotes a long header back clipped', () => {
    const text = refusal(`${'a'.repeat(5000)}.example`) ?? '';
    expect(text.length).toBeLessThan(300);
  });
});
