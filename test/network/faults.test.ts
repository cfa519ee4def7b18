/**
 * The resilience contract over real sockets, with the production fetch on both of its paths:
 * direct (node:http) and through a forwarding proxy (the same client over CONNECT tunnels), against
 * a scripted loopback server.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiClient, type FeedApi } from '../../src/api/client.js';
import { MAX_CONCURRENT_REQUESTS } from '../../src/api/http.js';
import { describeError, unavailableReason } from '../../src/describe-error.js';
import { AbortedError, type RateLimitError, UnexpectedResponseError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { createNetworkFetch, type NetworkFetch } from '../../src/net/fetch.js';
import { failure } from '../fixtures.js';
import { type FaultServer, json, startFaultServer } from '../support/fault-server.js';
import { startProxy, type TestProxy } from '../support/proxy.js';

const KEY = 'mfsk_faults_0123456789abcdef';
const page = { items: [], nextCursor: null, latest: null };

let server: FaultServer;
let proxy: TestProxy;
let network: NetworkFetch;
let proxyUrl: string | undefined;

beforeAll(async () => {
  server = await startFaultServer((_req, res) => json(res, 200, page));
  proxy = await startProxy({ hosts: { '127.0.0.1': '127.0.0.1' } });
});
afterEach(async () => {
  await network?.close();
});
afterAll(async () => {
  await Promise.all([server.close(), proxy.close()]);
});

function api(timeoutMs = 5000, now?: () => number, maxConcurrent?: number): FeedApi {
  network = createNetworkFetch(proxyUrl, MAX_CONCURRENT_REQUESTS);
  return createApiClient({
    baseUrl: server.url,
    apiKey: KEY,
    fetch: network.fetch,
    userAgent: 'test',
    timeoutMs,
    describeUnavailable: unavailableReason,
    cacheTtlMs: 0,
    proxyLabel: proxyUrl,
    log: silentLogger,
    ...(now && { now }),
    ...(maxConcurrent && { maxConcurrent }),
  });
}

/** "via proxy <url>" where the route has one: every failure names the proxy in use. */
const via = () => (proxyUrl ? ` via proxy ${proxyUrl.replaceAll('.', '\\.')}` : '');

