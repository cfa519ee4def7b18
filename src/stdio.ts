/**
 * A stdio session from start to exit: the transport (stdio/transport.ts), both protocol eras on
 * it, and the process lifetime (process-lifetime.ts) that ends it when stdin ends, stdout closes,
 * a signal arrives or the parent process goes.
 */

import type { Readable, Writable } from 'node:stream';
import type { ProtocolEra, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from './log.js';
import { settleWithin, startProcessLifetime } from './process-lifetime.js';
import { StdioTransport, type StdioTransportOptions } from './stdio/transport.js';

export interface StdioOptions {
  log: Logger;
  /** Releases what keeps the event loop alive (the HTTP dispatcher's sockets). */
  onShutdown?: () => Promise<void> | void;
  input?: Readable;
  output?: Writable;
  /** How often to check that the parent process (the MCP client) is still there. @default 2000 */
  parentCheckMs?: number;
  /** Rewrites each client message before anything reads it; see StdioTransportOptions. */
  prepare?: StdioTransportOptions['prepare'];
}

/** The longest shutdown may take, once input has ended and drained, before the process exits regardless. */
const SHUTDOWN_GRACE_MS = 300;

/** What serves a stdio connection once given its transport. */
export interface StdioServing {
  connect(transport: StdioTransport): Promise<void>;
}

/**
 * Both protocol eras from one factory: the SDK's `serveStdio` pins one server per connection by its
 * opening (`initialize`: 2025-11-25; `server/discover` or an enveloped request: 2026-07-28), over
 * this module's transport. What it reports (a refused opening, a message for no era) goes to the
 * log at debug: the client already got the answer.
 */
export function servingBothEras(
  factory: (context: { era: ProtocolEra }) => Server,
  log: Logger,
): StdioServing {
  return {
    async connect(transport) {
      serveStdio(factory, {
        transport,
        onerror: (error) => log.debug('MCP stdio', { error: error.message }),
      });
    },
  };
}

/**
 * Serves one MCP session over stdio until stdin ends, a signal arrives or the parent process goes,
 * then exits the process: within SHUTDOWN_GRACE_MS, whatever is still in flight.
 */
export async function runStdio(server: StdioServing, options: StdioOptions): Promise<void> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const transport = new StdioTransport(input, output, options.log, { prepare: options.prepare });
  const lifetime = startProcessLifetime({
    log: options.log,
    parentWatch: { intervalMs: options.parentCheckMs },
  });
  void lifetime.ended.then(async () => {
    const flushed = new Promise<void>((resolve) => {
      if (!output.writableNeedDrain) resolve();
      else output.once('drain', () => resolve());
    });
    await settleWithin(SHUTDOWN_GRACE_MS, [flushed, options.onShutdown?.()]);
    process.exit(0);
  });
  // A client that vanished closes the pipe: writing to it fails with EPIPE; nothing is left to serve.
  output.on('error', () => lifetime.end('stdout closed'));
  transport.activity.onClosed(() => lifetime.end('stdin closed'));
  await server.connect(transport);
  options.log.debug('serving MCP on stdio');
}
