import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { MAX_DEPTH, MAX_LINE_BYTES, nestedDeeperThan } from '../../src/stdio/lines.js';
import { StdioTransport } from '../../src/stdio/transport.js';

function setup() {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const log = createLogger({ level: 'debug', format: 'text', write: (line) => logs.push(line) });
  const transport = new StdioTransport(input, output, log);
  const messages: unknown[] = [];
  const written: unknown[] = [];
  const errors: Error[] = [];
  let raw = '';
  let closed = false;
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e);
  transport.onclose = () => {
    closed = true;
  };
  output.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    for (const line of chunk.toString().split('\n').filter(Boolean)) written.push(JSON.parse(line));
  });
  return {
    input,
    output,
    transport,
    messages,
    written,
    errors,
    logs,
    raw: () => raw,
    isClosed: () => closed,
  };
}

/** `[[[…0…]]]`, `depth` arrays deep, built without recursion. */
function nested(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** The same as a JSON text, for input lines. */
const nestedJson = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

const tick = () => new Promise((r) => setImmediate(r));

describe('StdioTransport', () => {
  it('delivers JSON-RPC messages split across chunks, with CRLF or LF', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":1,"met');
    t.input.write('hod":"ping"}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await tick();
    expect(t.messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
  });

  it('answers a line that is not JSON with -32700 and id null, and keeps going', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('hello there\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    expect(t.written).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } },
    ]);
    expect(t.messages).toHaveLength(1);
  });

  it('answers JSON that is not JSON-RPC with -32600, echoing a usable id', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('{"id":7,"method":"ping"}\n[1,2]\n"text"\n');
    await tick();
    expect(t.written).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) },
      },
    ]);
    expect(t.messages).toHaveLength(0);
  });

  it('skips an oversized line with one error and reads the next line normally', async () => {
    const t = setup();
    await t.transport.start();
    const chunk = 'x'.repeat(1024 * 1024);
    for (let i = 0; i <= MAX_LINE_BYTES / chunk.length; i++) t.input.write(chunk);
    t.input.write('\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await tick();
    expect(t.written).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('larger than') } },
    ]);
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 3, method: 'ping' }]);
  });

  it('reports the end of stdin as a close', async () => {
    const t = setup();
    await t.transport.start();
    t.input.end();
    await tick();
    expect(t.isClosed()).toBe(true);
  });

  it('answers a tool call whose result is too deep to serialise with a tool error, on one whole line', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_model","arguments":{}}}\n',
    );
    await tick();
    const result = { content: [{ type: 'text', text: 'ok' }], structuredContent: { deep: nested(10_000) } };
    await t.transport.send({ jsonrpc: '2.0', id: 5, result });
    await tick();
    expect(t.raw().endsWith('\n')).toBe(true);
    expect(t.written).toEqual([
      {
        jsonrpc: '2.0',
        id: 5,
        result: {
          content: [
            { type: 'text', text: expect.stringMatching(/could not be serialised.*too deep or too large/) },
          ],
          isError: true,
        },
      },
    ]);
    expect(t.logs.join('')).toMatch(/error: .*could not be serialised.* id=5/);
  });

  it('answers any other request whose result cannot be serialised with -32603', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":"a","method":"tools/list"}\n');
    await tick();
    await t.transport.send({ jsonrpc: '2.0', id: 'a', result: { tools: nested(10_000) as [] } });
    await tick();
    expect(t.written).toEqual([
      {
        jsonrpc: '2.0',
        id: 'a',
        error: {
          code: -32603,
          message: expect.stringMatching(/could not be serialised.*too deep or too large/),
        },
      },
    ]);
  });

  it('rejects a notification it cannot serialise, and writes nothing', async () => {
    const t = setup();
    await t.transport.start();
    const huge = {
      jsonrpc: '2.0' as const,
      method: 'notifications/message',
      params: { data: nested(10_000) },
    };
    await expect(t.transport.send(huge)).rejects.toThrow();
    await tick();
    expect(t.raw()).toBe('');
  });

  it('refuses a message nested deeper than any MCP message with -32600, without handing it on', async () => {
    const t = setup();
    await t.transport.start();
    t.input.write(
      `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_model","arguments":{"id":${nestedJson(1000)}}}}\n`,
    );
    // A response (to nothing) gets id null: its id is the client's, an answer with it would look like ours.
    t.input.write(`{"jsonrpc":"2.0","id":9,"result":{"a":${nestedJson(100_000)}}}\n`);
    t.input.write(
      `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"arguments":{"id":${nestedJson(60)}}}}\n`,
    );
    await tick();
    expect(t.written).toEqual([
      {
        jsonrpc: '2.0',
        id: 8,
        error: { code: -32600, message: expect.stringContaining('nested deeper than') },
      },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: expect.stringContaining('nested deeper than') },
      },
    ]);
    expect(t.messages).toHaveLength(1);
  });

  it('reports a throw from the message handler as one error, and keeps reading', async () => {
    const t = setup();
    t.transport.onmessage = (m) => {
      if ('id' in m && m.id === 1) throw new RangeError('Maximum call stack size exceeded');
      t.messages.push(m);
    };
    await t.transport.start();
    t.input.write('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await tick();
    expect(t.errors.map((e) => e.message)).toEqual([
      expect.stringContaining('RangeError: Maximum call stack size exceeded'),
    ]);
    expect(t.messages).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('writes U+2028, U+2029 and C1 controls as \\u escapes: one line per message, same values', async () => {
    const t = setup();
    await t.transport.start();
    const text = 'a\u2028b\u2029c\u009bd\u202ee';
    await t.transport.send({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text }] } });
    await tick();
    expect(t.raw()).toContain('a\\u2028b\\u2029c\\u009bd\\u202ee');
    expect(t.raw()).not.toMatch(/[\u2028\u2029\u009b\u202e]/);
    expect(t.written).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text }] } }]);
  });
});

describe('nestedDeeperThan', () => {
  it('counts the message itself as level one, objects and arrays alike', () => {
    expect(nestedDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [{ b: [] }] }, 3)).toBe(true);
    expect(nestedDeeperThan('text', 0)).toBe(false);
    expect(nestedDeeperThan(nested(MAX_DEPTH), MAX_DEPTH)).toBe(false);
    expect(nestedDeeperThan(nested(MAX_DEPTH + 1), MAX_DEPTH)).toBe(true);
  });

  it('walks 100,000 levels without overflowing the stack', () => {
    expect(nestedDeeperThan(nested(100_000), Number.POSITIVE_INFINITY)).toBe(false);
  });
});
