/**
 * The production fetch: undici's, on a dispatcher chosen once for the service's origin (a proxy
 * agent or a plain keep-alive agent). Node's global fetch ignores proxy variables, hence undici.
 * undici is loaded on the first request, not at start: `tools/list` never needs it.
 */

import type { FetchLike } from '../api/http.js';

export interface NetworkFetch {
  fetch: FetchLike;
  /** Closes pooled sockets so nothing keeps the process alive. */
  close(): Promise<void>;
}

type Undici = typeof import('undici');

export function createNetworkFetch(proxy: string | undefined, maxConnections = 6): NetworkFetch {
  let loaded: Promise<{ undici: Undici; dispatcher: import('undici').Dispatcher }> | undefined;
  const load = async () => {
    const imported = (await import('undici')) as Undici & { default?: Undici };
    // Bundled as CommonJS, undici's exports arrive under `default`.
    const undici = imported.default ?? imported;
    const dispatcher = proxy
      ? new undici.ProxyAgent({ uri: proxy, connections: maxConnections })
      : new undici.Agent({ connections: maxConnections });
    return { undici, dispatcher };
  };
  return {
    fetch: async (url, init) => {
      loaded ??= load();
      const { undici, dispatcher } = await loaded;
      const response = await undici.fetch(url, { ...(init as import('undici').RequestInit), dispatcher });
      return response as unknown as Response;
    },
    close: async () => {
      if (loaded) await (await loaded).dispatcher.destroy();
    },
  };
}
