/**
 * `subscriptions/listen` on stdio as followListens sees it through the transport's activity: the
 * poller joins at the acknowledgement, not at the request; leaves with the last listen, by cancel,
 * refusal or the end of the session; and a poller that cannot work ends each listen with the
 * reason. A stand-in server (the transport's `onmessage`) plays the SDK's part.
 */

import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { AuthError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { CHANGES_URI } from '../../src/resources/changes.js';
import type { ChangesSubscriber, ChangesSubscriptions } from '../../src/resources/changes-subscriptions.js';
import { followListens, honoredListen } from '../../src/resources/listen.js';
import { StdioTransport } from '../../src/stdio/transport.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Subscriptions that record who is subscribed; the first poll's outcome is `fatal`. */
function fakeSubscriptions(fatal?: Error) {
  const subscribers = new Set<ChangesSubscriber>();
  const subscriptions = {
    subscribe: async (subscriber: ChangesSubscriber) => {
      subscribers.add(subscriber);
      return fatal;
    },
    unsubscribe: (subscriber: ChangesSubscriber) => {
      subscribers.delete(subscriber);
    },
  } as unknown as ChangesSubscriptions;
  return { subscriptions, subscribers };
}

async function session(fatal?: Error) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioTransport(input, output, silentLogger, { prepare: honoredListen });
  const heard: JSONRPCMessage[] = [];
  const written: JSONRPCMessage[] = [];
  transport.onmessage = (message) => heard.push(message);
  output.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) written.push(JSON.parse(line));
  });
  const fake = fakeSubscriptions(fatal);
  followListens(transport, fake.subscriptions, { log: silentLogger, secrets: [] });
  await transport.start();
  const listen = async (id: number, uris: string[]) => {
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: uris } } })}\n`,
    );
    await tick();
  };
  const acknowledge = (id: number, uris: string[]) =>
    transport.send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourceSubscriptions: uris }, _meta: { [SUBSCRIPTION_ID]: id } },
    });
  const cancel = async (id: number) => {
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } })}\n`,
    );
    await tick();
  };
  return { input, transport, heard, written, listen, acknowledge, cancel, ...fake };
}

describe('followListens on the stdio transport', () => {
  it('trims a listen before the server reads it, and polls from its acknowledgement to its cancel', async () => {
    const s = await session();
    await s.listen(1, [CHANGES_URI, 'model-feed://models/x']);
    expect(s.heard[0]).toMatchObject({ params: { notifications: { resourceSubscriptions: [CHANGES_URI] } } });
    expect(s.subscribers.size).toBe(0);
    await s.acknowledge(1, [CHANGES_URI]);
    expect(s.subscribers.size).toBe(1);
    for (const notify of s.subscribers) notify();
    await tick();
    expect(s.written.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/resources/updated',
      params: { uri: CHANGES_URI, _meta: { [SUBSCRIPTION_ID]: 1 } },
    });
    await s.cancel(1);
    expect(s.subscribers.size).toBe(0);
  });

  it('never polls for a listen the server refused, nor for one on nothing that changes', async () => {
    const s = await session();
    await s.listen(2, [CHANGES_URI]);
    await s.transport.send({ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } });
    await s.acknowledge(2, [CHANGES_URI]);
    await s.listen(3, ['model-feed://models/x']);
    await s.acknowledge(3, []);
    expect(s.subscribers.size).toBe(0);
  });

  it('keeps polling while any listen is open, and stops when the session closes', async () => {
    const s = await session();
    await s.listen(1, [CHANGES_URI]);
    await s.listen(2, [CHANGES_URI]);
    await s.acknowledge(1, [CHANGES_URI]);
    await s.acknowledge(2, [CHANGES_URI]);
    await s.cancel(1);
    expect(s.subscribers.size).toBe(1);
    s.input.end();
    await tick();
    expect(s.subscribers.size).toBe(0);
  });

  it('ends each listen with the reason when polling cannot work: the server hears a cancel, the client an error', async () => {
    const facts = {
      method: 'GET',
      path: '/api/v1/changes',
      host: 'api.example',
      attempts: 1,
      proxy: undefined,
    };
    const s = await session(new AuthError(401, 'Invalid API key', facts, undefined));
    await s.listen(5, [CHANGES_URI]);
    await s.acknowledge(5, [CHANGES_URI]);
    await tick();
    expect(s.heard.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 5 },
    });
    const answer = s.written.find((message) => 'id' in message && message.id === 5 && 'error' in message);
    expect(answer).toMatchObject({ error: { code: -32603, message: expect.stringMatching(/key/i) } });
    expect(s.subscribers.size).toBe(0);
    expect(s.transport.activity.methodOf(5)).toBeUndefined();
  });
});
