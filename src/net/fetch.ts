/**
 * The production fetch, shaped as the part of a Response the client reads, on keep-alive
 * connections chosen once for the service's origin.
 *
 * - Direct: node:http / node:https. Node's native HTTP parser costs no start-up, and avoids undici's
 *   WebAssembly parser, which V8 recompiles under load for 20–35 MB of peak RSS.
 * - Through a proxy: undici's ProxyAgent (Node's own clients ignore proxy variables), loaded from
 *   its own chunk on the first request only. Its `request` rather than its `fetch`: fetch's WHATWG
 *   streams cost a quarter of a millisecond and much garbage per call.
 *
 * Neither follows redirects: the client decides (it sends `redirect: 'manual'`). Both send a request
 * body when one is given (the webhook sink's POST).
 */

import type { Agent as HttpAgent, IncomingHttpHeaders } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Dispatcher } from 'undici';
import type { FetchLike, ResponseLike } from '../api/http.js';

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

function directFetch(maxConnections: number): NetworkFetch {
  // Node's http and https (tls with them) are loaded at the first request, not at start-up, which
  // they would cost about 7 ms: the stdio server answers initialize and tools/list without them.
  let agents: { http: HttpAgent; https: HttpsAgent } | undefined;
  const pools = () => {
    agents ??= {
      http: new (process.getBuiltinModule('node:http').Agent)({
        keepAlive: true,
        maxSockets: maxConnections,
      }),
      https: new (process.getBuiltinModule('node:https').Agent)({
        keepAlive: true,
        maxSockets: maxConnections,
      }),
    };
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
    },
  };
}

type UndiciProxy = typeof import('./undici-proxy.cjs');

function proxiedFetch(proxy: string, maxConnections: number): NetworkFetch {
  let loaded: Promise<{ undici: UndiciProxy; dispatcher: Dispatcher }> | undefined;
  const load = async () => {
    const imported = (await import('./undici-proxy.cjs')) as UndiciProxy & { default?: UndiciProxy };
    // A CommonJS module's exports arrive under `default`.
    const undici = imported.default ?? imported;
    return { undici, dispatcher: undici.createProxyAgent(proxy, maxConnections) };
  };
  return {
    fetch: async (url, init) => {
      loaded ??= load();
      const { undici, dispatcher } = await loaded;
      const target = new URL(url);
      const { statusCode, headers, body } = await undici.request(dispatcher, {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: init.method,
        headers: init.headers,
        body: init.body,
        signal: init.signal,
      });
      return { status: statusCode, headers: headerReader(headers), body };
    },
    close: async () => {
      if (loaded) await (await loaded).dispatcher.destroy();
    },
  };
}

/** `maxConnections` should match the client's cap on concurrent requests (MAX_CONCURRENT_REQUESTS). */
export function createNetworkFetch(proxy: string | undefined, maxConnections: number): NetworkFetch {
  return proxy ? proxiedFetch(proxy, maxConnections) : directFetch(maxConnections);
}
