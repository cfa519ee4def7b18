/**
 * The `--http` endpoint in process (src/http/endpoint.ts): a real SDK Client over Streamable HTTP, and
 * raw requests for what a client library would never send. The MCP server behind it answers from
 * an in-process sandbox. The built CLI is tested end to end in test/e2e/http.test.ts.
 */

import { readFileSync } from 'node:fs';
import { type Socket, connect as tcpConnect } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Server as McpServer } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { unavailableReason } from '../../src/describe-error.js';
import { type HttpEndpoint, type HttpEndpointOptions, startHttpEndpoint } from '../../src/http/endpoint.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { createServer } from '../../src/mcp-server.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/service.js';
import { INITIALIZE_PARAMS, MCP_HEADERS, rawRequest, rpc } from './raw-request.js';

const KEY = 'mfsk_http_endpoint_test_key';
let sandbox: Sandbox;
const open: HttpEndpoint[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ tier: 'pro' });
});
afterAll(() => sandbox.close());
afterEach(async () => {
  await Promise.all(open.splice(0).map((endpoint) => endpoint.close()));
});

/** `created`: every MCP server the endpoint makes, in order, for tests that speak through one. */
async function endpoint(
  options: Partial<HttpEndpointOptions> = {},
  created: McpServer[] = [],
): Promise<HttpEndpoint> {
  const api = createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.key,
    fetch: (url, init) => globalThis.fetch(url, init),
    userAgent: 'test',
    describeUnavailable: unavailableReason,
    timeoutMs: 5000,
    cacheTtlMs: 0,
    proxyLabel: undefined,
    log: silentLogger,
  });
  const started = await startHttpEndpoint({
    host: '127.0.0.1',
    port: 0,
    key: KEY,
    keyHint: 'the value of MODEL_FEED_API_KEY',
    log: silentLogger,
    createServer: (era) => {
      const server = createServer({ api, log: silentLogger, version: '0.0.0-test' }, era);
      created.push(server);
      return server;
    },
    ...options,
  });
  open.push(started);
  return started;
}

const auth = { authorization: `Bearer ${KEY}` };

async function connect(url: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } });
  const client = new Client({ name: 'endpoint-test', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  rawRequest(url, { headers: { ...MCP_HEADERS, ...auth, ...headers }, body });

interface CurlExample {
  headers: Record<string, string>;
  body: string;
}

/** The first `curl` command of a page's sh blocks: its `-H` headers (names lower-cased) and `-d` body. */
function curlExample(markdown: string): CurlExample | undefined {
  const blocks = markdown
    .split(/^```sh\n/m)
    .slice(1)
    .map((block) => block.split(/^```/m)[0] ?? '');
  const command = blocks
    .map((block) => block.replace(/\\\n\s*/g, ' '))
    .flatMap((block) => block.split('\n'))
    .find((line) => line.startsWith('curl '));
  if (command === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [, header] of command.matchAll(/-H '([^']*)'/g)) {
    const colon = (header as string).indexOf(':');
    headers[(header as string).slice(0, colon).trim().toLowerCase()] = (header as string)
      .slice(colon + 1)
      .trim();
  }
  return { headers, body: /-d '([^']*)'/.exec(command)?.[1] ?? '' };
}

