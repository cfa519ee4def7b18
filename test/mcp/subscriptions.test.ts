import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { unavailableApi } from '../../src/api/client.js';
import { ConfigError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { ChangesSubscriptions } from '../../src/resources/changes-subscriptions.js';
import { serveMcpEndpoint } from '../../src/sandbox/mcp-endpoint.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connect, rejection, sandboxApi } from './support.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro', mcp: serveMcpEndpoint });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.clearRequests());

const feedRequests = () => sandbox.requests.filter((r) => r.path === '/api/v1/changes').length;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await pause(20);
  }
}

describe('subscriptions over a real MCP client (in memory, against the sandbox)', () => {
  it('subscribe → a published change is announced once; unsubscribe → no more requests', async () => {
    const { client, close } = await connect(sandboxApi(sandbox), { watchIntervalS: 1 });
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      updates.push(n.params.uri);
    });
    // Nothing polls before a subscription.
    await pause(1200);
    expect(sandbox.requests).toHaveLength(0);

    await client.subscribeResource({ uri: 'model-feed://changes' });
    expect(sandbox.requests.map((r) => r.query)).toEqual([{ limit: '1' }]);
    sandbox.publish('price_change');
    const published = Date.now();
    await until(() => updates.length > 0, 2500);
    expect(Date.now() - published).toBeLessThan(2000);
    expect(updates).toEqual(['model-feed://changes']);
    // A second subscribe to the same resource starts no second poller.
    await client.subscribeResource({ uri: 'model-feed://changes' });
    await pause(1500);
    expect(updates).toHaveLength(1);

    await client.unsubscribeResource({ uri: 'model-feed://changes' });
    const after = feedRequests();
    await pause(2500);
    expect(feedRequests()).toBe(after);
    await close();
  });

  it('the end of the session stops the poller', async () => {
    const { client, close } = await connect(sandboxApi(sandbox), { watchIntervalS: 1 });
    await client.subscribeResource({ uri: 'model-feed://changes' });
    await close();
    const after = feedRequests();
    await pause(2500);
    expect(feedRequests()).toBe(after);
  });

  it('sessions sharing their subscriptions (as --http does) share one poller; it stops with the last', async () => {
    const api = sandboxApi(sandbox);
    const changeSubscriptions = new ChangesSubscriptions({ api, log: silentLogger, intervalS: 1 });
    const sessions = [
      await connect(api, { changeSubscriptions }),
      await connect(api, { changeSubscriptions }),
    ];
    const updates = [0, 0];
    sessions.forEach(({ client }, i) => {
      client.setNotificationHandler('notifications/resources/updated', () => {
        updates[i]! += 1;
      });
    });
    for (const { client } of sessions) await client.subscribeResource({ uri: 'model-feed://changes' });
    expect(feedRequests()).toBe(1);
    sandbox.publish('price_change');
    await until(() => updates.every((n) => n > 0), 2500);
    expect(feedRequests()).toBeLessThanOrEqual(3);
    expect(updates).toEqual([1, 1]);

    // The first session ends: the second keeps the poller; its unsubscribe stops it.
    await sessions[0]!.close();
    sandbox.publish('new_model');
    await until(() => updates[1] === 2, 2500);
    await sessions[1]!.client.unsubscribeResource({ uri: 'model-feed://changes' });
    const after = feedRequests();
    await pause(2500);
    expect(feedRequests()).toBe(after);
    expect(updates).toEqual([1, 2]);
    await sessions[1]!.close();
  });

  it('a subscriber that throws (its session closed under it) keeps the news from no other, and the next poll does not repeat it', async () => {
    const changeSubscriptions = new ChangesSubscriptions({
      api: sandboxApi(sandbox),
      log: silentLogger,
      intervalS: 1,
    });
    const heard: string[] = [];
    const broken = () => {
      heard.push('broken');
      throw new Error('session closed');
    };
    const healthy = () => void heard.push('healthy');
    await changeSubscriptions.subscribe(broken);
    await changeSubscriptions.subscribe(healthy);
    sandbox.publish('price_change');
    await until(() => heard.includes('healthy'), 2500);
    // Two more polls: the change was announced once, not again as if the poll had failed.
    await pause(2200);
    expect(heard).toEqual(['broken', 'healthy']);
    changeSubscriptions.unsubscribe(broken);
    changeSubscriptions.unsubscribe(healthy);
  });

  it('only model-feed://changes can be subscribed; without a usable setup, subscribe says why', async () => {
    const { client, close } = await connect(sandboxApi(sandbox));
    const other = await rejection(client.subscribeResource({ uri: 'model-feed://models/openai%2Fgpt-4o' }));
    expect(other.code).toBe(-32602);
    expect(other.message).toContain('only model-feed://changes sends updates');
    await close();

    const api = unavailableApi(new ConfigError('No API key: set MODEL_FEED_API_KEY.', 'MODEL_FEED_API_KEY'));
    const unset = await connect(api);
    const failed = await rejection(unset.client.subscribeResource({ uri: 'model-feed://changes' }));
    expect(failed.code).toBe(-32603);
    expect(failed.message).toContain('No API key: set MODEL_FEED_API_KEY.');
    await unset.close();
  });

  it('a subscribe cancelled before its first poll answered leaves no poller behind', async () => {
    let pollAborted = false;
    const api = {
      ...sandboxApi(sandbox),
      // The first poll hangs until the poller gives up on it.
      readChanges: (_query: unknown, signal?: AbortSignal) =>
        new Promise<never>((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            pollAborted = true;
            reject(signal.reason);
          });
        }),
    };
    const { client, close } = await connect(api);
    const cancel = new AbortController();
    const subscribing = client.subscribeResource({ uri: 'model-feed://changes' }, { signal: cancel.signal });
    await pause(50);
    cancel.abort();
    await expect(subscribing).rejects.toThrow();
    await until(() => pollAborted, 1000);
    await close();
  });

  it('the sandbox’s stateless /api/mcp offers no subscriptions: none declared, and none started', async () => {
    const post = (body: unknown) =>
      fetch(`${sandbox.url}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sandbox.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
      });
    const initialized = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const { result } = (await initialized.json()) as {
      result: { capabilities: { resources: { subscribe: boolean } } };
    };
    expect(result.capabilities.resources.subscribe).toBe(false);
    const response = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'resources/subscribe',
      params: { uri: 'model-feed://changes' },
    });
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32601);
    await pause(500);
    expect(feedRequests()).toBe(0);
  });
});
