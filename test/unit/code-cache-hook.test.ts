/**
 * Quiet moments for the V8 code cache, found on the real SDK server linked to a real Client: after
 * the first `tools/list` or tool call has been answered, once nothing is in flight and nothing has
 * been asked for QUIET_MS. Never while a call is in flight; never again once the cache is done.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeedApi } from '../../src/api/client.js';
import { type CodeCache, withCodeCache } from '../../src/code-cache-hook.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { QUIET_MS, withQuietMoments } from '../../src/quiet-moments.js';
import { createServer } from '../../src/server.js';
import type { StdioTransport } from '../../src/stdio/transport.js';
import { model, modelsPage } from '../fixtures.js';
import { linkOverStdio } from '../mcp/stdio-link.js';

/** An API whose catalog read waits until `release()`: a call held in flight. */
function gatedApi() {
  let release: () => void = () => {};
  let gate = Promise.resolve();
  const api: FeedApi = {
    listChanges: () => Promise.reject(new Error('not used')),
    listChangesCached: () => Promise.reject(new Error('not used')),
    readChanges: () => Promise.reject(new Error('not used')),
    listModels: async () => {
      await gate;
      return modelsPage([model()]) as never;
    },
    getPriceHistory: () => Promise.reject(new Error('not used')),
    rateLimit: undefined,
  };
  return {
    api,
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

async function connect(
  onQuiet: () => boolean,
  api: FeedApi = gatedApi().api,
  after: ReadonlySet<string> = new Set(['tools/list', 'tools/call']),
) {
  const server = createServer({ api, log: silentLogger, version: '0.0.0' });
  const link = await linkOverStdio((transport) =>
    withQuietMoments<StdioTransport>(server, onQuiet, { after }).connect(transport),
  );
  return link.connectClient();
}

/** Lets the linked transports and the server's handlers run (they are promise chains). */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('withQuietMoments', () => {
  it('comes QUIET_MS after the first tools/list answer, not after initialize', async () => {
    const onQuiet = vi.fn(() => true);
    const client = await connect(onQuiet);
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).not.toHaveBeenCalled();
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(onQuiet).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    // Nothing worthwhile answered since: no other quiet moment.
    await client.ping();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });

  it('after a notification (the warm-up: initialized), not before the lists the client asks right after', async () => {
    const onQuiet = vi.fn(() => false);
    // connect() sends initialize and notifications/initialized, as a client does.
    const client = await connect(onQuiet, gatedApi().api, new Set(['notifications/initialized']));
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    await client.listTools();
    await client.listPrompts();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(onQuiet).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    // It returned false: done for the session.
    await client.listTools();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });

  it('two on one server (warm-up, then code cache, as serve-stdio.ts has them): each once, each on its own terms', async () => {
    const events: string[] = [];
    // Each does its work once: false says there is nothing more to do.
    const record = (name: string) => () => {
      events.push(name);
      return false;
    };
    const server = createServer({ api: gatedApi().api, log: silentLogger, version: '0.0.0' });
    const warming = withQuietMoments<StdioTransport>(server, record('warm-up'), {
      after: new Set(['notifications/initialized']),
      quietMs: QUIET_MS / 2,
    });
    const caching = withQuietMoments(warming, record('cache'), {
      after: new Set(['tools/list', 'tools/call']),
    });
    const client = await (await linkOverStdio((transport) => caching.connect(transport))).connectClient();
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    expect(events).toEqual(['warm-up']);
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    expect(events).toEqual(['warm-up', 'cache']);
    await client.listTools();
    await client.callTool({ name: 'search_models', arguments: {} });
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(events).toEqual(['warm-up', 'cache']);
  });

  it('waits while a call is in flight and while requests keep arriving', async () => {
    const onQuiet = vi.fn(() => true);
    const gated = gatedApi();
    const client = await connect(onQuiet, gated.api);
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    gated.hold();
    const call = client.callTool({ name: 'search_models', arguments: {} });
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).not.toHaveBeenCalled();
    gated.release();
    expect((await call).isError).toBeFalsy();
    // A request arriving within QUIET_MS of the answer puts the moment off again.
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    await client.ping();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(onQuiet).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });

  it('is not held back for ever by a request the client cancelled', async () => {
    const onQuiet = vi.fn(() => true);
    const gated = gatedApi();
    const client = await connect(onQuiet, gated.api);
    await client.listTools();
    gated.hold();
    const abort = new AbortController();
    const call = client.callTool({ name: 'search_models', arguments: {} }, { signal: abort.signal });
    await settle();
    abort.abort();
    await expect(call).rejects.toThrow();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    gated.release();
  });

  it('stops once the cache has nothing more to do', async () => {
    const onQuiet = vi.fn(() => false);
    const client = await connect(onQuiet);
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    await client.callTool({ name: 'search_models', arguments: {} });
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });
});

describe('withCodeCache', () => {
  function fakeCache(overrides: Partial<CodeCache> = {}): CodeCache {
    return {
      loaded: 'missing',
      pending: true,
      quietMoment: vi.fn(() => ({ reason: 'first' as const, bytes: 1234, file: '/x/index.cjs.v8cache' })),
      ...overrides,
    };
  }

  it('logs what V8 made of the cache at load, and each write, at debug level', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'debug', format: 'text', write: (line) => lines.push(line) });
    const cache = fakeCache();
    const server = createServer({ api: gatedApi().api, log: silentLogger, version: '0.0.0' });
    const link = await linkOverStdio((transport) =>
      withCodeCache<StdioTransport>(server, cache, log).connect(transport),
    );
    const client = await link.connectClient();
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(cache.quietMoment).toHaveBeenCalledTimes(1);
    expect(lines.join('')).toContain('V8 code cache loaded=missing');
    expect(lines.join('')).toContain('V8 code cache written reason=first bytes=1234');
  });

  it('leaves the server as it is when there is nothing to write', () => {
    const server = createServer({ api: gatedApi().api, log: silentLogger, version: '0.0.0' });
    expect(
      withCodeCache<StdioTransport>(server, fakeCache({ loaded: 'accepted', pending: false }), silentLogger),
    ).toBe(server);
    expect(withCodeCache<StdioTransport>(server, undefined, silentLogger)).toBe(server);
  });
});