describe.each(['direct', 'through a proxy'])('faults over real sockets, %s', (route) => {
  beforeAll(() => {
    proxyUrl = route === 'direct' ? undefined : proxy.url;
  });

  const malformed: [string, string][] = [
    ['two different Content-Lengths', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
    ['20 KB of headers', `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`],
    ['a broken status line', 'HTTP/1.1 OK fine\r\n\r\n'],
    ['an unasked-for 101', 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n'],
  ];
  for (const [name, raw] of malformed) {
    it(`${name}: a protocol error from the service, not retried, not "could not reach"`, async () => {
      server.setHandler((req) => {
        req.socket.end(raw);
      });
      const error = await failure(api().listChanges({}));
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      const text = describeError(error);
      expect(text).toMatch(/^Unexpected response from the service at .*malformed HTTP from the service/);
      expect(text).not.toMatch(/could not reach/i);
      expect(server.requests).toHaveLength(1);
    });
  }

  it('503 twice then 200: one successful result', async () => {
    server.setHandler((_req, res, attempt) =>
      attempt < 3 ? json(res, 503, { error: 'busy' }) : json(res, 200, { ...page, latest: 7 }),
    );
    await expect(api().listChanges({})).resolves.toMatchObject({ latest: 7 });
    expect(server.requests).toHaveLength(3);
  });

  it('a reset on every attempt: an error naming the reset and the attempts', async () => {
    server.setHandler((req) => {
      req.socket.resetAndDestroy();
    });
    const error = await failure(api().listChanges({}));
    expect(describeError(error)).toMatch(
      new RegExp(
        `^Could not reach 127\\.0\\.0\\.1:\\d+${via()}: connection (reset|closed by the other side) \\((ECONNRESET|UND_ERR_SOCKET)\\), after 3 attempts\\.`,
      ),
    );
    expect(server.requests).toHaveLength(3);
  });

  it('a hung upstream with a 1 s timeout: an error, not a hang', async () => {
    server.setHandler(() => new Promise(() => {}));
    const started = performance.now();
    const error = await failure(api(1000).listChanges({}));
    // A bound on a hang: the upstream never answers of itself.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(describeError(error)).toMatch(
      new RegExp(`^No answer from 127\\.0\\.0\\.1:\\d+${via()} within 1000 ms \\(1 attempt\\)\\.`),
    );
  });

  it('a call queued behind slow ones is bounded by the same timeout; a cancelled one is never sent', async () => {
    server.setHandler(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      json(res, 200, page);
    });
    // One request at a time: the second call waits 600 ms for the first, then has 400 ms left.
    const client = api(1000, undefined, 1);
    const cancel = new AbortController();
    const started = performance.now();
    const [first, cancelled, queued] = await Promise.all([
      client.listChanges({ since: 1 }),
      failure(client.listChanges({ since: 2 }, cancel.signal)),
      failure(client.listChanges({ since: 3 })),
      Promise.resolve().then(() => cancel.abort()),
    ]);
    // A bound on a hang: the upstream never answers of itself.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(first).toMatchObject({ items: [] });
    expect(cancelled).toBeInstanceOf(AbortedError);
    expect(describeError(queued)).toMatch(
      /^No answer from 127\.0\.0\.1:\d+.* within 1000 ms \(1 attempt\)\./,
    );
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/changes?since=1', '/api/v1/changes?since=3']);
  });

  it('a stall mid-body is bounded by the same timeout', async () => {
    server.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"items": [');
    });
    const started = performance.now();
    const error = await failure(api(1000).listChanges({}));
    // A bound on a hang: the upstream never answers of itself.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(describeError(error)).toContain('No answer from');
  });

  it('not JSON: "unexpected response"', async () => {
    server.setHandler((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Sign in to the proxy</h1>');
    });
    const error = await failure(api().listChanges({}));
    expect(describeError(error)).toMatch(
      new RegExp(
        `^Unexpected response from the service at 127\\.0\\.0\\.1:\\d+${via()}: not JSON \\(text/html\\): <h1>Sign in`,
      ),
    );
  });

  it('a 64 MiB body: an error, read no further than the 10 MiB cap', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    server.setHandler(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 64 && !res.destroyed; i++) {
        if (!res.write(chunk)) {
          // Both listeners go once either fires: a 'close' listener left per drain adds up to a
          // MaxListenersExceededWarning over 64 writes.
          await new Promise<void>((resolve) => {
            const done = (): void => {
              res.off('drain', done).off('close', done);
              resolve();
            };
            res.once('drain', done).once('close', done);
          });
        }
        sent += chunk.length;
      }
      res.end();
    });
    const before = process.memoryUsage();
    const error = await failure(api().listChanges({}));
    const after = process.memoryUsage();
    expect(describeError(error)).toContain('the body is larger than 10 MiB; refused');
    // The client hung up instead of reading on: the server never got to send all 64 MiB (socket
    // and proxy buffers can hold several MiB ahead of a slow reader, so the body is much larger than
    // the cap).
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    await vi.waitFor(() => expect(server.abandoned).toBe(1));
    expect(after.arrayBuffers + after.heapUsed - (before.arrayBuffers + before.heapUsed)).toBeLessThan(
      40 * 1024 * 1024,
    );
  });

  it('bodies left unread (oversized, redirects) free their connection: the pool never runs dry', async () => {
    // More such answers than there are pooled connections (6); each must end at once, and a normal
    // call after them must still get a connection.
    server.setHandler((req, res) => {
      if (req.url?.includes('model=big')) {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': String(11 * 1024 * 1024),
        });
        res.write('{"items": [');
      } else if (!req.url?.includes('moved=1')) {
        res.writeHead(302, { location: `${req.url}&moved=1`, 'content-type': 'text/plain' }).end('see there');
      } else {
        json(res, 200, page);
      }
    });
    const client = api(2000);
    const started = performance.now();
    for (let since = 1; since <= 8; since++) {
      const error = await failure(client.listChanges({ since, model: 'big' }));
      expect(describeError(error)).toContain('the body is larger than 10 MiB; refused');
    }
    for (let since = 1; since <= 8; since++) {
      await expect(client.listChanges({ since })).resolves.toMatchObject({ items: [] });
    }
    // A bound on a hang: a connection held by an unread body is never given back.
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('429: reported with the retry time; no further request reaches the service before retry-after', async () => {
    let now = Date.parse('2026-11-22T23:59:00Z');
    server.setHandler((_req, res) =>
      json(
        res,
        429,
        { error: 'daily limit' },
        {
          'retry-after': '60',
          'x-ratelimit-limit': '1000',
          'x-ratelimit-remaining': '0',
          'x-service-tier': 'free',
        },
      ),
    );
    const client = api(5000, () => now);
    expect(describeError(await failure(client.listChanges({})))).toBe(
      'Daily limit reached for the free tier (1000 calls per day). Retry in 60 s, at 2026-11-23T00:00:00Z. Higher limits are raised on request.',
    );
    for (const call of [
      () => client.listChanges({}),
      () => client.listModels({}),
      () => client.getPriceHistory('a/b'),
    ]) {
      now += 10_000;
      expect(describeError(await failure(call()))).toContain('No request was sent');
    }
    expect(server.requests).toHaveLength(1);
    now += 31_000;
    server.setHandler((_req, res) => json(res, 200, page));
    await expect(client.listChanges({})).resolves.toMatchObject({ items: [] });
  });

  it('a 500: the status, the host, the attempts and the proxy in use', async () => {
    server.setHandler((_req, res) => json(res, 500, { error: 'database down' }));
    const error = await failure(api().listChanges({}));
    expect(describeError(error)).toMatch(
      new RegExp(
        `^The service failed: HTTP 500 from 127\\.0\\.0\\.1:\\d+${via()} for /api/v1/changes, after 1 attempt\\. It said: "database down"\\.`,
      ),
    );
  });

  it('a 429 stops the calls queued behind it too: none reaches the service before retry-after', async () => {
    server.setHandler(async (_req, res) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      json(res, 429, { error: 'daily limit' }, { 'retry-after': '3600', 'x-service-tier': 'free' });
    });
    // One request at a time: the second and third calls wait in the queue while the first gets its
    // 429. (Different queries: identical ones would share the first request.)
    const client = api(5000, undefined, 1);
    const errors = await Promise.all([1, 2, 3].map((since) => failure(client.listChanges({ since }))));
    expect(server.requests).toHaveLength(1);
    expect(errors.map((e) => (e as RateLimitError).fromMemory)).toEqual([false, true, true]);
  });

  it('reuses keep-alive connections instead of opening one per call', async () => {
    server.setHandler((_req, res) => json(res, 200, page));
    const client = api();
    for (let i = 0; i < 20; i++) await client.listChanges({ since: i });
    // A second socket may open while the first is being released; never one per call.
    expect(new Set(server.requests.map((r) => r.socket.remotePort)).size).toBeLessThanOrEqual(2);
  });
});

