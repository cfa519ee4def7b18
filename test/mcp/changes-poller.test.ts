/**
 * The subscription poller with its clock, sleep and API faked: which requests go out, when the
 * next poll is due, and when a notification is sent.
 */

import { describe, expect, it } from 'vitest';
import type { ChangesRead } from '../../src/api/client.js';
import type { RateLimitInfo } from '../../src/api/rate-limit.js';
import { AuthError, NetworkError, RateLimitError, type RequestFacts } from '../../src/errors.js';
import type { LogFields, Logger } from '../../src/log.js';
import { ChangesPoller } from '../../src/resources/changes-poller.js';

const facts: RequestFacts = {
  method: 'GET',
  path: '/api/v1/changes',
  host: 'feed.test',
  attempts: 1,
  proxy: undefined,
};
const tier = (limit: number, name: string): RateLimitInfo => ({
  limit,
  remaining: limit,
  tier: name,
  observedAt: new Date(0).toISOString(),
});

interface Wait {
  ms: number;
  resolve(): void;
}

function harness(options: { limit?: number; tier?: string; intervalS?: number } = {}) {
  let clock = 1_000_000;
  let head = 100;
  let rateLimit: RateLimitInfo | undefined;
  const failures: Error[] = [];
  const queries: unknown[] = [];
  const waits: Wait[] = [];
  const notified: number[] = [];
  const lines: string[] = [];
  const log: Logger = {
    debug: () => {},
    info: (m: string, _f?: LogFields) => lines.push(`info ${m}`),
    warn: (m: string, _f?: LogFields) => lines.push(`warn ${m}`),
    error: (m: string, _f?: LogFields) => lines.push(`error ${m}`),
  };
  const api = {
    get rateLimit() {
      return rateLimit;
    },
    readChanges: async (query: unknown, signal?: AbortSignal): Promise<ChangesRead> => {
      queries.push(query);
      if (signal?.aborted) throw signal.reason;
      const failure = failures.shift();
      // A service that is down tells no tier; a 429 does.
      if (!(failure instanceof NetworkError)) rateLimit = tier(options.limit ?? 1000, options.tier ?? 'free');
      if (failure) throw failure;
      const page = { items: [], nextCursor: null, latest: head };
      return { page, sent: [] };
    },
  };
  const poller = new ChangesPoller({
    api,
    log,
    intervalS: options.intervalS,
    onChange: () => notified.push(queries.length),
    now: () => clock,
    random: () => 0.5,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const wait = {
          ms,
          resolve: () => {
            clock += ms;
            resolve();
          },
        };
        waits.push(wait);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
  });
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    poller,
    queries,
    waits,
    notified,
    lines,
    failures,
    setHead: (t: number) => {
      head = t;
    },
    /** Lets the pending sleep end and the next poll run. */
    async tick() {
      waits.at(-1)!.resolve();
      await settle();
      await settle();
    },
  };
}

