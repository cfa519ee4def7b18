import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.js';
import { MAX_LINE_BYTES, StdioTransport } from '../../src/stdio.js';

function setup() {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioTransport(input, output, silentLogger);
  const messages: unknown[] = [];
  const written: unknown[] = [];
  let closed = false;
  transport.onmessage = (m) => messages.push(m);
  transport.onclose = () => {
    closed = true;
  };
  output.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) written.push(JSON.parse(line));
  });
  return { input, output, transport, messages, written, isClosed: () => closed };
}

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
});
