/**
 * Subscriptions over `--http`: the built CLI on a loopback port, real SDK clients over Streamable
 * HTTP, against a pro-tier sandbox in this process that counts the feed requests the CLI sends.
 * However many sessions subscribe, one poller follows the feed, at the interval the user chose.
 */

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { eventually, scrubbedEnv } from './harness.js';
import { startHttpCli } from './http-support.js';

const CHANGES = 'model-feed://changes';

let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
});
afterAll(() => sandbox.close());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const feedRequests = () => sandbox.requests.filter((r) => r.path === '/api/v1/changes').length;

interface HttpSession {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** When each `notifications/resources/updated` arrived. */
  updates: number[];
}

async function openSession(url: string): Promise<HttpSession> {
  const client = new Client({ name: 'e2e-http-subscriptions', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${sandbox.key}` } },
  });
  const updates: number[] = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    expect(n.params.uri).toBe(CHANGES);
    updates.push(performance.now());
  });
  await client.connect(transport);
  return { client, transport, updates };
}

/** Feed requests made within `ms` from now. */
async function requestsWithin(ms: number): Promise<number> {
  const before = feedRequests();
  await pause(ms);
  return feedRequests() - before;
}

describe('subscriptions over --http (built CLI, sandbox, real SDK clients)', () => {
  it('two sessions share one poller at --watch-interval; a change notifies both once; polling ends with the last session', async () => {
    const cli = await startHttpCli(env, ['--watch-interval', '1']);
    try {
      const [a, b] = [await openSession(cli.url), await openSession(cli.url)];
      sandbox.clearRequests();
      await a.client.subscribeResource({ uri: CHANGES });
      await b.client.subscribeResource({ uri: CHANGES });
      // The first poll set the cursor; the second session joined that poller without a request.
      expect(feedRequests()).toBe(1);
      // One poller every second: about 3 polls in 3 s. The pro tier's own interval (4 s) would
      // give none, a poller per session about 6.
      const polls = await requestsWithin(3000);
      expect(polls).toBeGreaterThanOrEqual(2);
      expect(polls).toBeLessThanOrEqual(4);

      sandbox.publish('price_change');
      await eventually(
        () => a.updates.length > 0 && b.updates.length > 0,
        'updates in both sessions',
        10_000,
      );
      await pause(1500);
      expect([a.updates.length, b.updates.length]).toEqual([1, 1]);

      // One session unsubscribes: the other still hears of changes, it no longer does.
      await a.client.unsubscribeResource({ uri: CHANGES });
      sandbox.publish('new_model');
      await eventually(
        () => b.updates.length === 2,
        'a second update for the session still subscribed',
        3000,
      );
      await pause(1200);
      expect(a.updates).toHaveLength(1);

      // The last subscribed session ends (DELETE): polling ends with it.
      await b.transport.terminateSession();
      await b.client.close();
      await pause(300);
      expect(await requestsWithin(2500)).toBe(0);
      await a.client.close();
    } finally {
      await cli.stop();
    }
    expect(cli.raw.stdout()).toBe('');
  });

  it('MODEL_FEED_WATCH_INTERVAL_S sets the interval; the last unsubscribe stops polling', async () => {
    const cli = await startHttpCli({ ...env, MODEL_FEED_WATCH_INTERVAL_S: '1' });
    try {
      const session = await openSession(cli.url);
      sandbox.clearRequests();
      await session.client.subscribeResource({ uri: CHANGES });
      expect(feedRequests()).toBe(1);
      expect(await requestsWithin(2500)).toBeGreaterThanOrEqual(2);

      await session.client.unsubscribeResource({ uri: CHANGES });
      await pause(300);
      expect(await requestsWithin(2500)).toBe(0);
      await session.client.close();
    } finally {
      await cli.stop();
    }
  });
});
