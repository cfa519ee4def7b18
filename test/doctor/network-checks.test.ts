import type { Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { type NetworkPlan, type Probes, runNetworkChecks } from '../../src/doctor/network-checks.js';
import { planRoute } from '../../src/doctor/route.js';
import { AuthError } from '../../src/errors.js';
import type { ProxyChoice } from '../../src/net/proxy.js';
import { StepTimeoutError, TunnelRefusedError } from '../../src/net/tunnel.js';

const DIRECT = { proxy: undefined, reason: 'direct: no proxy configured' };
const PROXIED = {
  proxy: 'http://alice:s3cret@127.0.0.1:3128',
  reason: 'via http://***@127.0.0.1:3128 (from HTTPS_PROXY)',
};

function coded(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

function fakeProbes(overrides: Partial<Probes> = {}) {
  const socket = { destroy: vi.fn() } as unknown as Socket;
  const probes: Probes = {
    lookupHost: vi.fn(async () => ['192.0.2.7']),
    openTcp: vi.fn(async () => socket),
    openTunnel: vi.fn(async (s: Socket) => s),
    handshake: vi.fn(async () => ({ issuer: 'Example CA', protocol: 'TLSv1.3' })),
    ...overrides,
  };
  return { probes, socket };
}

const rateLimit = { limit: 1000, remaining: 998, tier: 'free', observedAt: '2025-01-01T00:00:00Z' };

function plan(
  baseUrl: string,
  overrides: Partial<NetworkPlan> = {},
  choice: ProxyChoice = DIRECT,
): NetworkPlan {
  return {
    route: planRoute(baseUrl, choice),
    baseUrlSetting: undefined,
    timeoutMs: 1000,
    authenticate: async () => ({ changes: 1, rateLimit }),
    ...overrides,
  };
}

const summary = (checks: { id: string; status: string }[]) => checks.map((c) => `${c.id}:${c.status}`);

describe('planRoute', () => {
  it('connects to the service directly, or to the proxy with the service as CONNECT target', () => {
    expect(planRoute('https://feed.example.com/base', DIRECT)).toEqual({
      service: { host: 'feed.example.com', port: 443, authority: 'feed.example.com:443', https: true },
      proxy: undefined,
      connect: { host: 'feed.example.com', port: 443 },
    });
    const proxied = planRoute('https://[2001:db8::1]:8443', PROXIED);
    expect(proxied.service).toMatchObject({ host: '2001:db8::1', authority: '[2001:db8::1]:8443' });
    expect(proxied.connect).toEqual({ host: '127.0.0.1', port: 3128 });
    expect(proxied.proxy?.label).toBe('http://***@127.0.0.1:3128');
  });
});

describe('runNetworkChecks', () => {
  it('runs DNS, TCP, TLS, authentication and the rate limit, and closes the socket', async () => {
    const { probes, socket } = fakeProbes();
    const checks = await runNetworkChecks(plan('https://feed.example.com'), probes);
    expect(summary(checks)).toEqual(['dns:pass', 'tcp:pass', 'tls:pass', 'auth:pass', 'rate-limit:pass']);
    expect(checks[0]?.detail).toBe('feed.example.com → 192.0.2.7');
    expect(checks[2]?.detail).toBe(
      'certificate of feed.example.com verified, issued by Example CA (TLSv1.3)',
    );
    expect(checks[4]?.detail).toBe('tier free: 998 of 1000 calls left today');
    expect(checks.slice(0, 4).every((c) => typeof c.ms === 'number')).toBe(true);
    expect(probes.handshake).toHaveBeenCalledWith(socket, 'feed.example.com', 1000);
    expect(socket.destroy).toHaveBeenCalled();
  });

  it('has no TLS step for plain http (loopback only)', async () => {
    const { probes } = fakeProbes();
    const checks = await runNetworkChecks(plan('http://127.0.0.1:8080'), probes);
    expect(summary(checks)).toEqual(['dns:pass', 'tcp:pass', 'auth:pass', 'rate-limit:pass']);
  });

  it('skips every later step once DNS fails, naming DNS', async () => {
    const { probes } = fakeProbes({ lookupHost: vi.fn(async () => Promise.reject(coded('ENOTFOUND'))) });
    const checks = await runNetworkChecks(plan('https://feed.example.com'), probes);
    expect(summary(checks)).toEqual(['dns:fail', 'tcp:skip', 'tls:skip', 'auth:skip', 'rate-limit:skip']);
    expect(checks[0]).toMatchObject({
      detail: 'feed.example.com: DNS lookup failed: the host name does not resolve (ENOTFOUND)',
    });
    expect(checks[0]?.fix).toMatch(/MODEL_FEED_BASE_URL \(--base-url\).*HTTPS_PROXY/);
    expect(checks[1]?.detail).toBe('skipped: DNS failed');
    expect(probes.openTcp).not.toHaveBeenCalled();
  });

  it('names the setting the base URL came from in each fix', async () => {
    const { probes } = fakeProbes({ lookupHost: vi.fn(async () => Promise.reject(coded('ENOTFOUND'))) });
    const byFlag = await runNetworkChecks(
      plan('https://feed.example.com', { baseUrlSetting: '--base-url' }),
      probes,
    );
    expect(byFlag[0]?.fix).toBe(
      'Check the host name in --base-url. If this network reaches the internet only through a proxy, set HTTPS_PROXY (or --proxy) to it.',
    );
    const { probes: quiet } = fakeProbes();
    const byEnv = await runNetworkChecks(
      plan('http://127.0.0.1:9', {
        baseUrlSetting: 'MODEL_FEED_BASE_URL',
        authenticate: async () => ({ changes: 1, rateLimit: undefined }),
      }),
      quiet,
    );
    expect(byEnv.at(-1)?.fix).toBe(
      'Check that MODEL_FEED_BASE_URL points at the Model Change Feed Service itself, not a gateway that drops headers.',
    );
  });

  it('names a refused connection and skips the rest', async () => {
    const { probes } = fakeProbes({ openTcp: vi.fn(async () => Promise.reject(coded('ECONNREFUSED'))) });
    const checks = await runNetworkChecks(plan('http://127.0.0.1:9'), probes);
    expect(summary(checks)).toEqual(['dns:pass', 'tcp:fail', 'auth:skip', 'rate-limit:skip']);
    expect(checks[1]?.detail).toBe('127.0.0.1:9: connection refused (ECONNREFUSED)');
    expect(checks[2]?.detail).toBe('skipped: TCP failed');
  });

  it('through a proxy: resolves and connects to the proxy, tunnels to the service', async () => {
    const { probes, socket } = fakeProbes();
    const checks = await runNetworkChecks(plan('https://feed.internal.test', {}, PROXIED), probes);
    expect(summary(checks)).toEqual(['dns:pass', 'tcp:pass', 'tls:pass', 'auth:pass', 'rate-limit:pass']);
    expect(probes.lookupHost).toHaveBeenCalledWith('127.0.0.1', 1000);
    expect(checks[0]?.detail).toBe(
      'proxy 127.0.0.1 → 192.0.2.7; feed.internal.test itself is resolved by the proxy',
    );
    expect(checks[1]?.detail).toBe('connected to the proxy 127.0.0.1:3128');
    expect(probes.openTunnel).toHaveBeenCalledWith(
      socket,
      new URL(PROXIED.proxy),
      'feed.internal.test:443',
      1000,
    );
    expect(checks[2]?.detail).toMatch(/, through a CONNECT tunnel via http:\/\/\*\*\*@127\.0\.0\.1:3128$/);
  });

  it('a proxy that wants credentials: says to put them in the proxy URL', async () => {
    const { probes } = fakeProbes({
      openTunnel: vi.fn(async () =>
        Promise.reject(new TunnelRefusedError(407, 'HTTP/1.1 407 Proxy Authentication Required')),
      ),
    });
    const checks = await runNetworkChecks(plan('https://feed.internal.test', {}, PROXIED), probes);
    expect(checks[2]).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('refused the tunnel to feed.internal.test:443'),
      fix: expect.stringMatching(/asked for authentication \(407\).*http:\/\/user:password@proxy:port/),
    });
    expect(JSON.stringify(checks)).not.toContain('s3cret');
  });

  it('a proxy that never answers CONNECT: blames the tunnel, not the service', async () => {
    const { probes } = fakeProbes({
      openTunnel: vi.fn(async () => Promise.reject(new StepTimeoutError(1000))),
    });
    const checks = await runNetworkChecks(plan('https://feed.internal.test', {}, PROXIED), probes);
    expect(checks[2]).toMatchObject({
      status: 'fail',
      detail:
        'CONNECT to feed.internal.test:443 via http://***@127.0.0.1:3128 failed: connection timed out (ETIMEDOUT)',
    });
    expect(probes.handshake).not.toHaveBeenCalled();
  });

  it('a certificate error: names the problem and NODE_EXTRA_CA_CERTS, as a tool call would', async () => {
    const { probes } = fakeProbes({
      handshake: vi.fn(async () =>
        Promise.reject(coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate')),
      ),
    });
    const checks = await runNetworkChecks(plan('https://feed.example.com'), probes);
    expect(checks[2]?.detail).toBe(
      'certificate of feed.example.com not accepted: unable to verify the first certificate (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    );
    expect(checks[2]?.fix).toMatch(
      /^TLS certificate problem connecting to feed\.example\.com:443: .*NODE_EXTRA_CA_CERTS/,
    );
    expect(summary(checks).slice(3)).toEqual(['auth:skip', 'rate-limit:skip']);
  });

  it('without a key, checks the connection but not the key', async () => {
    const { probes } = fakeProbes();
    const checks = await runNetworkChecks(
      plan('https://feed.example.com', { authenticate: undefined }),
      probes,
    );
    expect(summary(checks)).toEqual(['dns:pass', 'tcp:pass', 'tls:pass', 'auth:skip', 'rate-limit:skip']);
    expect(checks[3]?.detail).toBe('skipped: no API key (see Settings)');
  });

  it('a rejected key fails authentication with the text a tool call would give', async () => {
    const { probes } = fakeProbes();
    const rejected = new AuthError(
      401,
      'revoked',
      {
        method: 'GET',
        path: '/api/v1/changes?limit=1',
        host: 'feed.example.com',
        attempts: 1,
        proxy: undefined,
      },
      undefined,
    );
    const checks = await runNetworkChecks(
      plan('https://feed.example.com', { authenticate: async () => Promise.reject(rejected) }),
      probes,
    );
    expect(checks[3]).toMatchObject({
      status: 'fail',
      detail: 'HTTP 401 from feed.example.com for GET /api/v1/changes?limit=1',
      fix: expect.stringContaining('The service rejected the API key (HTTP 401)'),
    });
    expect(checks[4]?.detail).toBe('skipped: Authentication failed');
  });

  it('warns when few calls remain, or when the service sends no rate-limit headers', async () => {
    const { probes } = fakeProbes();
    const low = await runNetworkChecks(
      plan('https://feed.example.com', {
        authenticate: async () => ({ changes: 1, rateLimit: { ...rateLimit, remaining: 10 } }),
      }),
      probes,
    );
    expect(low[4]).toMatchObject({
      status: 'warn',
      detail: 'tier free: 10 of 1000 calls left today (under 5%)',
    });
    const none = await runNetworkChecks(
      plan('https://feed.example.com', { authenticate: async () => ({ changes: 0, rateLimit: undefined }) }),
      probes,
    );
    expect(none[4]?.status).toBe('warn');
  });

  it('skips everything without a usable base URL', async () => {
    const { probes } = fakeProbes();
    const checks = await runNetworkChecks(
      { route: undefined, baseUrlSetting: undefined, timeoutMs: 1000, authenticate: undefined },
      probes,
    );
    expect(checks.every((c) => c.status === 'skip')).toBe(true);
    expect(probes.lookupHost).not.toHaveBeenCalled();
  });
});
