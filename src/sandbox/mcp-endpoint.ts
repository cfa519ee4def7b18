/**
 * The hosted tool endpoint, `POST /api/mcp`, as the sandbox serves it: the runner's own MCP server
 * (same tool definitions, same handlers) over the SDK's Streamable HTTP transport, stateless, with
 * JSON answers. Each request calls this sandbox's REST API with the caller's key, as the hosted
 * endpoint calls the service's. Host and Origin are checked before it (app.ts, against DNS
 * rebinding), as `--http` checks them.
 */

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createApiClient } from '../api/client.js';
import { DEFAULTS } from '../config.js';
import { silentLogger } from '../log.js';
import { createServer } from '../server.js';
import { USER_AGENT, VERSION } from '../version.js';
import type { McpHandler } from './app.js';

export function createMcpEndpoint(baseUrl: () => string): McpHandler {
  return async (req, res, key) => {
    const api = createApiClient({
      baseUrl: baseUrl(),
      apiKey: key,
      fetch: (url, init) => globalThis.fetch(url, init),
      userAgent: USER_AGENT,
      timeoutMs: DEFAULTS.timeoutMs,
      // A fresh server per request: there is nothing to cache across requests.
      cacheTtlMs: 0,
      proxyLabel: undefined,
      log: silentLogger,
    });
    const server = createServer({ api, log: silentLogger, version: VERSION, subscriptions: false });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.once('close', () => {
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
}
