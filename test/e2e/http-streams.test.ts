/**
 * `--http` under the weight of open streams, through the built CLI and raw sockets on loopback: a
 * 2025 GET stream's headers come at once, and when every connection is busy a new client is told
 * so (503, `retry-after`) instead of being reset.
 */

import { type Socket, connect as tcpConnect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { INITIALIZE_PARAMS, MCP_HEADERS, rawRequest, rpc } from '../http/raw-request.js';
import { scrubbedEnv } from './harness.js';
import { startHttpCli } from './http-support.js';

let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
  env = scrubbedEnv({ MODEL_FEED_API_KEY: sandbox.key, MODEL_FEED_BASE_URL: sandbox.url });
});
afterAll(() => sandbox.close());

/** What a raw socket has read so far, and whether it was reset or closed. */
interface RawSocket {
  socket: Socket;
  received(): string;
  error(): string | undefined;
  closed: Promise<void>;
}

function openSocket(port: number, request: string): Promise<RawSocket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(port, '127.0.0.1');
    let text = '';
    let failure: string | undefined;
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('connect', () => {
      socket.write(request);
      resolve({ socket, received: () => text, error: () => failure, closed });
    });
    socket.once('error', reject);
  });
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

it('2025: the GET stream answers 200 at once, before its first keep-alive 15 s later', async () => {
  const cli = await startHttpCli(env);
  const socket: RawSocket[] = [];
  try {
    const auth = { authorization: `Bearer ${sandbox.key}` };
    const opened = await rawRequest(cli.url, {
      headers: { ...MCP_HEADERS, ...auth },
      body: rpc(1, 'initialize', INITIALIZE_PARAMS),
    });
    const session = opened.headers['mcp-session-id'] as string;
    expect(session).toBeTruthy();
    const { host, port } = new URL(cli.url);
    const stream = await openSocket(
      Number(port),
      `GET /api/mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${sandbox.key}\r\n` +
        `Accept: text/event-stream\r\nMcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n`,
    );
    socket.push(stream);
    // Well under the 15 s keep-alive that used to carry the headers.
    await until(() => stream.received().includes('\r\n\r\n'), 'the response headers', 8000);
    expect(stream.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(stream.received().toLowerCase()).toContain('content-type: text/event-stream');
  } finally {
    for (const one of socket) one.socket.destroy();
    await cli.stop();
  }
});

it('256 busy connections (slow keyed bodies and listen streams): the next client gets 503 with retry-after, not a reset', async () => {
  const cli = await startHttpCli(env);
  const sockets: RawSocket[] = [];
  try {
    const { host, port } = new URL(cli.url);
    const head = (method: string, extra: string) =>
      `${method} /api/mcp HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${sandbox.key}\r\n` +
      `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${extra}\r\n`;
    const listen = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'subscriptions/listen',
      params: {
        notifications: { resourceSubscriptions: ['model-feed://changes'] },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const listenRequest =
      head(
        'POST',
        `Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: ${Buffer.byteLength(listen)}\r\n`,
      ) + listen;
    // One at a time, each once the server has read its request: a socket the server has not read
    // yet is idle to it, and may be closed to make room for the next.
    const busy = async (request: string, sign: string) => {
      const one = await openSocket(Number(port), request);
      sockets.push(one);
      await until(() => one.received().includes(sign), `the request read (${sign})`);
    };
    for (let i = 0; i < 32; i++) await busy(listenRequest, 'acknowledged');
    // A body that never comes: the request holds its connection until the request timeout. The
    // server's "100 Continue" says it has read the headers and waits for the body.
    const slowBody = `${head('POST', 'Content-Length: 1000\r\nExpect: 100-continue\r\n')}`;
    for (let i = 32; i < 256; i++) await busy(slowBody, '100 Continue');

    const late = await openSocket(
      Number(port),
      head('POST', `Content-Length: ${rpc(1, 'tools/list').length}\r\n`) + rpc(1, 'tools/list'),
    );
    await late.closed;
    expect(late.error()).toBeUndefined();
    const answer = late.received();
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toMatch(/\r\nretry-after: \d+\r\n/);
    expect(answer).toContain('"jsonrpc":"2.0"');
    // Every busy connection is still open: none was cut to make room.
    expect(sockets.every((one) => !one.socket.destroyed && one.error() === undefined)).toBe(true);
  } finally {
    for (const one of sockets) one.socket.destroy();
    await cli.stop();
  }
});