describe('tunnels through a proxy', () => {
  beforeAll(() => {
    proxyUrl = proxy.url;
  });

  it('keeps one tunnel open across calls: one CONNECT for many requests', async () => {
    server.setHandler((_req, res) => json(res, 200, page));
    const before = proxy.connects.length;
    const sent = server.requests.length;
    const client = api();
    for (let i = 0; i < 5; i++) await client.listChanges({ since: i });
    expect(proxy.connects.length - before).toBe(1);
    expect(server.requests).toHaveLength(sent + 5);
  });

  it('a proxy that refuses the tunnel: the error names the proxy and its answer', async () => {
    const refusing = await startProxy({ hosts: {} });
    proxyUrl = refusing.url;
    const sent = server.requests.length;
    try {
      const error = await failure(api().listChanges({}));
      expect(describeError(error)).toMatch(
        /via proxy http:\/\/127\.0\.0\.1:\d+: the proxy refused the tunnel/,
      );
      expect(describeError(error)).toContain('502 Bad Gateway');
      expect(refusing.connects.map((c) => c.target)).toContain(new URL(server.url).host);
      expect(server.requests).toHaveLength(sent);
    } finally {
      proxyUrl = proxy.url;
      await network.close();
      await refusing.close();
    }
  });

  it('a proxy that never answers CONNECT: the call ends at its timeout, and closing frees the socket', async () => {
    const { createServer } = await import('node:net');
    const held = new Set<import('node:net').Socket>();
    const silent = createServer((socket) => {
      held.add(socket);
      // Read (and drop) what arrives, so the other side's close is seen.
      socket.resume();
      socket.on('error', () => {});
      socket.once('close', () => held.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(silent.address() as import('node:net').AddressInfo).port}`;
    try {
      const error = await failure(api(300).listChanges({}));
      expect(describeError(error)).toMatch(/no answer|timed out|timeout/i);
      await network.close();
      // Well before the tunnel's own 10 s limit would end it: close() is what ends it.
      await vi.waitFor(() => expect(held.size).toBe(0), { timeout: 5_000 });
    } finally {
      proxyUrl = proxy.url;
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 20_000);
});
