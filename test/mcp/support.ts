/**
 * An MCP session in memory against the real sandbox: the server from createServer, a real SDK
 * Client over InMemoryTransport, and an API client that calls the sandbox over HTTP, so every
 * upstream request is counted in `sandbox.requests`.
 */

import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { createApiClient, type FeedApi } from '../../src/api/client.js';
import { unavailableReason } from '../../src/describe-error.js';
import { silentLogger } from '../../src/log.js';
import { createServer, type ServerDeps } from '../../src/mcp-server.js';
import type { Sandbox } from '../../src/sandbox/service.js';

export function sandboxApi(sandbox: Sandbox, cacheTtlMs = 60_000): FeedApi {
  return createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.key,
    fetch: (url, init) => globalThis.fetch(url, init),
    userAgent: 'model-feed-mcp/test',
    describeUnavailable: unavailableReason,
    timeoutMs: 5000,
    cacheTtlMs,
    proxyLabel: undefined,
    log: silentLogger,
  });
}

/** Whatever createServer builds (the SDK's low-level Server). */
type CreatedServer = ReturnType<typeof createServer>;

export interface Session {
  client: Client;
  server: CreatedServer;
  /** Every message the server sent, in order. */
  sent: JSONRPCMessage[];
  close(): Promise<void>;
}

export async function connect(api: FeedApi, deps: Partial<ServerDeps> = {}): Promise<Session> {
  const server = createServer({ api, log: silentLogger, version: '0.0.0-test', ...deps });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const client = new Client({ name: 'test', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return { client, server, sent, close: () => client.close() };
}

/** What a promise rejected with (for protocol errors the client raises as ProtocolError). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<{ code?: number; message: string; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: number; message: string; data?: unknown };
  }
  throw new Error('expected the request to fail');
}
