/**
 * The programmatic API: the MCP server factory, the REST client and what they need. The CLI is
 * `main`; everything here is also what the CLI itself uses.
 */

import { serveMcpEndpoint } from './sandbox/mcp-endpoint.js';

export {
  type ApiClientOptions,
  type ChangesQuery,
  createApiClient,
  type FeedApi,
  type ModelsQuery,
} from './api/client.js';
export type { FetchLike } from './api/http.js';
export type { RateLimitInfo } from './api/rate-limit.js';
export type { ChangeEvent, ChangesPage, Model, ModelsPage, PriceHistory, PricePoint } from './api/schemas.js';
export { main } from './cli.js';
export { type Config, type ConfigFlags, resolveConfig } from './config.js';
export { describeError } from './describe-error.js';
// Named, not `export *`: Node's ESM import of this CommonJS bundle sees only the names written here.
export {
  AbortedError,
  ApiError,
  AuthError,
  ConfigError,
  DeliveryError,
  ForbiddenError,
  InvalidArgumentsError,
  isServiceUnavailable,
  ModelFeedError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  type RequestFacts,
  ServerError,
  StateFileError,
  TimeoutError,
  UnexpectedResponseError,
} from './errors.js';
export type { CliIo } from './io.js';
export { createLogger, type Logger, type LoggerOptions } from './log.js';
export { callTool, createServer, listTools, type ServerDeps } from './mcp-server.js';
export { createNetworkFetch, type NetworkFetch } from './net/fetch.js';
export { chooseProxy, type ProxyChoice } from './net/proxy.js';
export type { Sandbox, SandboxOptions } from './sandbox/service.js';
export { StdioTransport } from './stdio/transport.js';
export { runStdio } from './stdio.js';
export { VERSION } from './version.js';

/**
 * Starts the sandbox service (loaded on first use: it carries the bundled data set), serving
 * `POST /api/mcp` with this package's MCP server unless `options.mcp` says otherwise.
 */
export async function startSandbox(
  options?: import('./sandbox/service.js').SandboxOptions,
): Promise<import('./sandbox/service.js').Sandbox> {
  const sandbox = await import('./sandbox/service.js');
  return sandbox.startSandbox({ ...options, mcp: options?.mcp ?? serveMcpEndpoint });
}