describe('ChangesPoller', () => {
  it('takes the newest change time first, then announces a moved head once per poll', async () => {
    const h = harness({ limit: 100_000, tier: 'pro', intervalS: 1 });
    expect(await h.poller.start()).toBeUndefined();
    expect(h.queries).toEqual([{ limit: 1, type: undefined, model: undefined }]);
    expect(h.notified).toEqual([]);
    await h.tick();
    expect(h.queries).toHaveLength(2);
    expect(h.notified).toEqual([]);
    h.setHead(105);
    await h.tick();
    expect(h.notified).toEqual([3]);
    await h.tick();
    expect(h.notified).toEqual([3]);
    h.poller.stop();
  });

  it('polls at the tier’s default without an override, and the override when the tier allows it', async () => {
    const free = harness();
    await free.poller.start();
    await new Promise((r) => setImmediate(r));
    expect(free.waits[0]!.ms).toBe(346_000);
    expect(free.lines).toContain(
      "info resource subscription: polling every 346 s (at most 249 polls a day, a quarter of the free tier's 1,000 calls a day)",
    );
    free.poller.stop();

    const pro = harness({ limit: 100_000, tier: 'pro' });
    await pro.poller.start();
    await new Promise((r) => setImmediate(r));
    expect(pro.waits[0]!.ms).toBe(4000);
    pro.poller.stop();

    const fast = harness({ limit: 100_000, tier: 'pro', intervalS: 1 });
    await fast.poller.start();
    await new Promise((r) => setImmediate(r));
    expect(fast.waits[0]!.ms).toBe(1000);
    fast.poller.stop();
  });

  it('an override the tier does not allow becomes the smallest it does, with a warning', async () => {
    const h = harness({ intervalS: 5 });
    await h.poller.start();
    await new Promise((r) => setImmediate(r));
    expect(h.waits[0]!.ms).toBe(87_000);
    expect(h.lines.find((l) => l.startsWith('warn'))).toContain(
      '--watch-interval 5 is more often than the tier allows',
    );
    h.poller.stop();
  });

  it('a 429 waits until retry-after; an outage backs off and doubles', async () => {
    const h = harness({ limit: 100_000, tier: 'pro', intervalS: 1 });
    await h.poller.start();
    await new Promise((r) => setImmediate(r));
    h.failures.push(new RateLimitError('limit', facts, undefined, 600, 1_001_000, false));
    await h.tick();
    expect(h.waits.at(-1)!.ms).toBe(600_000);
    h.failures.push(
      new NetworkError('ECONNRESET', 'reset', facts),
      new NetworkError('ECONNRESET', 'reset', facts),
    );
    await h.tick();
    expect(h.waits.at(-1)!.ms).toBe(1500); // outageDelayMs(1, 0.5): 2 s ceiling, half of it random
    await h.tick();
    expect(h.waits.at(-1)!.ms).toBe(3000);
    await h.tick();
    expect(h.waits.at(-1)!.ms).toBe(1000);
    expect(h.lines.some((l) => l.includes('rate limited'))).toBe(true);
    h.poller.stop();
  });

  it('started during an outage, retries on the backoff it announces, not on the assumed free-tier interval', async () => {
    const h = harness({ limit: 100_000, tier: 'pro', intervalS: 1 });
    h.failures.push(
      new NetworkError('ECONNRESET', 'reset', facts),
      new NetworkError('ECONNRESET', 'reset', facts),
    );
    await h.poller.start();
    await new Promise((r) => setImmediate(r));
    // Before the tier is known: 2 s doubling (half of it random), as the log says, not 346 s.
    expect(h.waits.map((w) => w.ms)).toEqual([1500]);
    expect(h.lines.at(-1)).toMatch(/polling failed \(1 in a row\).* Retrying in 2 s\.$/);
    await h.tick();
    expect(h.waits.at(-1)!.ms).toBe(3000);
    expect(h.lines.at(-1)).toMatch(/Retrying in 3 s\.$/);
    // The service is back: the tier's interval (the override) from the first answer on.
    await h.tick();
    expect(h.queries).toHaveLength(3);
    expect(h.waits.at(-1)!.ms).toBe(1000);
    h.poller.stop();
  });

  it('a rejected key stops polling and is what start() resolves with', async () => {
    const h = harness();
    h.failures.push(new AuthError(401, 'bad key', facts, undefined));
    const error = await h.poller.start();
    expect(error).toBeInstanceOf(AuthError);
    await new Promise((r) => setImmediate(r));
    expect(h.poller.running).toBe(false);
    expect(h.waits).toHaveLength(0);
  });

  it('stop() ends the wait at once; nothing is asked afterwards; start() runs a fresh poller', async () => {
    const h = harness({ limit: 100_000, tier: 'pro', intervalS: 1 });
    await h.poller.start();
    expect(h.poller.running).toBe(true);
    h.poller.stop();
    expect(h.poller.running).toBe(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(h.queries).toHaveLength(1);
    await h.poller.start();
    expect(h.queries).toHaveLength(2);
    h.poller.stop();
  });

  it('its real timer never keeps the process alive', async () => {
    const api = {
      rateLimit: tier(100_000, 'pro'),
      readChanges: async (): Promise<ChangesRead> => ({
        page: { items: [], nextCursor: null, latest: 1 },
        sent: [],
      }),
    };
    const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    const poller = new ChangesPoller({ api, log: silent, intervalS: 60, onChange: () => {} });
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await poller.start();
    await new Promise((r) => setImmediate(r));
    const during = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    // An unref'd timer is not listed as an active resource.
    expect(during).toBe(before);
    poller.stop();
  });
});