describe('the --http endpoint', () => {
  it('serves a real SDK client in a session: list, call, then DELETE ends the session', async () => {
    const server = await endpoint();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/mcp$/);
    const { client, transport } = await connect(server.url);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.sessions).toBe(1);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'list_model_changes',
      'get_model',
      'search_models',
    ]);
    const result = await client.callTool({ name: 'get_model', arguments: { id: 'openai/gpt-4o' } });
    expect(result.structuredContent).toMatchObject({ catalogStatus: 'listed' });
    await transport.terminateSession();
    expect(server.sessions).toBe(0);
    await client.close();
  });

  it('answers a request without a session and without initialize once, as the hosted endpoint does', async () => {
    const server = await endpoint();
    const answer = await post(
      server.url,
      rpc(7, 'tools/call', { name: 'search_models', arguments: { limit: 1 } }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(answer.body)).toMatchObject({ id: 7, result: { structuredContent: { items: [{}] } } });
    expect(server.sessions).toBe(0);
  });

  it('refuses resources/subscribe without a session, which no update could reach, and polls nothing', async () => {
    const server = await endpoint();
    sandbox.clearRequests();
    const answer = await post(server.url, rpc(3, 'resources/subscribe', { uri: 'model-feed://changes' }));
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body);
    expect(body).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(body.error.message).toMatch(/^resources\/subscribe needs a session: send initialize first/);
    expect(sandbox.requests).toHaveLength(0);
    // In a session it is served as before.
    const opened = await post(server.url, rpc(1, 'initialize', INITIALIZE_PARAMS));
    const session = { 'mcp-session-id': String(opened.headers['mcp-session-id']) };
    const inSession = await post(
      server.url,
      rpc(4, 'resources/subscribe', { uri: 'model-feed://changes' }),
      session,
    );
    expect(JSON.parse(inSession.body)).toMatchObject({ id: 4, result: {} });
  });

  it('the curl one-shot in docs/clients.md works as written; without its Accept header the answer is 406', async () => {
    const server = await endpoint();
    const curl = curlExample(readFileSync(new URL('../../docs/clients.md', import.meta.url), 'utf8'));
    expect(curl, 'a curl example in docs/clients.md').toBeDefined();
    const { headers, body } = curl as CurlExample;
    const sent = { ...headers, authorization: headers.authorization?.replace('<your key>', KEY) };
    const answer = await rawRequest(server.url, { headers: sent, body });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: 1, result: { structuredContent: {} } });
    for (const accept of [undefined, '*/*', 'application/json']) {
      const refused = await rawRequest(server.url, { headers: { ...sent, accept }, body });
      expect(refused.status, String(accept)).toBe(406);
    }
  });

  it('401 without a key, with a malformed header or a wrong key, each saying what to send', async () => {
    const server = await endpoint();
    const body = rpc(1, 'tools/list');
    for (const [headers, text] of [
      [
        {},
        /^Missing Authorization header: send "Authorization: Bearer <key>" with the value of MODEL_FEED_API_KEY\.$/,
      ],
      [{ authorization: `Basic ${KEY}` }, /^Malformed Authorization header/],
      [{ authorization: 'Bearer mfsk_wrong' }, /^Key not accepted: send "Authorization: Bearer <key>"/],
      [{ authorization: `Bearer ${KEY}x` }, /^Key not accepted/],
    ] as const) {
      const answer = await rawRequest(server.url, { headers: { ...MCP_HEADERS, ...headers }, body });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer');
      expect(JSON.parse(answer.body).error).toMatch(text);
      expect(answer.body).not.toContain(KEY);
    }
  });

  it('403 for a foreign Host or Origin, before the key is looked at', async () => {
    const server = await endpoint();
    const { port } = server.address;
    const body = rpc(1, 'initialize', INITIALIZE_PARAMS);
    for (const headers of [
      { host: 'evil.example' },
      { host: `evil.example:${port}` },
      { host: `localhost:${port + 1}` },
      { host: `localhost:${port}`, origin: 'http://evil.example' },
      { host: `localhost:${port}`, origin: `http://localhost:${port + 1}` },
    ]) {
      for (const key of [auth, {}]) {
        const answer = await rawRequest(server.url, {
          headers: { ...MCP_HEADERS, ...key, ...headers },
          body,
        });
        expect(answer.status, JSON.stringify(headers)).toBe(403);
        expect(JSON.parse(answer.body).error).toMatch(/^Forbidden: (Host|Origin) /);
      }
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const answer = await post(server.url, body, { host, origin: `http://${host}` });
      expect(answer.status, host).toBe(200);
    }
    expect(server.sessions).toBe(3);
  });

  it('413 for a body over the bound, declared or streamed; 400 for one that is not JSON', async () => {
    const server = await endpoint({ maxBodyBytes: 1024 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(2000) },
    });
    const declared = await post(server.url, big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error).toMatch(/larger than 1024 bytes/);
    const chunked = await post(server.url, big, { 'transfer-encoding': 'chunked' });
    expect(chunked.status).toBe(413);
    const notJson = await post(server.url, '{"jsonrpc":');
    expect(notJson.status).toBe(400);
    expect(JSON.parse(notJson.body)).toMatchObject({ error: { code: -32700 }, id: null });
  });

  it('the default bound is 1 MiB', async () => {
    const server = await endpoint();
    const pad = 'x'.repeat(1024 * 1024);
    const answer = await post(
      server.url,
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad } }),
    );
    expect(answer.status).toBe(413);
  });

  it('404 for another path or an unknown session; 405 for GET without a session', async () => {
    const server = await endpoint();
    const base = server.url.replace('/api/mcp', '');
    expect((await post(`${base}/mcp`, rpc(1, 'ping'))).status).toBe(404);
    const stale = await post(server.url, rpc(1, 'ping'), { 'mcp-session-id': 'no-such-session' });
    expect(stale.status).toBe(404);
    expect(JSON.parse(stale.body)).toMatchObject({ error: { code: -32001 } });
    const get = await rawRequest(server.url, {
      method: 'GET',
      headers: { ...auth, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });

  it('keeps at most maxSessions: a new one closes the least recently used', async () => {
    const server = await endpoint({ maxSessions: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await post(server.url, rpc(1, 'initialize', INITIALIZE_PARAMS));
      ids.push(String(answer.headers['mcp-session-id']));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(server.sessions).toBe(2);
    const statuses = [];
    for (const id of ids)
      statuses.push((await post(server.url, rpc(2, 'ping'), { 'mcp-session-id': id })).status);
    expect(statuses).toEqual([404, 200, 200]);
  });

  it('closes a session idle with no stream open; one holding a GET stream stays', async () => {
    const server = await endpoint({ idleSessionMs: 100 });
    const { client, transport } = await connect(server.url);
    const idle = await post(server.url, rpc(1, 'initialize', INITIALIZE_PARAMS));
    expect(server.sessions).toBe(2);
    // The SDK client holds the session's GET stream open, as it does after initialization.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(server.sessions).toBe(1);
    expect(
      (await post(server.url, rpc(2, 'ping'), { 'mcp-session-id': String(idle.headers['mcp-session-id']) }))
        .status,
    ).toBe(404);
    await expect(client.ping()).resolves.toEqual({});
    expect(transport.sessionId).toBeDefined();
    await client.close();
  });

  it('close() ends sessions and their open streams at once', async () => {
    // Idle connections kept for a minute: a close that waited for them would pass the bound by far.
    const server = await endpoint({ idleTimeoutMs: 60_000 });
    const { client } = await connect(server.url);
    await client.listTools();
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(server.sessions).toBe(0);
    await client.close();
  });
});

/** A raw socket to the endpoint that sends nothing, as an idle or hostile client holds one. */
function idleSocket(server: HttpEndpoint): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(server.address.port, '127.0.0.1');
    const opened = performance.now();
    const closed = new Promise<number>((done) =>
      socket.once('close', () => done(performance.now() - opened)),
    );
    socket.on('error', () => {});
    // Read whatever comes (a 408), or the socket would never see the end of the connection.
    socket.resume();
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('connections to the endpoint', () => {
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });

  it('holds at most maxConnections: idle sockets without a key make room, and a client with the key is served', async () => {
    const server = await endpoint({ maxConnections: 8 });
    const idle = [];
    for (let i = 0; i < 20; i++) {
      const one = await idleSocket(server);
      sockets.push(one.socket);
      idle.push(one);
    }
    const answer = await post(server.url, rpc(1, 'tools/list'));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.tools).toHaveLength(3);
    // Closed at once, oldest first: the 12 over the cap of 8, and one more for the served client.
    await wait(200);
    const closed = sockets.filter((socket) => socket.destroyed || socket.readableEnded).length;
    expect(closed).toBeGreaterThanOrEqual(13);
    expect(sockets.slice(-7).every((socket) => !socket.readableEnded)).toBe(true);
  });

  it('a socket that sends no complete request within headersTimeoutMs is closed', async () => {
    const server = await endpoint({ headersTimeoutMs: 300 });
    const silent = await idleSocket(server);
    const partial = await idleSocket(server);
    sockets.push(silent.socket, partial.socket);
    partial.socket.write('POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Node's own headers timeout is 60 s: closed well before that, it was this server's 300 ms.
    const within = (closed: Promise<number>) =>
      Promise.race([closed, wait(20_000).then(() => Number.POSITIVE_INFINITY)]);
    expect(await within(silent.closed)).toBeLessThan(15_000);
    expect(await within(partial.closed)).toBeLessThan(15_000);
  });

  it('a keyed request whose body never completes gets 408 within requestTimeoutMs, and its connection ends', async () => {
    const server = await endpoint({ requestTimeoutMs: 500, headersTimeoutMs: 300 });
    const slow = await idleSocket(server);
    sockets.push(slow.socket);
    let answer = '';
    slow.socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    slow.socket.write(
      `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.address.port}\r\nAuthorization: Bearer ${KEY}\r\n` +
        'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
    );
    expect(await Promise.race([slow.closed, wait(5000).then(() => Number.POSITIVE_INFINITY)])).toBeLessThan(
      5000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a refusal for a missing key ends the connection', async () => {
    const server = await endpoint();
    const answer = await rawRequest(server.url, { headers: MCP_HEADERS, body: rpc(1, 'tools/list') });
    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('close');
  });
});

describe('MCP 2026-07-28 on the endpoint', () => {
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'endpoint-test', version: '1' },
  };

  it('a quiet subscriptions/listen stream gets keep-alive comments, after its acknowledgement', async () => {
    const server = await endpoint({ keepAliveMs: 100 });
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: { notifications: { resourceSubscriptions: ['model-feed://changes'] }, _meta: envelope },
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let stream = '';
    const deadline = performance.now() + 3000;
    while (!stream.includes(': keepalive') && performance.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      stream += decoder.decode(value);
    }
    expect(stream.indexOf('notifications/subscriptions/acknowledged')).toBeGreaterThan(-1);
    expect(stream.indexOf(': keepalive')).toBeGreaterThan(
      stream.indexOf('notifications/subscriptions/acknowledged'),
    );
    await reader.cancel();
  });
});

