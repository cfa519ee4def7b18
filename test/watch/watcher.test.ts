/**
 * The watch loop with a fake clock and an in-memory feed: a day of polls in a moment, the budget,
 * and what happens to the cursor when a sink fails.
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangesQuery, FeedApi } from '../../src/api/client.js';
import type { RateLimitInfo } from '../../src/api/rate-limit.js';
import { apiSchemas } from '../../src/api/schemas.js';
import { AuthError, DeliveryError, NetworkError, UnexpectedResponseError } from '../../src/errors.js';
import type { Delivery } from '../../src/feed/envelope.js';
import {
  chooseInterval,
  DAY_S,
  defaultIntervalS,
  Pacer,
  smallestIntervalS,
} from '../../src/feed/schedule.js';
import { createLogger, silentLogger } from '../../src/log.js';
import type { Sink } from '../../src/watch/sinks/sink.js';
import type { StatusFields, StatusLine } from '../../src/watch/status.js';
import { runWatcher, type WatcherDeps } from '../../src/watch/watcher.js';
import { changeEvent, silentStatus, watchOptions } from '../fixtures.js';

const { ChangesPage: ChangesPageSchema } = apiSchemas();

/** A change with change time `time`, detected then (the fake clock starts 1,000 s after the epoch). */
function feedEntry(time: number) {
  const detectedAt = new Date(time * 1000).toISOString();
  return { time, event: changeEvent({ id: `e${time}`, title: `change ${time}`, detectedAt }) };
}

/** A feed of `count` changes with change times 1..count, answering like the service. */
function memoryFeed(count: number, limit: number, tier = 'free') {
  const entries = Array.from({ length: count }, (_, i) => feedEntry(i + 1));
  const calls: ChangesQuery[] = [];
  let rateLimit: RateLimitInfo | undefined;
  const api: FeedApi = {
    async readChanges(query) {
      calls.push(query);
      rateLimit = { limit, remaining: limit - calls.length, tier, observedAt: '' };
      const since = query.since ?? 0;
      const page = entries.filter((e) => e.time > since).slice(0, query.limit ?? 20);
      const body = { items: page.map((e) => e.event), nextCursor: null, latest: page.at(-1)?.time ?? null };
      return { page: ChangesPageSchema.parse(body), sent: body.items };
    },
    listChanges: async () => {
      throw new Error('not used');
    },
    listChangesCached: async () => {
      throw new Error('not used');
    },
    listModels: async () => {
      throw new Error('not used');
    },
    getPriceHistory: async () => {
      throw new Error('not used');
    },
    get rateLimit() {
      return rateLimit;
    },
  };
  return { api, calls, entries };
}

/** A clock that jumps on each sleep; the run stops (aborts) once it passes `horizonMs`. */
function fakeClock(horizonMs: number) {
  const controller = new AbortController();
  let now = 1_000_000;
  const start = now;
  return {
    signal: controller.signal,
    now: () => now,
    elapsed: () => now - start,
    sleep: async (ms: number) => {
      now += ms;
      if (now - start >= horizonMs) {
        controller.abort(new Error('horizon'));
        throw new Error('horizon');
      }
    },
  };
}

function memorySink(fail: (delivery: Delivery, attempt: number) => Error | undefined = () => undefined) {
  const delivered: string[] = [];
  const attempts = new Map<string, number>();
  const sink: Sink = {
    label: 'memory',
    async deliver(delivery) {
      const id = delivery.event.id;
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      const error = fail(delivery, attempt);
      if (error) throw error;
      delivered.push(id);
    },
    flush: async () => {},
    close: async () => {},
  };
  return { sink, delivered, attempts };
}

/** Folders made for state files, removed once the file's tests are done. */
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const statePath = () => {
  const folder = mkdtempSync(join(tmpdir(), 'mf-watcher-'));
  folders.push(folder);
  return join(folder, 'state.json');
};

/** The watcher's dependencies: the fake clock, a memory sink and a fresh state file unless given. */
function deps(
  api: FeedApi,
  clock: ReturnType<typeof fakeClock>,
  overrides: Partial<WatcherDeps> = {},
): WatcherDeps {
  return {
    api,
    sink: memorySink().sink,
    log: silentLogger,
    status: silentStatus,
    statePath: statePath(),
    service: 'memory',
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    ...overrides,
  };
}

