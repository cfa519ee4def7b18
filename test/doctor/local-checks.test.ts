import { describe, expect, it } from 'vitest';
import { checkCaSources } from '../../src/doctor/ca-check.js';
import { checkBaseUrl, checkProxy } from '../../src/doctor/route-checks.js';

describe('the Base URL and Proxy checks', () => {
  it('show origin, path and the https / loopback rule', () => {
    expect(checkBaseUrl('https://feed.example.com/v2').detail).toBe(
      'origin https://feed.example.com, path /v2; https: the key travels encrypted',
    );
    expect(checkBaseUrl('http://localhost:8080').detail).toBe(
      'origin http://localhost:8080, path /; plain http, allowed only because localhost is loopback',
    );
  });

  it('are skipped without a usable base URL, and pass on the proxy decision', () => {
    expect(checkBaseUrl(undefined).status).toBe('skip');
    expect(checkProxy(undefined).status).toBe('skip');
    expect(
      checkProxy({ proxy: 'http://u:p@proxy:3128', reason: 'via http://***@proxy:3128 (from HTTPS_PROXY)' }),
    ).toMatchObject({ status: 'pass', detail: 'via http://***@proxy:3128 (from HTTPS_PROXY)' });
  });
});

describe('the CA check', () => {
  it('counts the default roots and the extra certificates', () => {
    expect(checkCaSources(140, undefined).detail).toBe('140 Node default roots; NODE_EXTRA_CA_CERTS not set');
    expect(checkCaSources(140, { path: '/corp.pem', certificates: 2 })).toMatchObject({
      status: 'pass',
      detail: '140 Node default roots + 2 certificates from NODE_EXTRA_CA_CERTS (/corp.pem)',
    });
  });

  it('fails when Node ignores the file: unreadable or without a certificate', () => {
    const missing = checkCaSources(140, { path: '/nope.pem', error: 'ENOENT' });
    expect(missing.status).toBe('fail');
    expect(missing.detail).toBe(
      'NODE_EXTRA_CA_CERTS=/nope.pem cannot be read (ENOENT), so Node ignores it; 140 Node default roots only',
    );
    expect(missing.fix).toMatch(/^Point NODE_EXTRA_CA_CERTS at a readable PEM file/);
    expect(checkCaSources(140, { path: '/empty.pem', certificates: 0 }).status).toBe('fail');
  });
});
