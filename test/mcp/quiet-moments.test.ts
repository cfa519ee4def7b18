/**
 * Quiet moments found through the stdio transport's activity, with the real SDK server linked to a
 * real Client over that transport: after what makes one due, once nothing is in flight and nothing
 * has arrived for `quietMs`. Never while a call is in flight; not held back by a cancelled call or
 * an open listen; never after the session closed.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeedApi } from '../../src/api/client.js';
import { silentLogger } from '../../src/log.js';
import { createServer } from '../../src/mcp-server.js';
import { onQuietMoments, QUIET_MS } from '../../src/stdio/quiet-moments.js';
import { model, modelsPage } from '../fixtures.js';
import { linkOverStdio } from './stdio-link.js';

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

async function connect(onQuiet: () => boolean, after: ReadonlySet<string>, api: FeedApi = gatedApi().api) {
  const server = createServer({ api, log: silentLogger, version: '0.0.0' });
  const link = await linkOverStdio(async (transport) => {
    await server.connect(transport);
    onQuietMoments(transport.activity, onQuiet, { after });
  });
  return { link, client: await link.connectClient() };
}

const ANSWERS = new Set(['tools/list', 'tools/call']);
const OPENED = new Set(['notifications/initialized']);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('onQuietMoments', () => {
  it('comes QUIET_MS after the first tools/list answer, not after initialize, and once per answer', async () => {
    const onQuiet = vi.fn(() => true);
    const { client } = await connect(onQuiet, ANSWERS);
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).not.toHaveBeenCalled();
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(onQuiet).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    await client.ping();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });

  it('after the client’s initialized, not before the lists it asks for right after; done once onQuiet says so', async () => {
    const onQuiet = vi.fn(() => false);
    const { client } = await connect(onQuiet, OPENED);
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    await client.listTools();
    await client.listPrompts();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(onQuiet).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    await client.listTools();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });

  it('waits while a call is in flight and while requests keep arriving', async () => {
    const onQuiet = vi.fn(() => true);
    const gated = gatedApi();
    const { client } = await connect(onQuiet, ANSWERS, gated.api);
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    gated.hold();
    const call = client.callTool({ name: 'search_models', arguments: {} });
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).not.toHaveBeenCalled();
    gated.release();
    expect((await call).isError).toBeFalsy();
    await vi.advanceTimersByTimeAsync(QUIET_MS / 2);
    await client.ping();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(onQuiet).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });

  it('is not held back for ever by a request the client cancelled, nor made due by it', async () => {
    const onQuiet = vi.fn(() => true);
    const gated = gatedApi();
    const { client } = await connect(onQuiet, ANSWERS, gated.api);
    gated.hold();
    const abort = new AbortController();
    const call = client.callTool({ name: 'search_models', arguments: {} }, { signal: abort.signal });
    await vi.advanceTimersByTimeAsync(0);
    abort.abort();
    await expect(call).rejects.toThrow();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).not.toHaveBeenCalled();
    await client.listTools();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(onQuiet).toHaveBeenCalledTimes(1);
    gated.release();
  });

  it('comes while a listen is held open: a stream is not work in flight', async () => {
    const onQuiet = vi.fn(() => true);
    // No SDK server here: nothing answers the listen, as a listen the server accepted stays open.
    const link = await linkOverStdio(async (transport) => {
      onQuietMoments(transport.activity, onQuiet, { after: ANSWERS });
      await transport.start();
    });
    await link.clientTransport.send({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: {} });
    await link.clientTransport.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    await vi.advanceTimersByTimeAsync(0);
    await link.transport.send({ jsonrpc: '2.0', id: 2, result: { tools: [] } });
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(link.transport.activity.methodOf(1)).toBe('subscriptions/listen');
    expect(onQuiet).toHaveBeenCalledTimes(1);
  });

  it('never comes once the session has closed', async () => {
    const onQuiet = vi.fn(() => true);
    const { link, client } = await connect(onQuiet, ANSWERS);
    await client.listTools();
    link.endInput();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(onQuiet).not.toHaveBeenCalled();
  });
});