describe('the polling budget', () => {
  it('derives the interval from the tier: a quarter of the daily limit', () => {
    expect(defaultIntervalS(1000)).toBe(346);
    expect(defaultIntervalS(100_000)).toBe(4);
    expect(smallestIntervalS(1000)).toBe(87);
    expect(chooseInterval(60, { limit: 1000, name: 'free' })).toMatchObject({ ok: false, smallest: 87 });
    expect(chooseInterval(87, { limit: 1000, name: 'free' })).toMatchObject({ ok: true, seconds: 87 });
    // No limit header: the free tier's limit is assumed.
    expect(chooseInterval(undefined, { limit: null, name: null })).toMatchObject({ ok: true, seconds: 346 });
  });

  it('a drain borrows from the following intervals', () => {
    const pacer = new Pacer(1000, 0);
    pacer.spent(5, 0);
    expect(pacer.nextAt).toBe(5000);
    pacer.spent(1, 5000);
    expect(pacer.nextAt).toBe(6000);
  });

  it.each([
    ['free', 1000, 0],
    ['free, with a backlog of 30 pages', 1000, 3000],
    ['pro', 100_000, 0],
  ])('keeps a day of polls within a quarter of the limit (%s)', async (_name, limit, backlog) => {
    const feed = memoryFeed(backlog, limit);
    const clock = fakeClock(DAY_S * 1000);
    const { sink, delivered } = memorySink();
    const result = await runWatcher(watchOptions(), deps(feed.api, clock, { sink }), clock.signal);
    expect(result.code).toBe(0);
    expect(delivered).toHaveLength(backlog);
    expect(feed.calls.length).toBeLessThanOrEqual(limit / 4);
    // …and it does poll all day, not stop early.
    expect(feed.calls.length).toBeGreaterThanOrEqual(Math.floor(DAY_S / defaultIntervalS(limit)) - 2);
  });
});

