'use strict';
/**
 * The parts of undici that the proxied fetch uses (src/net/fetch.ts): ProxyAgent and its
 * `request()`. Bundled as dist/undici.cjs, loaded on the first request through a proxy. Bundling
 * undici's index instead takes in its mocks, WebSocket, EventSource, caches and interceptors, which
 * esbuild cannot shake out of CommonJS: 535 KB (167 KB gzipped) against 317 KB (103 KB).
 */
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const ProxyAgent = require('undici/lib/dispatcher/proxy-agent');

// As undici's index does: a dispatcher's request() and connect() (ProxyAgent tunnels with it) are
// its API functions, put on the prototype.
Object.assign(Dispatcher.prototype, require('undici/lib/api'));

module.exports = {
  /** A dispatcher for every request through `proxy`, at most `connections` at once per origin. */
  createProxyAgent: (proxy, connections) => new ProxyAgent({ uri: proxy, connections }),
  request: (dispatcher, options) => dispatcher.request(options),
};
