import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allowedAuthorities } from '../http/host-check.js';
import { createSandboxApp, type RecordedRequest, type SandboxLog } from './app.js';
import { buildDataset } from './dataset.js';
import type { Tier } from './keys.js';
import type { LiveKind } from './live.js';
import { loadBundledData } from './raw-data.js';
import type { ChangeEvent } from './types.js';

export type { McpHandler, RecordedRequest, SandboxLog } from './app.js';
export type { Tier } from './keys.js';
export type { LiveKind } from './live.js';

/**
 * Serves `POST /api/mcp` once authenticated, as `McpHandler` does, and is told this sandbox's base
 * URL too: the tool endpoint reads the REST API there with the caller's key.
 */
export type SandboxMcpHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  key: string,
  baseUrl: string,
) => Promise<void>;

export interface SandboxOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Interface to bind. Only loopback unless the caller asks otherwise. @default '127.0.0.1' */
  host?: string;
  /** The key the sandbox accepts. @default a generated 'mfsk_sandbox_' + 32 hex digits */
  key?: string;
  /** Tier of `key`. @default 'free' */
  tier?: Tier;
  /** Clock in ms since the epoch: drives the daily count and verification change times. @default Date.now */
  now?: () => number;
  /**
   * Handler of POST /api/mcp after authentication, e.g. `serveMcpEndpoint` (mcp-endpoint.ts), the
   * runner's MCP server. Given by the caller rather than imported here: this module is its own
   * chunk (dist/sandbox.cjs), which then carries neither a second copy of the server nor the MCP
   * SDK; the callers that serve /api/mcp (`model-feed-mcp sandbox`, the library's `startSandbox`)
   * already have both. @default none: /api/mcp answers 404
   */
  mcp?: SandboxMcpHandler;
  /** Diagnostics. Never console.log: in server mode stdout is the MCP channel. */
  log?: SandboxLog;
  /** Seed of the changes `publish`, `publishMany` and live mode generate: the same seed, the same changes. @default 1 */
  seed?: number;
  /** Live mode from the start: a new change every `everyMs`, as `startLive(everyMs)` does. @default off */
  live?: { everyMs: number };
}

export interface Sandbox {
  /** Base URL without a trailing slash, e.g. http://127.0.0.1:54321 */
  url: string;
  /** The key given in the options, or the generated one. */
  key: string;
  /** The day the sample data describes (Unix s, 00:00 UTC of its newest catalog snapshot). */
  readonly dataAsOf: number;
  /** Authenticated requests received, oldest first, the most recent within REQUEST_LOG_LIMITS (live view). */
  readonly requests: RecordedRequest[];
  clearRequests(): void;
  addKey(key: string, tier: Tier): void;
  revokeKey(key: string): void;
  /** Moves a pending change event to official or rejected; it gets a new change time. */
  setVerification(eventId: string, status: 'official' | 'rejected'): void;
  /**
   * Publishes one realistic change now: a price change of a catalog model, the verification of a
   * pending event, or a new model (`kind`, or drawn). It gets a fresh change time; logged at info.
   */
  publish(kind?: LiveKind): ChangeEvent;
  /** Appends `count` generated price changes at once (10,000 take milliseconds): a backlog to drain. */
  publishMany(count: number): void;
  /** Publishes a change every `everyMs` (a timer that keeps no process alive); returns its stop. */
  startLive(everyMs: number): () => void;
  /** Stops live mode and listening, closes idle keep-alive connections; resolves once every connection is gone. */
  close(): Promise<void>;
}

/** The longest interval a Node timer keeps (about 24.8 days); longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function checkInterval(everyMs: number): void {
  if (!(Number.isFinite(everyMs) && everyMs >= 1 && everyMs <= MAX_TIMER_MS)) {
    throw new RangeError(`live mode: everyMs must be from 1 to ${MAX_TIMER_MS}; got ${everyMs}`);
  }
}

// In-flight requests get this long to finish on close before their sockets are cut.
const CLOSE_GRACE_MS = 1000;

function generateKey(): string {
  return `mfsk_sandbox_${randomBytes(16).toString('hex')}`;
}

// Node reports an IPv4 address bound through an IPv6 socket (`--host ::ffff:127.0.0.1`) this way.
const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * The base URL a client should use for the bound address. An IPv4-mapped address is printed as
 * its IPv4 form: the runner's loopback rule lists 127.0.0.0/8 and ::1, not ::ffff:127.0.0.1, and
 * every client can reach the IPv4 address. A wildcard bind is reachable on loopback, so that is
 * what is printed for it.
 */
export function baseUrl(address: AddressInfo): string {
  const bound = IPV4_MAPPED.exec(address.address)?.[1] ?? address.address;
  const host = bound === '0.0.0.0' ? '127.0.0.1' : bound === '::' ? '::1' : bound;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Starts the sandbox service on `host:port` with the bundled data set. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  // Checked before the socket opens, so a bad interval leaves nothing listening.
  if (options.live !== undefined) checkInterval(options.live.everyMs);
  const key = options.key ?? generateKey();
  const { mcp } = options;
  let url = '';
  let mcpAuthorities: ReadonlySet<string> = new Set();
  const dataset = buildDataset(loadBundledData());
  const app = createSandboxApp({
    dataset,
    now: options.now ?? Date.now,
    mcp: mcp && ((req, res, callerKey) => mcp(req, res, callerKey, url)),
    mcpAuthorities: () => mcpAuthorities,
    log: options.log,
    seed: options.seed,
  });
  app.keys.add(key, options.tier ?? 'free');
  const server = createServer(app.handle);
  const address = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  url = baseUrl(address);
  mcpAuthorities = allowedAuthorities({ host: options.host ?? '127.0.0.1', port: address.port });
  options.log?.('info', `listening on ${url}`);

  let closing: Promise<void> | undefined;
  const liveTimers = new Set<NodeJS.Timeout>();
  const startLive = (everyMs: number): (() => void) => {
    checkInterval(everyMs);
    if (closing !== undefined) throw new Error('startLive: the sandbox is closed');
    const timer = setInterval(() => {
      try {
        app.publish();
      } catch (error) {
        // A throw in a timer would end the process that hosts the sandbox.
        options.log?.(
          'warn',
          `live publication failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }, everyMs);
    timer.unref();
    liveTimers.add(timer);
    return () => {
      clearInterval(timer);
      liveTimers.delete(timer);
    };
  };
  if (options.live !== undefined) startLive(options.live.everyMs);

  const close = (): Promise<void> => {
    for (const timer of liveTimers) clearInterval(timer);
    liveTimers.clear();
    closing ??= new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
    });
    return closing;
  };

  return {
    url,
    key,
    dataAsOf: dataset.referenceTime,
    get requests() {
      return app.requests;
    },
    clearRequests: () => app.clearRequests(),
    addKey: (extraKey, tier) => app.keys.add(extraKey, tier),
    revokeKey: (revokedKey) => app.keys.revoke(revokedKey),
    setVerification: (eventId, status) => app.setVerification(eventId, status),
    publish: (kind) => app.publish(kind),
    publishMany: (count) => app.publishMany(count),
    startLive,
    close,
  };
}