describe('delivery failures', () => {
  it('retries a failed delivery, then gives up with exit 1 and the cursor before the change', async () => {
    const feed = memoryFeed(250, 100_000, 'pro');
    const clock = fakeClock(DAY_S * 1000);
    // e150 never goes through; e120 fails twice and then succeeds.
    const { sink, delivered, attempts } = memorySink((delivery, attempt) => {
      if (delivery.event.id === 'e150') return new DeliveryError('receiver says no', false);
      if (delivery.event.id === 'e120' && attempt <= 2) return new DeliveryError('busy', false, 5000);
      return undefined;
    });
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ maxAttempts: 4 }),
      deps(feed.api, clock, { sink, statePath: path, random: () => 0 }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toContain('e150');
    expect(result.message).toContain('4 attempts');
    expect(attempts.get('e150')).toBe(4);
    expect(attempts.get('e120')).toBe(3);
    // The first page (e1–e100) was accepted; the second stopped at e150, so the cursor stays at 100.
    expect(delivered.slice(0, 149)).toEqual(Array.from({ length: 149 }, (_, i) => `e${i + 1}`));
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(100);
  });

  it('a permanent failure is not attempted again', async () => {
    const feed = memoryFeed(3, 100_000, 'pro');
    const clock = fakeClock(DAY_S * 1000);
    const { sink, attempts } = memorySink((delivery) =>
      delivery.event.id === 'e2' ? new DeliveryError('HTTP 404', true) : undefined,
    );
    const path = statePath();
    const result = await runWatcher(
      watchOptions(),
      deps(feed.api, clock, { sink, statePath: path, random: () => 0 }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toContain('permanent');
    expect(attempts.get('e2')).toBe(1);
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(0);
  });
});

describe('the service side', () => {
  const facts = { method: 'GET', path: '/api/v1/changes', host: 'feed.test', attempts: 3, proxy: undefined };

  it('rides out an outage of hours with capped backoff, then resumes from the cursor', async () => {
    const feed = memoryFeed(5, 100_000, 'pro');
    const clock = fakeClock(DAY_S * 1000);
    const outage = { from: 1, until: 1 + 3 * 3600_000 };
    const read = feed.api.readChanges.bind(feed.api);
    const gaps: number[] = [];
    let last = 0;
    feed.api.readChanges = async (query, signal) => {
      gaps.push(clock.elapsed() - last);
      last = clock.elapsed();
      if (clock.elapsed() >= outage.from && clock.elapsed() < outage.until) {
        // Two more changes are published while the service cannot be reached.
        if (feed.entries.length === 5) {
          for (const time of [6, 7]) feed.entries.push(feedEntry(time));
        }
        throw new NetworkError('ECONNREFUSED', 'connect ECONNREFUSED', facts);
      }
      return read(query, signal);
    };
    const { sink, delivered } = memorySink();
    const deliveredAt = new Map<string, number>();
    const deliver = sink.deliver.bind(sink);
    sink.deliver = async (delivery, signal) => {
      deliveredAt.set(delivery.event.id, clock.elapsed());
      await deliver(delivery, signal);
    };
    const path = statePath();
    let sawRecovery = false;
    const result = await runWatcher(
      watchOptions({ since: 0 }),
      deps(feed.api, clock, {
        sink,
        statePath: path,
        sleep: async (ms) => {
          await clock.sleep(ms);
          if (clock.elapsed() > outage.until + 600_000) sawRecovery = true;
        },
        random: () => 1,
      }),
      clock.signal,
    );
    expect(result.code).toBe(0);
    expect(sawRecovery).toBe(true);
    // The changes published during the outage come after recovery, in feed order, after the others.
    expect(delivered).toEqual(['e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7']);
    expect(deliveredAt.get('e6')).toBeGreaterThanOrEqual(outage.until);
    expect(deliveredAt.get('e7')).toBeGreaterThanOrEqual(outage.until);
    // Backoff is capped at 5 minutes: no wait during the outage was longer.
    expect(Math.max(...gaps)).toBeLessThanOrEqual(300_000);
    // …and it did not hammer the service either: about one call per interval or backoff step.
    expect(gaps.filter((gap) => gap < 4000).length).toBeLessThanOrEqual(2);
  });

  it('a rejected key stops the watcher with exit 1 and the usual message', async () => {
    const feed = memoryFeed(5, 1000);
    feed.api.readChanges = async () => {
      throw new AuthError(401, 'Invalid API key', facts, undefined);
    };
    const clock = fakeClock(DAY_S * 1000);
    const result = await runWatcher(watchOptions({ since: 0 }), deps(feed.api, clock), clock.signal);
    expect(result.code).toBe(1);
    expect(result.message).toMatch(/rejected/i);
  });
});

describe('the saved place', () => {
  const facts = { method: 'GET', path: '/api/v1/changes', host: 'feed.test', attempts: 3, proxy: undefined };
  it('refuses a state file saved for another feed, rather than skip its changes', async () => {
    const path = statePath();
    const feed = memoryFeed(3, 1000);
    const clock = fakeClock(60_000);
    await runWatcher(
      watchOptions({ once: true, filters: { type: 'deprecation' } }),
      deps(feed.api, clock, { statePath: path }),
      clock.signal,
    );
    const other = await runWatcher(
      watchOptions({ once: true }),
      deps(feed.api, fakeClock(60_000), { statePath: path }),
      clock.signal,
    );
    expect(other.code).toBe(1);
    expect(other.message).toContain('holds the cursor of another feed');
    expect(other.message).toContain('--type deprecation');
  });

  it('--since now rides out a service that is down at start', async () => {
    const feed = memoryFeed(4, 100_000, 'pro');
    failingReads(feed, (call) =>
      call <= 3 ? new NetworkError('ECONNREFUSED', 'connect ECONNREFUSED', facts) : undefined,
    );
    const path = statePath();
    // Failed calls before any answer wait on the outage backoff, not the free tier's 346 s.
    const clock = fakeClock(3 * 3600_000);
    const result = await runWatcher(
      watchOptions({ since: 'now' }),
      deps(feed.api, clock, { statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(4);
  });
});

describe('a service that is down before the first poll', () => {
  const facts = { method: 'GET', path: '/api/v1/changes', host: 'feed.test', attempts: 3, proxy: undefined };

  /** The memory feed behind an outage of `outageMs` from the start; records when each call came. */
  function downAtStart(
    feed: ReturnType<typeof memoryFeed>,
    clock: ReturnType<typeof fakeClock>,
    outageMs: number,
  ) {
    const read = feed.api.readChanges.bind(feed.api);
    const times: number[] = [];
    const served: number[] = [];
    feed.api.readChanges = async (query, signal) => {
      times.push(clock.elapsed());
      // No answer, so no tier: the pacer cannot know the interval yet.
      if (clock.elapsed() < outageMs) throw new NetworkError('ECONNRESET', 'socket hang up', facts);
      served.push(clock.elapsed());
      return read(query, signal);
    };
    return { times, served };
  }

  it('retries on the outage backoff it announces, not on the assumed free-tier interval', async () => {
    const feed = memoryFeed(3, 1000);
    const clock = fakeClock(3600_000);
    const calls = downAtStart(feed, clock, 4000);
    const { sink, delivered } = memorySink();
    const deliveredAt: number[] = [];
    const deliver = sink.deliver.bind(sink);
    sink.deliver = async (delivery, signal) => {
      deliveredAt.push(clock.elapsed());
      await deliver(delivery, signal);
    };
    const announced: number[] = [];
    const log = {
      ...silentLogger,
      warn: (message: string) => {
        const seconds = message.match(/Retrying in (\d+) s/)?.[1];
        if (seconds) announced.push(Number(seconds));
      },
    };
    const result = await runWatcher(
      watchOptions({ since: 0 }),
      deps(feed.api, clock, { sink, log }),
      clock.signal,
    );
    expect(result.code).toBe(0);
    expect(delivered).toEqual(['e1', 'e2', 'e3']);
    // Delivered within seconds of the recovery at 4 s, not after 346 s.
    expect(deliveredAt[0]).toBeLessThan(4000 + 10_000);
    // Each retry came when the log said it would.
    const failed = calls.times.filter((t) => t < 4000);
    expect(announced.length).toBe(failed.length);
    for (const [i, seconds] of announced.entries()) {
      const gap = (calls.times[i + 1] as number) - (calls.times[i] as number);
      expect(Math.ceil(gap / 1000)).toBe(seconds);
    }
  });

  it('honours an explicit --interval from the first answer on, however many calls failed before it', async () => {
    const feed = memoryFeed(3, 1000);
    const clock = fakeClock(3600_000);
    const calls = downAtStart(feed, clock, 4000);
    const result = await runWatcher(
      watchOptions({ since: 0, intervalS: 90 }),
      deps(feed.api, clock),
      clock.signal,
    );
    expect(result.code).toBe(0);
    const [first, second, third] = calls.served as [number, number, number];
    expect(first).toBeLessThan(4000 + 10_000);
    expect(second - first).toBe(90_000);
    expect(third - second).toBe(90_000);
  });
});

describe('a `latest` that breaks the cursor contract', () => {
  /** A service that answers every read with `body`, as sent. */
  function brokenFeed(body: (query: ChangesQuery) => Record<string, unknown>) {
    const feed = memoryFeed(0, 100_000, 'pro');
    const calls: ChangesQuery[] = [];
    feed.api.readChanges = async (query) => {
      calls.push(query);
      const sent = body(query);
      return { page: ChangesPageSchema.parse(sent), sent: sent.items as Record<string, unknown>[] };
    };
    return { api: feed.api, calls };
  }
  // The fake clock's "now" is 1,000 s after the epoch; the service's change times are its own.
  const at = (seconds: number) => new Date(seconds * 1000).toISOString();
  const page = (latest: number | null, count = 2, detectedAt = at(500)) => ({
    items: Array.from({ length: count }, (_, i) => ({
      ...changeEvent({ id: `e${i + 1}` }),
      detectedAt,
    })),
    nextCursor: null,
    latest,
  });

  it.each([
    ['a milliseconds value', 900_000, 500, /latest=900000, 10 days past this machine's clock/],
    [
      'MAX_SAFE_INTEGER',
      Number.MAX_SAFE_INTEGER,
      500,
      /latest=9007199254740991, .* years past this machine's clock/,
    ],
    [
      'more changes than seconds since the cursor',
      101,
      50,
      /latest=101: 2 changes need 2 change times after 100, and that leaves 1/,
    ],
    [
      'a latest before the changes were detected',
      450,
      500,
      /latest=450: the change "e1" was detected at 1970-01-01T00:08:20.000Z/,
    ],
  ])('stops with exit 1 and leaves the cursor: %s', async (_name, latest, detected, message) => {
    const feed = brokenFeed(() => page(latest, 2, at(detected)));
    const clock = fakeClock(DAY_S * 1000);
    const { sink, delivered } = memorySink();
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 100 }),
      deps(feed.api, clock, { sink, statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toMatch(message);
    expect(result.message).toContain('cursor');
    expect(delivered).toEqual([]);
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(100);
    // Stopped, not retried: the answer will not fix itself.
    expect(feed.calls).toHaveLength(1);
  });

  it('stops when a full page shares one second: more than `limit` changes at one change time', async () => {
    // 100 changes detected in the same second, and a latest that is that very second: the rest
    // of that second would be skipped by the next `since`.
    const feed = brokenFeed(() => page(500, 100, at(500)));
    const clock = fakeClock(DAY_S * 1000);
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 0 }),
      deps(feed.api, clock, { statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toMatch(/100 changes .*latest=500: .* need change times from 500 to at least 599/);
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(0);
  });

  it('--since now: a head page with changes but a null latest stops, instead of replaying the history', async () => {
    const feed = brokenFeed(() => page(null, 1));
    const clock = fakeClock(DAY_S * 1000);
    const path = statePath();
    const { sink, delivered } = memorySink();
    const result = await runWatcher(
      watchOptions({ since: 'now' }),
      deps(feed.api, clock, { sink, statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toMatch(/latest=null/);
    expect(delivered).toEqual([]);
    // No cursor was saved: a later run still starts from the newest change.
    expect(() => readFileSync(path, 'utf8')).toThrow(/ENOENT/);
  });

  it('--since now: a head latest far past the clock stops too', async () => {
    const feed = brokenFeed(() => page(Number.MAX_SAFE_INTEGER, 1));
    const clock = fakeClock(DAY_S * 1000);
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 'now' }),
      deps(feed.api, clock, { statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toMatch(/latest=9007199254740991/);
    expect(() => readFileSync(path, 'utf8')).toThrow(/ENOENT/);
  });
});

describe('a change too large to read', () => {
  const facts = { method: 'GET', path: '/api/v1/changes', host: 'feed.test', attempts: 1, proxy: undefined };
  const tooLong = 'a string of 150000 characters, more than the 100000 allowed, past what the runner accepts';

  /**
   * The memory feed, where any page holding `bad` fails as the body limits make it fail, with what
   * the client still learns of it (its first change, its latest); `latest` overrides the latter.
   */
  function feedWithUnreadable(count: number, bad: number, latest?: number) {
    const feed = memoryFeed(count, 100_000, 'pro');
    const read = feed.api.readChanges.bind(feed.api);
    feed.api.readChanges = async (query, signal) => {
      const answer = await read(query, signal);
      const { items } = answer.page;
      if (items.some((item) => item.id === `e${bad}`)) {
        const glimpse = {
          firstId: items[0]?.id,
          detectedAt: items[0]?.detectedAt,
          latest: latest ?? answer.page.latest,
          items: items.length,
        };
        throw new UnexpectedResponseError(tooLong, 200, facts, glimpse);
      }
      return answer;
    };
    return feed;
  }

  /** A logger that keeps its warnings. */
  function warnings() {
    const lines: string[] = [];
    return { lines, log: { ...silentLogger, warn: (message: string) => lines.push(message) } };
  }

  it('names the change by id, and the --skip that moves past it', async () => {
    const feed = feedWithUnreadable(5, 3);
    const clock = fakeClock(DAY_S * 1000);
    const result = await runWatcher(watchOptions({ since: 0 }), deps(feed.api, clock), clock.signal);
    expect(result.code).toBe(1);
    expect(result.message).toContain('The change "e3" after change time 2 cannot be read');
    expect(result.message).toContain('run the same watch command again with --skip e3');
  });

  it('--skip naming it moves past exactly that change: the rest delivered, the skip in the state file and the log', async () => {
    const feed = feedWithUnreadable(250, 150);
    const clock = fakeClock(DAY_S * 1000);
    const { sink, delivered } = memorySink();
    const { lines, log } = warnings();
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 0, once: true, skip: 'e150' }),
      deps(feed.api, clock, { sink, log, statePath: path }),
      clock.signal,
    );
    expect(result).toEqual({ code: 0 });
    expect(delivered).toEqual(
      Array.from({ length: 250 }, (_, i) => `e${i + 1}`).filter((id) => id !== 'e150'),
    );
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.cursor).toBe(250);
    expect(saved.skipped).toEqual([
      { id: 'e150', changeTime: 150, reason: tooLong, at: new Date(clock.now()).toISOString() },
    ]);
    expect(lines).toEqual([
      expect.stringMatching(/^skipped change "e150" \(change time 150\) as --skip asked/),
    ]);
  });

  it('--skip naming another change skips nothing: it stops as before, naming both', async () => {
    const feed = feedWithUnreadable(5, 3);
    const clock = fakeClock(DAY_S * 1000);
    const { sink, delivered } = memorySink();
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 0, skip: 'e4' }),
      deps(feed.api, clock, { sink, statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toContain('The change "e3" after change time 2 cannot be read');
    expect(result.message).toContain('--skip e4 names another change, so nothing was skipped');
    expect(delivered).toEqual(['e1', 'e2']);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.cursor).toBe(2);
    expect(saved.skipped).toBeUndefined();
  });

  it('--skip that a whole poll never meets skips nothing, and says so', async () => {
    const feed = memoryFeed(3, 100_000, 'pro');
    const clock = fakeClock(DAY_S * 1000);
    const { sink, delivered } = memorySink();
    const { lines, log } = warnings();
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 0, once: true, skip: 'e2' }),
      deps(feed.api, clock, { sink, log, statePath: path }),
      clock.signal,
    );
    expect(result).toEqual({ code: 0 });
    expect(delivered).toEqual(['e1', 'e2', 'e3']);
    expect(lines).toEqual(['--skip e2: no change that cannot be read was met, so nothing was skipped']);
    expect(JSON.parse(readFileSync(path, 'utf8')).skipped).toBeUndefined();
  });

  it('a skip whose latest breaks the contract (past the clock) moves nothing: it stops, naming the latest', async () => {
    const feed = feedWithUnreadable(5, 3, 9_000_000_000_000);
    const clock = fakeClock(DAY_S * 1000);
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 0, skip: 'e3' }),
      deps(feed.api, clock, { statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toMatch(/latest=9000000000000, .* past this machine's clock/);
    expect(result.message).toContain('The cursor stays at 2');
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(2);
  });

  it('delivers every change before it, then stops with exit 1 naming where it is, the cursor just before it', async () => {
    const feed = feedWithUnreadable(250, 150);
    const clock = fakeClock(DAY_S * 1000);
    const { sink, delivered } = memorySink();
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 0 }),
      deps(feed.api, clock, { sink, statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(1);
    expect(result.message).toContain('The change "e150" after change time 149 cannot be read');
    expect(result.message).toContain(tooLong);
    expect(delivered).toEqual(Array.from({ length: 149 }, (_, i) => `e${i + 1}`));
    expect(JSON.parse(readFileSync(path, 'utf8')).cursor).toBe(149);
    // Pages halved down to the one change: a handful of calls, not one per change.
    expect(feed.calls.length).toBeLessThanOrEqual(20);
  });

  it('a service whose every answer is unreadable (a captive portal, say) is an outage, ridden out', async () => {
    const feed = memoryFeed(5, 100_000, 'pro');
    feed.api.readChanges = async (query) => {
      feed.calls.push(query);
      throw new UnexpectedResponseError('not JSON (text/html): <html>Sign in to the Wi-Fi', 200, facts);
    };
    const clock = fakeClock(3600_000);
    const result = await runWatcher(watchOptions({ since: 0 }), deps(feed.api, clock), clock.signal);
    expect(result.code).toBe(0);
    expect(feed.calls.length).toBeGreaterThan(10);
  });
});

/** A logger at `level` whose lines are kept, without their newline. */
function keptLog(level: 'info' | 'debug' = 'info') {
  const lines: string[] = [];
  const log = createLogger({ level, format: 'text', write: (line) => lines.push(line.trimEnd()) });
  return { log, lines };
}

/** A status line that records each update; `live`: as drawn on a terminal. */
function recordingStatus(live: boolean) {
  const updates: Partial<StatusFields>[] = [];
  const status: StatusLine = {
    live,
    update: (fields) => updates.push({ ...fields }),
    write: () => {},
    aside: (write) => write(),
    stop: () => {},
  };
  return { status, updates };
}

/** The feed's reads, the n-th (from 1) failing with what `failure(n)` gives, if anything. */
function failingReads(
  feed: ReturnType<typeof memoryFeed>,
  failure: (call: number) => Error | undefined,
): void {
  const read = feed.api.readChanges.bind(feed.api);
  let call = 0;
  feed.api.readChanges = async (query, signal) => {
    const error = failure(++call);
    if (error) throw error;
    return read(query, signal);
  };
}

/** A feed of three changes that gets two more once the clock passes 8 s. */
function growingFeed(clock: ReturnType<typeof fakeClock>) {
  const feed = memoryFeed(3, 100_000, 'pro');
  const read = feed.api.readChanges.bind(feed.api);
  feed.api.readChanges = async (query, signal) => {
    if (clock.elapsed() >= 8000 && feed.entries.length === 3) feed.entries.push(feedEntry(4), feedEntry(5));
    return read(query, signal);
  };
  return feed;
}

describe('the log read without a terminal (systemd), and the status line', () => {
  const facts = { method: 'GET', path: '/api/v1/changes', host: 'feed.test', attempts: 3, proxy: undefined };

  it('logs a line per poll that delivered, with how many and the cursor; an idle poll only at debug', async () => {
    const clock = fakeClock(20_000);
    const { log, lines } = keptLog('info');
    const path = statePath();
    const result = await runWatcher(
      watchOptions({ since: 0 }),
      deps(growingFeed(clock).api, clock, { log, statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(0);
    // Polls at 0, 4, 8, 12 and 16 s: two delivered something, three were idle and say nothing.
    expect(lines.filter((line) => line.includes('delivered'))).toEqual([
      'model-feed-mcp info: delivered 3 new changes to memory; cursor 3 saved',
      'model-feed-mcp info: delivered 2 new changes to memory; cursor 5 saved',
    ]);
    expect(lines.join('\n')).not.toContain('nothing new');

    const debugClock = fakeClock(20_000);
    const debug = keptLog('debug');
    await runWatcher(
      watchOptions({ since: 0 }),
      deps(growingFeed(debugClock).api, debugClock, { log: debug.log }),
      debugClock.signal,
    );
    expect(debug.lines.filter((line) => line.includes('polled: nothing new'))).toEqual([
      'model-feed-mcp debug: polled: nothing new after change time 3',
      'model-feed-mcp debug: polled: nothing new after change time 5',
      'model-feed-mcp debug: polled: nothing new after change time 5',
    ]);
  });

  it('on a terminal, where the status line shows each poll, leaves the per-poll line to debug', async () => {
    const clock = fakeClock(20_000);
    const { log, lines } = keptLog('info');
    const { status } = recordingStatus(true);
    await runWatcher(
      watchOptions({ since: 0 }),
      deps(growingFeed(clock).api, clock, { log, status }),
      clock.signal,
    );
    expect(lines.join('\n')).not.toContain('delivered');
  });

  it('logs one line per failed poll and one when polling recovers', async () => {
    const feed = memoryFeed(3, 100_000, 'pro');
    failingReads(feed, (call) =>
      call === 2 || call === 3 ? new NetworkError('ECONNREFUSED', 'connect ECONNREFUSED', facts) : undefined,
    );
    const clock = fakeClock(60_000);
    const { log, lines } = keptLog('info');
    await runWatcher(
      watchOptions({ since: 0 }),
      deps(feed.api, clock, { log, random: () => 0 }),
      clock.signal,
    );
    const told = lines.filter((line) => /polling (failed|recovered)/.test(line));
    expect(told).toHaveLength(3);
    expect(told[0]).toMatch(
      /^model-feed-mcp warn: polling failed \(1 in a row\): .*ECONNREFUSED.* Retrying in \d+ s\.$/,
    );
    expect(told[1]).toMatch(/^model-feed-mcp warn: polling failed \(2 in a row\): /);
    expect(told[2]).toBe(
      'model-feed-mcp info: polling recovered after 2 failed polls; nothing new after change time 3',
    );
  });

  it('a poll that fails after delivering a page still logs what it delivered, before the failure', async () => {
    const feed = memoryFeed(150, 100_000, 'pro');
    failingReads(feed, (call) =>
      call === 2 ? new NetworkError('ECONNRESET', 'socket hang up', facts) : undefined,
    );
    const clock = fakeClock(30_000);
    const { log, lines } = keptLog('info');
    await runWatcher(
      watchOptions({ since: 0 }),
      deps(feed.api, clock, { log, random: () => 0 }),
      clock.signal,
    );
    const told = lines.filter((line) => /delivered|polling (failed|recovered)/.test(line));
    expect(told).toHaveLength(4);
    expect(told[0]).toBe('model-feed-mcp info: delivered 100 new changes to memory; cursor 100 saved');
    expect(told[1]).toMatch(/^model-feed-mcp warn: polling failed \(1 in a row\): /);
    expect(told[2]).toBe('model-feed-mcp info: polling recovered after 1 failed poll');
    expect(told[3]).toBe('model-feed-mcp info: delivered 50 new changes to memory; cursor 150 saved');
  });

  it("shows the saved cursor from the start, and counts this run's deliveries, not the file's total", async () => {
    const path = statePath();
    const feed = memoryFeed(3, 100_000, 'pro');
    await runWatcher(
      watchOptions({ since: 0, once: true }),
      deps(feed.api, fakeClock(60_000), { statePath: path }),
      new AbortController().signal,
    );
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ cursor: 3, delivered: 3 });

    feed.entries.push(feedEntry(4));
    const calls = feed.calls.length;
    const { status, updates } = recordingStatus(true);
    const clock = fakeClock(60_000);
    let callsAtFirstCursor: number | undefined;
    const update = status.update;
    status.update = (fields) => {
      if (fields.cursor !== undefined) callsAtFirstCursor ??= feed.calls.length;
      update(fields);
    };
    await runWatcher(
      watchOptions({ once: true }),
      deps(feed.api, clock, { status, statePath: path }),
      clock.signal,
    );
    // Before any call: the cursor the state file holds, not "cursor -".
    expect(updates.find((fields) => fields.cursor !== undefined)?.cursor).toBe(3);
    expect(callsAtFirstCursor).toBe(calls);
    // This run delivered one change; the file counts all four.
    expect(updates.filter((fields) => fields.delivered !== undefined).at(-1)).toMatchObject({
      cursor: 4,
      delivered: 1,
    });
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ cursor: 4, delivered: 4 });
  });
});

