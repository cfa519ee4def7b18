import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { type FaultServer, startFaultServer } from '../support/fault-server.js';
import { startProxy } from '../support/proxy.js';
import {
  connectCli,
  INITIALIZE,
  INITIALIZED,
  request,
  resultText,
  scrubbedEnv,
  spawnRaw,
  toolCall,
} from './harness.js';

let sandbox: Sandbox;
let hung: FaultServer;

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  hung = await startFaultServer(() => new Promise(() => {}));
});
afterAll(async () => {
  await Promise.all([sandbox.close(), hung.close()]);
});

describe('cancellation', () => {
  it('notifications/cancelled aborts the upstream request (its socket closes) and no result is sent', async () => {
    const raw = spawnRaw(
      scrubbedEnv({ MODEL_FEED_API_KEY: 'mfsk_cancel_0123456789', MODEL_FEED_BASE_URL: hung.url }),
    );
    try {
      raw.send(INITIALIZE);
      raw.send(INITIALIZED);
      raw.send(toolCall(1, 'list_model_changes', {}));
      const deadline = performance.now() + 5000;
      while (hung.requests.length === 0 && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(hung.requests).toHaveLength(1);
      raw.send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 1, reason: 'user stopped it' },
        }),
      );
      while (hung.abandoned === 0 && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(hung.abandoned).toBe(1);
      raw.send(request(2, 'ping'));
      await raw.answer(2);
      expect(raw.stdout()).not.toMatch(/"id":1[,}]/);
    } finally {
      raw.child.stdin.end();
      await raw.exited;
    }
  });

  it('in MCP 2026-07-28 too: the upstream request is aborted and no result is sent', async () => {
    const raw = spawnRaw(
      scrubbedEnv({ MODEL_FEED_API_KEY: 'mfsk_cancel_0123456789', MODEL_FEED_BASE_URL: hung.url }),
    );
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'e2e', version: '1' },
    };
    try {
      const before = { requests: hung.requests.length, abandoned: hung.abandoned };
      raw.send(request(1, 'tools/call', { name: 'list_model_changes', arguments: {}, _meta: envelope }));
      const deadline = performance.now() + 5000;
      while (hung.requests.length === before.requests && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(hung.requests).toHaveLength(before.requests + 1);
      raw.send(
        JSON.stringify({
          jsonrpc: '2.0',
          method: 'notifications/cancelled',
          params: { requestId: 1, reason: 'user stopped it', _meta: envelope },
        }),
      );
      while (hung.abandoned === before.abandoned && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      expect(hung.abandoned).toBe(before.abandoned + 1);
      raw.send(request(2, 'tools/list', { _meta: envelope }));
      await raw.answer(2);
      expect(raw.stdout()).not.toMatch(/"id":1[,}]/);
    } finally {
      raw.child.stdin.end();
      await raw.exited;
    }
  });
});

describe('concurrency', () => {
  it('200 concurrent calls over one stdio session: 200 correct answers, none mixed up', async () => {
    const session = await connectCli(
      scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url }),
    );
    try {
      const catalog = (await session.call('search_models', { limit: 100 })).structuredContent as {
        items: { id: string }[];
      };
      const ids = catalog.items.map((m) => m.id);
      const calls = Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? session.call('list_model_changes', { since: 0, limit: 1 + (i % 50) }).then((r) => {
              const items = (r.structuredContent as { items: unknown[] }).items;
              return items.length === 1 + (i % 50);
            })
          : session.call('get_model', { id: ids[i % ids.length]!.toUpperCase() }).then((r) => {
              return (r.structuredContent as { model: { id: string } }).model.id === ids[i % ids.length];
            }),
      );
      const correct = await Promise.all(calls);
      expect(correct.filter(Boolean)).toHaveLength(200);
      expect(session.protocolErrors).toEqual([]);
    } finally {
      await session.close();
    }
  });
});

describe('bad input', () => {
  it('answers malformed lines, unknown methods and tools, wrong types and huge strings, and stays up', async () => {
    const raw = spawnRaw(scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url }));
    try {
      raw.send(INITIALIZE);
      raw.send(INITIALIZED);
      raw.send('{"jsonrpc":"2.0","id":1,"method":');
      raw.send('{"jsonrpc":"2.0","id":2}');
      raw.send(request(3, 'logging/setLevel', { level: 'info' }));
      raw.send(toolCall(4, 'drop_table', {}));
      raw.send(toolCall(5, 'search_models', { maxInputPrice: { cheap: true } }));
      raw.send(toolCall(6, 'get_model', { id: 'x'.repeat(1_000_000) }));
      raw.send(toolCall(7, 'get_model', 'openai/gpt-4o'));
      raw.send(request(8, 'ping'));
      expect((await raw.answer(2)).error).toMatchObject({ code: -32600 });
      expect((await raw.answer(3)).error).toMatchObject({ code: -32601 });
      expect((await raw.answer(4)).error).toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown tool "drop_table"'),
      });
      expect((await raw.answer(5)).result).toMatchObject({
        isError: true,
        content: [
          {
            text: 'Invalid arguments for search_models: "maxInputPrice" is {"cheap":true}; allowed: a number >= 0.',
          },
        ],
      });
      const huge = (await raw.answer(6)).result as { isError: boolean; content: { text: string }[] };
      expect(huge.isError).toBe(true);
      expect(huge.content[0]!.text).toContain('(1000002 characters)');
      expect(huge.content[0]!.text.length).toBeLessThan(300);
      expect((await raw.answer(7)).error).toMatchObject({ code: -32602 });
      await raw.answer(8);
      expect(raw.stdout()).toMatch(/"id":null,"error":\{"code":-32700/);
      expect(raw.child.exitCode).toBeNull();
    } finally {
      raw.child.stdin.end();
      await raw.exited;
    }
  });
});

