/**
 * The stdio transport's activity, the one record of requests in flight: what its listeners hear,
 * in which order, for requests answered, failed, cancelled, streams held open, and listeners that
 * throw. A stand-in server (the transport's `onmessage`) answers through `send`, as the SDK does.
 */

import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { DRAIN_MS, StdioTransport } from '../../src/stdio/transport.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function session() {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const log = createLogger({ level: 'warn', format: 'text', write: (line) => logs.push(line) });
  const transport = new StdioTransport(input, output, log);
  const events: string[] = [];
  const errors: Error[] = [];
  const written: JSONRPCMessage[] = [];
  transport.onmessage = (message) => {
    events.push(
      `server reads ${'id' in message ? message.id : ('method' in message && message.method) || '?'}`,
    );
  };
  transport.onerror = (error) => errors.push(error);
  transport.onclose = () => events.push('server closed');
  const { activity } = transport;
  activity.onRequest(({ id, method }) => events.push(`request ${id} ${method}`));
  activity.onSettled(({ id, method, outcome }) => events.push(`settled ${id} ${method} ${outcome}`));
  activity.onIdle(() => events.push('idle'));
  activity.onNotification(({ method }) => events.push(`notification ${method}`));
  activity.onServerNotification(({ method }) => events.push(`server notification ${method}`));
  activity.onClosed(() => events.push('closed'));
  output.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) written.push(JSON.parse(line));
  });
  await transport.start();
  const request = (id: string | number, method: string, params: object = {}) =>
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  const notify = (method: string, params: object = {}) =>
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  return { input, transport, activity, events, errors, written, logs, request, notify };
}

describe('the activity of a stdio session', () => {
  it('hears a request before the server reads it, its settling once answered, and idle after the last', async () => {
    const s = await session();
    expect(s.activity.idle).toBe(true);
    s.request(1, 'tools/list');
    s.request('b', 'tools/call');
    await tick();
    expect(s.activity.idle).toBe(false);
    expect(s.activity.methodOf('b')).toBe('tools/call');
    await s.transport.send({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    await s.transport.send({ jsonrpc: '2.0', id: 'b', error: { code: -32602, message: 'bad' } });
    expect(s.activity.idle).toBe(true);
    expect(s.events).toEqual([
      'request 1 tools/list',
      'server reads 1',
      'request b tools/call',
      'server reads b',
      'settled 1 tools/list result',
      'settled b tools/call error',
      'idle',
    ]);
  });

  it('settles a request the client cancelled, before the server hears of it; a late answer settles nothing', async () => {
    const s = await session();
    s.request(7, 'tools/call');
    s.notify('notifications/cancelled', { requestId: 7 });
    await tick();
    await s.transport.send({ jsonrpc: '2.0', id: 7, result: {} });
    expect(s.events).toEqual([
      'request 7 tools/call',
      'server reads 7',
      'settled 7 tools/call cancelled',
      'idle',
      'notification notifications/cancelled',
      'server reads notifications/cancelled',
    ]);
  });

  it('tracks a listen as a stream: settled when cancelled, never work in flight', async () => {
    const s = await session();
    s.request(3, 'subscriptions/listen');
    await tick();
    expect(s.activity.idle).toBe(true);
    expect(s.activity.methodOf(3)).toBe('subscriptions/listen');
    s.notify('notifications/cancelled', { requestId: 3 });
    await tick();
    expect(s.events.filter((event) => !event.startsWith('server reads'))).toEqual([
      'request 3 subscriptions/listen',
      'settled 3 subscriptions/listen cancelled',
      'notification notifications/cancelled',
    ]);
  });

  it('hears the server’s notifications; a client’s answer to a server request is no request of its own', async () => {
    const s = await session();
    s.input.write('{"jsonrpc":"2.0","id":9,"result":{}}\n');
    await tick();
    await s.transport.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await s.transport.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(s.events).toEqual(['server reads 9', 'server notification notifications/tools/list_changed']);
    expect(s.activity.idle).toBe(true);
  });

  it('settles an answer that could not be serialised as what was sent instead', async () => {
    const s = await session();
    s.request('a', 'tools/list');
    s.request('c', 'tools/call');
    await tick();
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    await s.transport.send({ jsonrpc: '2.0', id: 'a', result: { tools: deep as [] } });
    await s.transport.send({ jsonrpc: '2.0', id: 'c', result: { content: [], deep } });
    expect(s.events.filter((event) => event.startsWith('settled'))).toEqual([
      'settled a tools/list error',
      'settled c tools/call result',
    ]);
    expect(s.written.map((message) => ('error' in message ? 'error' : 'result'))).toEqual([
      'error',
      'result',
    ]);
  });

  it('a listener that throws costs its own call: reported once, the server and the other listeners still hear', async () => {
    const s = await session();
    s.activity.onRequest(() => {
      throw new TypeError('a listener broke');
    });
    const after: string[] = [];
    s.activity.onRequest(({ id }) => after.push(String(id)));
    s.request(1, 'ping');
    await tick();
    expect(s.errors.map((error) => error.message)).toEqual([
      expect.stringContaining('TypeError: a listener broke'),
    ]);
    expect(s.logs.join('')).toContain('a listener broke');
    expect(s.events).toContain('server reads 1');
    expect(after).toEqual(['1']);
  });

  it('stops a listener on its unsubscribe, even one added twice', async () => {
    const s = await session();
    const heard: unknown[] = [];
    const listener = ({ id }: { id: unknown }) => heard.push(id);
    const stop = s.activity.onRequest(listener);
    s.activity.onRequest(listener);
    s.request(1, 'ping');
    await tick();
    stop();
    s.request(2, 'ping');
    await tick();
    expect(heard).toEqual([1, 1, 2]);
  });

  it('ends a request in the server’s stead: the server hears a cancel, the client gets the error, it settles failed', async () => {
    const s = await session();
    s.request(4, 'subscriptions/listen');
    await tick();
    await s.transport.endRequest(4, { code: -32603, message: 'no key' });
    expect(s.events).toEqual([
      'request 4 subscriptions/listen',
      'server reads 4',
      'server reads notifications/cancelled',
      'settled 4 subscriptions/listen error',
    ]);
    expect(s.written).toEqual([{ jsonrpc: '2.0', id: 4, error: { code: -32603, message: 'no key' } }]);
  });

  it(`at the end of input, closes as soon as the last request in flight is answered, not after ${DRAIN_MS} ms`, async () => {
    const s = await session();
    s.request(1, 'tools/call');
    s.request(2, 'subscriptions/listen');
    s.input.end();
    await tick();
    expect(s.events).not.toContain('closed');
    // Closed by the answer itself, in the same turn: no DRAIN_MS timer has run.
    await s.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(s.events.slice(-4)).toEqual(['settled 1 tools/call result', 'idle', 'server closed', 'closed']);
    // Closed: nothing more is heard.
    await s.transport.send({ jsonrpc: '2.0', method: 'notifications/message' });
    expect(s.events.at(-1)).toBe('closed');
  });

  it('at the end of input with only a listen open, closes at once', async () => {
    const s = await session();
    s.request(2, 'subscriptions/listen');
    s.input.end();
    await tick();
    expect(s.events.slice(-2)).toEqual(['server closed', 'closed']);
  });
});