describe('a stream whose client reads nothing', () => {
  const sockets: Socket[] = [];
  afterEach(() => {
    for (const socket of sockets.splice(0)) socket.destroy();
  });

  /** A logger that keeps its lines, to see when the endpoint cut a stream. */
  function recordingLog() {
    const lines: string[] = [];
    return { lines, log: createLogger({ level: 'info', format: 'text', write: (line) => lines.push(line) }) };
  }

  /** A raw socket that sends `request`, reads until the response headers, then reads no more. */
  function nonReader(
    server: HttpEndpoint,
    request: string,
  ): Promise<{ socket: Socket; closed: Promise<void> }> {
    return new Promise((resolve, reject) => {
      const socket = tcpConnect(server.address.port, '127.0.0.1');
      sockets.push(socket);
      socket.on('error', () => {});
      const closed = new Promise<void>((done) => socket.once('close', () => done()));
      let head = '';
      const onData = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (!head.includes('\r\n\r\n')) return;
        socket.off('data', onData);
        socket.pause();
        if (!/^HTTP\/1\.1 200 /.test(head)) reject(new Error(`not a stream: ${head.slice(0, 200)}`));
        else resolve({ socket, closed });
      };
      socket.on('data', onData);
      socket.once('connect', () => socket.write(request));
      socket.once('error', reject);
    });
  }

  async function until(check: () => boolean, what: string): Promise<void> {
    const deadline = performance.now() + 10_000;
    while (!check()) {
      if (performance.now() > deadline) throw new Error(`not within 10 s: ${what}`);
      await wait(20);
    }
  }

  /** Once the endpoint says it cut the stream, the socket, read again, comes to its end. */
  async function expectCut(lines: string[], reader: { socket: Socket; closed: Promise<void> }) {
    await until(() => lines.some((line) => line.includes('cut an answer or stream')), 'the stream cut');
    reader.socket.resume();
    await Promise.race([
      reader.closed,
      wait(10_000).then(() => {
        throw new Error('the stream stayed open');
      }),
    ]);
  }

  // The same writer serves 2026 listen streams; their events are a few hundred bytes each, too few to
  // fill loopback buffers of tens of megabytes in a test's time, so the 2025 stream stands for both.
  it('2025: a GET stream is cut once a write has waited stalledWriteMs for its client', async () => {
    const { lines, log } = recordingLog();
    const created: McpServer[] = [];
    const server = await endpoint({ stalledWriteMs: 300, log }, created);
    const opened = await post(server.url, rpc(1, 'initialize', INITIALIZE_PARAMS));
    const session = opened.headers['mcp-session-id'] as string;
    const getStream =
      `GET /api/mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.address.port}\r\nAuthorization: Bearer ${KEY}\r\n` +
      `Accept: text/event-stream\r\nMcp-Session-Id: ${session}\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n`;
    const reader = await nonReader(server, getStream);
    // Notifications the session's server sends go on this stream: megabytes fill every buffer.
    const sessionServer = created.at(-1) as McpServer;
    const big = `model-feed://changes#${'x'.repeat(256 * 1024)}`;
    for (let i = 0; i < 80; i++) await sessionServer.sendResourceUpdated({ uri: big });
    await expectCut(lines, reader);
    // The cut stream let go of the session's one GET stream: the client may open it again.
    await nonReader(server, getStream);
  });
});