describe('security', () => {
  it('http:// to a non-loopback host is refused with a clear message, and nothing is sent', async () => {
    const trap = await startProxy({ hosts: {} });
    const session = await connectCli(
      scrubbedEnv({
        MODEL_FEED_API_KEY: 'mfsk_must_not_travel_in_clear',
        MODEL_FEED_BASE_URL: 'http://feed.example.com',
        HTTP_PROXY: trap.url,
        HTTPS_PROXY: trap.url,
      }),
    );
    try {
      const result = await session.call('list_model_changes', {});
      expect(result.isError).toBe(true);
      expect(resultText(result)).toBe(
        'MODEL_FEED_BASE_URL uses plain http:// for feed.example.com, which would send the API key in clear text. Use https://feed.example.com (plain http is allowed only for localhost, 127.0.0.0/8 and ::1).',
      );
      expect(trap.connects).toEqual([]);
    } finally {
      await session.close();
      await trap.close();
    }
  });

  it('--log-format json writes JSON lines to stderr, and the key appears nowhere at debug level', async () => {
    const raw = spawnRaw(scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url }), [
      '--log-level',
      'debug',
      '--log-format',
      'json',
    ]);
    raw.send(INITIALIZE);
    raw.send(INITIALIZED);
    raw.send(toolCall(1, 'get_model', { id: 'openai/gpt-4o' }));
    raw.send(toolCall(2, 'list_model_changes', { limit: 500 }));
    await raw.answer(1);
    await raw.answer(2);
    raw.child.stdin.end();
    await raw.exited;
    const lines = raw.stderr().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines)
      expect(JSON.parse(line)).toMatchObject({ level: expect.any(String), msg: expect.any(String) });
    expect(lines.some((l) => JSON.parse(l).level === 'debug')).toBe(true);
    expect(raw.stderr()).not.toContain(sandbox.key);
    expect(raw.stdout()).not.toContain(sandbox.key);
  });
});

describe('a client that closed our stderr', () => {
  it('logging into the closed pipe neither spins nor stops the server: it answers on', async () => {
    const raw = spawnRaw(scrubbedEnv(), ['--sandbox', '--log-level', 'debug']);
    try {
      raw.send(INITIALIZE);
      await raw.answer(0, 5000);
      raw.child.stderr.destroy();
      // Each of these logs a warning into the closed pipe.
      for (let i = 0; i < 5; i++) raw.send('not json');
      await new Promise((r) => setTimeout(r, 300));
      const usage = () => {
        const stat = readFileSync(`/proc/${raw.child.pid}/stat`, 'utf8').split(' ');
        return Number(stat[13]) + Number(stat[14]);
      };
      const ticks = process.platform === 'linux' ? usage() : 0;
      await new Promise((r) => setTimeout(r, 500));
      if (process.platform === 'linux') expect(usage() - ticks, 'CPU ticks in 0.5 s').toBeLessThan(20);
      raw.send(request(2, 'ping'));
      await raw.answer(2, 5000);
      expect(raw.child.exitCode).toBeNull();
    } finally {
      raw.child.stdin.end();
      await raw.exited;
    }
  });
});

describe('hostile bytes', () => {
  /** `[[[…0…]]]`, `depth` arrays deep, as JSON text. */
  const nestedJson = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

  it('a tool result too deep to serialise (passed through from upstream) is answered, and the server goes on', async () => {
    const deep = await startFaultServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        `{"items":[{"id":"e1","eventType":"new_model","title":"t","official":true,"detectedAt":"2025-01-01T00:00:00Z",` +
          `"model":{"slug":"a/b"},"extra":${nestedJson(4500)}}],"nextCursor":null,"latest":5}`,
      );
    });
    const raw = spawnRaw(
      scrubbedEnv({ MODEL_FEED_API_KEY: 'mfsk_deep_0123456789', MODEL_FEED_BASE_URL: deep.url }),
    );
    try {
      raw.send(INITIALIZE);
      raw.send(INITIALIZED);
      raw.send(toolCall(1, 'list_model_changes', {}));
      // The body limits refuse it first; the transport's own guard (unit-tested) is the second line.
      expect((await raw.answer(1, 5000)).result).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: expect.stringContaining('nested more than 32 levels deep') }],
      });
      raw.send(request(2, 'ping'));
      await raw.answer(2, 5000);
    } finally {
      raw.child.stdin.end();
      await raw.exited;
      await deep.close();
    }
  });

  it('a response to nothing, 100,000 levels deep, is refused with -32600: no crash, no stack trace', async () => {
    const raw = spawnRaw(scrubbedEnv(), ['--sandbox']);
    try {
      raw.send(INITIALIZE);
      await raw.answer(0, 5000);
      raw.send(`{"jsonrpc":"2.0","id":99,"result":{"a":${nestedJson(100_000)}}}`);
      raw.send(request(2, 'ping'));
      await raw.answer(2, 5000);
      expect(raw.stdout()).toMatch(
        /"id":null,"error":\{"code":-32600,"message":"Invalid Request: [^"]*nested deeper/,
      );
      expect(raw.child.exitCode).toBeNull();
      expect(raw.stderr()).not.toMatch(/\n\s+at |index\.cjs/);
    } finally {
      raw.child.stdin.end();
      await raw.exited;
    }
  });
});
