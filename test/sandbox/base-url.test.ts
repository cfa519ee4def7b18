import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { isLoopbackHost } from '../../src/net/loopback.js';
import { baseUrl, startSandbox } from '../../src/sandbox/service.js';

const bound = (address: string, port = 4000): AddressInfo => ({
  address,
  port,
  family: address.includes(':') ? 'IPv6' : 'IPv4',
});

describe('baseUrl', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:4000'],
    ['::1', 'http://[::1]:4000'],
    // An IPv6 socket reports an IPv4 peer or bind address as IPv4-mapped; clients want the IPv4.
    ['::ffff:127.0.0.1', 'http://127.0.0.1:4000'],
    ['::FFFF:127.0.0.5', 'http://127.0.0.5:4000'],
    ['::ffff:192.168.1.10', 'http://192.168.1.10:4000'],
    // Wildcards are reachable on loopback, so that is what a client is told to use.
    ['0.0.0.0', 'http://127.0.0.1:4000'],
    ['::', 'http://[::1]:4000'],
    ['::ffff:0.0.0.0', 'http://127.0.0.1:4000'],
    ['192.168.1.10', 'http://192.168.1.10:4000'],
    ['fd00::5', 'http://[fd00::5]:4000'],
  ])('bound to %s prints %s', (address, url) => {
    expect(baseUrl(bound(address))).toBe(url);
  });
});

describe('a sandbox bound to an IPv4-mapped address', () => {
  it('prints a loopback base URL that the runner accepts and that answers', async () => {
    const sandbox = await startSandbox({ host: '::ffff:127.0.0.1' });
    try {
      expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(isLoopbackHost(new URL(sandbox.url).hostname)).toBe(true);
      const config = resolveConfig({}, { MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
      expect(config.setupError).toBeUndefined();
      const response = await fetch(`${sandbox.url}/api/v1/models?limit=1`, {
        headers: { authorization: `Bearer ${sandbox.key}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await sandbox.close();
    }
  });
});
