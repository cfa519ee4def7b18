/**
 * Resources, prompts, completions and subscriptions through the built CLI over stdio, against the
 * in-process sandbox on the pro tier, with `--watch-interval 1`.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { connectCli, INITIALIZE, INITIALIZED, request, scrubbedEnv, spawnRaw } from './harness.js';

let sandbox: Sandbox;
let env: Record<string, string>;
const ARGS = ['--watch-interval', '1'];

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.clearRequests());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('resources, prompts and completions over stdio (built CLI, sandbox)', () => {
  it('with no subscription, no request ever leaves in the background', async () => {
    const session = await connectCli(env, ARGS);
    try {
      await session.client.listResources();
      await session.client.listResourceTemplates();
      await session.client.listPrompts();
      await pause(3000);
      expect(sandbox.requests).toHaveLength(0);
    } finally {
      await session.close();
    }
  });

  it('subscribe, publish: resources/updated within the interval + 1 s; unsubscribe: no more upstream requests', async () => {
    const session = await connectCli(env, ARGS);
    try {
      const updates: number[] = [];
      session.client.setNotificationHandler('notifications/resources/updated', (n) => {
        expect(n.params.uri).toBe('model-feed://changes');
        updates.push(performance.now());
      });
      await session.client.subscribeResource({ uri: 'model-feed://changes' });
      expect(sandbox.requests.map((r) => [r.path, r.query])).toEqual([['/api/v1/changes', { limit: '1' }]]);

      sandbox.publish('price_change');
      // A bound on a hang: the client hears the change at the next poll, a second away.
      for (let i = 0; i < 1000 && updates.length === 0; i++) await pause(10);
      expect(updates).toHaveLength(1);

      // The resource now shows the new change first.
      const read = await session.client.readResource({ uri: 'model-feed://changes' });
      const page = JSON.parse((read.contents[0] as { text: string }).text) as {
        items: { eventType: string }[];
      };
      expect(page.items[0]!.eventType).toBe('price_change');

      await session.client.unsubscribeResource({ uri: 'model-feed://changes' });
      const flat = sandbox.requests.length;
      await pause(3000);
      expect(sandbox.requests.length).toBe(flat);
      expect(session.protocolErrors).toEqual([]);
    } finally {
      await session.close();
    }
  });

  it('completes ids and builds a prompt from the cached catalog', async () => {
    const session = await connectCli(env, ARGS);
    try {
      const ids = await session.client.complete({
        ref: { type: 'ref/prompt', name: 'compare_models' },
        argument: { name: 'ids', value: 'openai/gp' },
      });
      expect(ids.completion.values[0]).toMatch(/^openai\/gpt-/);
      const hf = await session.client.complete({
        ref: { type: 'ref/resource', uri: 'model-feed://models/{id}' },
        argument: { name: 'id', value: 'deepseek-ai/deeps' },
      });
      expect(hf.completion.values).toContain('deepseek-ai/DeepSeek-R1');
      expect(sandbox.requests.map((r) => r.path)).toEqual(['/api/v1/models']);
      const prompt = await session.client.getPrompt({
        name: 'compare_models',
        arguments: { ids: `${ids.completion.values[0]}, deepseek-ai/DeepSeek-R1` },
      });
      expect(prompt.messages.map((m) => m.content.type)).toEqual(['text', 'resource', 'resource']);
      // The catalog came from the cache; only the two price histories were read.
      expect(sandbox.requests.filter((r) => r.path === '/api/v1/models')).toHaveLength(1);
      const unknown = await session.client
        .complete({
          ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' },
          argument: { name: 'a', value: 'x' },
        })
        .then((r) => r.completion);
      expect(unknown).toEqual({ values: [] });
    } finally {
      await session.close();
    }
  });

  it('exits when stdin closes while subscribed', async () => {
    const raw = spawnRaw(env, ARGS);
    raw.send(INITIALIZE);
    raw.send(INITIALIZED);
    raw.send(request(1, 'resources/subscribe', { uri: 'model-feed://changes' }));
    expect(await raw.answer(1)).toMatchObject({ result: {} });
    const closedAt = performance.now();
    raw.child.stdin.end();
    const { code, at } = await raw.exited;
    expect(code).toBe(0);
    // A bound on a hang: the subscription's poller must not hold the process.
    expect(at - closedAt).toBeLessThan(10_000);
  });
});