describe('--since with a saved cursor, and --reset', () => {
  /** A state file saved after the three changes of a memory feed: cursor 3. */
  async function savedAfterThree() {
    const path = statePath();
    const feed = memoryFeed(3, 100_000, 'pro');
    await runWatcher(
      watchOptions({ since: 0, once: true }),
      deps(feed.api, fakeClock(60_000), { statePath: path }),
      new AbortController().signal,
    );
    return { path, feed, saved: readFileSync(path, 'utf8') };
  }

  it('says at start that a given --since is not used, naming the state file and --reset', async () => {
    const { path, feed } = await savedAfterThree();
    const { log, lines } = keptLog('info');
    const { sink, delivered } = memorySink();
    const clock = fakeClock(60_000);
    const result = await runWatcher(
      watchOptions({ since: 0, sinceGiven: true, once: true }),
      deps(feed.api, clock, { log, sink, statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(0);
    expect(delivered).toEqual([]);
    expect(lines).toContain(
      `model-feed-mcp warn: --since 0 is not used: a cursor is saved in ${path}, and the watcher carries on from it. To start from --since instead, add --reset (the state file is kept as a backup).`,
    );

    // The default --since (not given) is no request to start elsewhere: nothing to say.
    const quiet = keptLog('info');
    await runWatcher(
      watchOptions({ since: 'now', once: true }),
      deps(feed.api, fakeClock(60_000), { log: quiet.log, statePath: path }),
      clock.signal,
    );
    expect(quiet.lines.join('\n')).not.toContain('is not used');
  });

  it('--reset starts from --since and keeps the old state file as a backup, named in the log', async () => {
    const { path, feed, saved } = await savedAfterThree();
    const { log, lines } = keptLog('info');
    const { sink, delivered } = memorySink();
    const clock = fakeClock(60_000);
    const result = await runWatcher(
      watchOptions({ since: 1, sinceGiven: true, reset: true, once: true }),
      deps(feed.api, clock, { log, sink, statePath: path }),
      clock.signal,
    );
    expect(result.code).toBe(0);
    expect(delivered).toEqual(['e2', 'e3']);
    // The fake clock starts 1,000 s after the epoch.
    const backup = `${path}.19700101T001640Z.bak`;
    expect(lines).toContain(
      `model-feed-mcp info: --reset: the saved state is kept as ${backup}; starting from --since`,
    );
    expect(lines.join('\n')).not.toContain('is not used');
    expect(readFileSync(backup, 'utf8')).toBe(saved);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ cursor: 3, delivered: 2 });

    // Another reset within the same second keeps both backups.
    const again = keptLog('info');
    await runWatcher(
      watchOptions({ since: 3, reset: true, once: true }),
      deps(feed.api, fakeClock(60_000), { log: again.log, statePath: path }),
      clock.signal,
    );
    expect(again.lines.join('\n')).toContain(`kept as ${path}.19700101T001640Z-2.bak;`);
    expect(readFileSync(backup, 'utf8')).toBe(saved);
  });

  it('--reset moves aside a file that is not a state file too, where the watcher would otherwise stop', async () => {
    const path = statePath();
    writeFileSync(path, 'not json', { mode: 0o600 });
    const feed = memoryFeed(2, 100_000, 'pro');
    const refused = await runWatcher(
      watchOptions({ since: 0, once: true }),
      deps(feed.api, fakeClock(60_000), { statePath: path }),
      new AbortController().signal,
    );
    expect(refused.code).toBe(1);
    const { sink, delivered } = memorySink();
    const reset = await runWatcher(
      watchOptions({ since: 0, reset: true, once: true }),
      deps(feed.api, fakeClock(60_000), { sink, statePath: path }),
      new AbortController().signal,
    );
    expect(reset.code, reset.message).toBe(0);
    expect(delivered).toEqual(['e1', 'e2']);
    const folder = join(path, '..');
    const backups = readdirSync(folder).filter((name) => name.endsWith('.bak'));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(folder, backups[0] as string), 'utf8')).toBe('not json');
  });

  it('--reset with no state file just starts from --since, and says so', async () => {
    const path = statePath();
    const { log, lines } = keptLog('info');
    await runWatcher(
      watchOptions({ since: 0, reset: true, once: true }),
      deps(memoryFeed(1, 100_000, 'pro').api, fakeClock(60_000), { log, statePath: path }),
      new AbortController().signal,
    );
    expect(lines).toContain(
      `model-feed-mcp info: --reset: no state was saved in ${path}; starting from --since`,
    );
  });

  it('without a state file (--sandbox), reads and saves no cursor: each run starts from --since', async () => {
    const feed = memoryFeed(3, 100_000, 'pro');
    for (let run = 0; run < 2; run++) {
      const { sink, delivered } = memorySink();
      const { log, lines } = keptLog('info');
      const result = await runWatcher(
        watchOptions({ since: 0, once: true }),
        deps(feed.api, fakeClock(60_000), { sink, log, statePath: undefined }),
        new AbortController().signal,
      );
      expect(result.code).toBe(0);
      expect(delivered).toEqual(['e1', 'e2', 'e3']);
      expect(lines).toContain('model-feed-mcp info: starting after change time 0 (the cursor is not saved)');
    }
  });
});
