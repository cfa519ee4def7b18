/**
 * The production fetch, shaped as the part of a Response the client reads, on keep-alive
 * connections of Node's own http and https: their native HTTP parser costs no start-up. Through a
 * proxy, the same clients run over tunnels (HTTP CONNECT, tunnel.ts) that the agents open, one per
 * pooled connection: Node's clients ignore proxy variables.
 *
 * It does not follow redirects: the client decides (it sends `redirect: 'manual'`). It sends a
 * request body when one is given (the webhook sink's POST).
 */

import type { ClientRequestArgs, Agent as HttpAgent, IncomingHttpHeaders } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import type { FetchLike, ResponseLike } from '../api/http.js';
import { bareHost } from './loopback.js';
import { openTcp, openTunnel, proxyPort } from './tunnel.js';

export interface NetworkFetch {
  fetch: FetchLike;
  /** Closes pooled sockets so nothing keeps the process alive. */
  close(): Promise<void>;
}

type Headers = IncomingHttpHeaders | Record<string, string | string[] | undefined>;

function headerReader(headers: Headers): ResponseLike['headers'] {
  return {
    get: (name) => {
      const value = headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
  /** Ends the connections still being opened, which the agents do not hold yet. */
  abandonOpening?(): void;
}

function directAgents(maxConnections: number): Agents {
  const options = { keepAlive: true, maxSockets: maxConnections };
  return {
    http: new (process.getBuiltinModule('node:http').Agent)(options),
    https: new (process.getBuiltinModule('node:https').Agent)(options),
  };
}

/** How long a proxy may take to open a tunnel, as undici's default connect timeout allows. */
const TUNNEL_TIMEOUT_MS = 10_000;

type ConnectionCallback = (error: Error | null, stream: Duplex) => void;

/**
 * Agents whose every connection is a tunnel through `proxy`, opened through the documented callback
 * form of `agent.createConnection`; a tunnel stays pooled for keep-alive as a direct connection does.
 */
function tunnelAgents(proxy: URL, maxConnections: number): Agents {
  const options = { keepAlive: true, maxSockets: maxConnections };
  const opening = new Set<Socket>();
  let abandoned = false;
  const tunnel = async (host: string, port: number): Promise<Socket> => {
    const socket = await openTcp(bareHost(proxy.hostname), proxyPort(proxy), TUNNEL_TIMEOUT_MS);
    const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    opening.add(socket);
    try {
      if (abandoned) throw new Error('the connection was closed while it was being opened');
      return await openTunnel(socket, proxy, authority, TUNNEL_TIMEOUT_MS);
    } catch (error) {
      socket.destroy();
      throw error;
    } finally {
      opening.delete(socket);
    }
  };
  /** Node's agents always pass the callback; the tunnel's socket or error comes through it. */
  const open = (
    target: ClientRequestArgs,
    defaultPort: number,
    callback: ConnectionCallback | undefined,
    secure: boolean,
  ) => {
    if (!callback) throw new Error('a tunnelled connection is opened only by its agent');
    tunnel(bareHost(target.host ?? 'localhost'), Number(target.port) || defaultPort).then(
      (socket) =>
        callback(
          null,
          secure
            ? process.getBuiltinModule('node:tls').connect({ ...(target as ConnectionOptions), socket })
            : socket,
        ),
      (error: Error) => callback(error, undefined as never),
    );
    return undefined;
  };
  class TunnelHttpAgent extends process.getBuiltinModule('node:http').Agent {
    override createConnection(target: ClientRequestArgs, callback?: ConnectionCallback): undefined {
      return open(target, 80, callback, false);
    }
  }
  class TunnelHttpsAgent extends process.getBuiltinModule('node:https').Agent {
    override createConnection(target: ClientRequestArgs, callback?: ConnectionCallback): undefined {
      return open(target, 443, callback, true);
    }
  }
  return {
    http: new TunnelHttpAgent(options),
    https: new TunnelHttpsAgent(options),
    abandonOpening: () => {
      abandoned = true;
      for (const socket of opening) socket.destroy();
    },
  };
}

function nodeFetch(makeAgents: () => Agents): NetworkFetch {
  // Node's http and https (tls with them) are loaded at the first request, not at start-up, which
  // they would cost about 7 ms: the stdio server answers initialize and tools/list without them.
  let agents: Agents | undefined;
  const pools = () => {
    agents ??= makeAgents();
    return agents;
  };
  return {
    fetch: (url, init) =>
      new Promise((resolve, reject) => {
        const { http, https } = pools();
        const httpRequest = process.getBuiltinModule('node:http').request;
        const httpsRequest = process.getBuiltinModule('node:https').request;
        const { signal } = init;
        if (signal.aborted) {
          reject(signal.reason);
          return;
        }
        let responded = false;
        const target = new URL(url);
        const secure = target.protocol === 'https:';
        const request = (secure ? httpsRequest : httpRequest)(
          target,
          { method: init.method, headers: init.headers, agent: secure ? https : http },
          (response) => {
            responded = true;
            resolve({
              status: response.statusCode ?? 0,
              headers: headerReader(response.headers),
              body: response,
            });
          },
        );
        // The `signal` option of http.request would do the same, but its weakly held listener and
        // end-of-stream tracking cost 50 µs a request (measured, Node 20); this costs a tenth.
        // Destroying the request also ends a body being read with an error.
        const onAbort = (): void => {
          const reason = signal.reason instanceof Error ? signal.reason : new Error('aborted');
          request.destroy(reason);
          // A request still waiting for a pooled socket emits nothing until one frees up.
          reject(reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        request.once('close', () => {
          signal.removeEventListener('abort', onAbort);
          // Closed without a response and without an error (Node does that after an unasked-for
          // upgrade): settled here, or the call would wait on a promise nothing can settle any more.
          if (!responded)
            reject(
              Object.assign(new Error('the connection closed before a response'), { code: 'UND_ERR_SOCKET' }),
            );
        });
        // A 101 the runner never asked for: Node hands the socket over instead of a response.
        request.once('upgrade', (_response, socket) => {
          socket.destroy();
          reject(
            Object.assign(new Error('HTTP 101 Switching Protocols, which was not asked for'), {
              code: 'HPE_UNEXPECTED_UPGRADE',
            }),
          );
        });
        request.once('error', reject);
        // Given whole to end(), a body goes out with its Content-Length rather than chunked: some
        // receivers and gateways refuse a chunked POST.
        request.end(init.body);
      }),
    close: async () => {
      agents?.http.destroy();
      agents?.https.destroy();
      agents?.abandonOpening?.();
    },
  };
}

/** `maxConnections` should match the client's cap on concurrent requests (MAX_CONCURRENT_REQUESTS). */
export function createNetworkFetch(proxy: string | undefined, maxConnections: number): NetworkFetch {
  const proxyUrl = proxy ? new URL(proxy) : undefined;
  return nodeFetch(() => (proxyUrl ? tunnelAgents(proxyUrl, maxConnections) : directAgents(maxConnections)));
}
