/**
 * The stdio server as a command runs it: logger, runtime, MCP server, idle warm-up, code cache.
 * Shared by the full command line (cli.ts, for `model-feed-mcp --sandbox`, `--proxy …`) and the
 * server-only bundle (server-main.ts) that a client's plain start loads.
 */

import { withCodeCache } from './code-cache-hook.js';
import type { Config } from './config.js';
import { describeError } from './describe-error.js';
import type { CliIo } from './io.js';
import { createLogger } from './log.js';
import { createRuntime } from './runtime.js';
import { createServer, prepareTools } from './server.js';
import { runStdio } from './stdio.js';
import { VERSION } from './version.js';

/** Serves MCP over stdin/stdout until stdin ends or a signal comes. */
export async function serveStdio(config: Config, io: CliIo): Promise<void> {
  const log = createLogger({ level: config.logLevel, format: config.logFormat, secrets: config.secrets });
  for (const warning of config.warnings) log.warn(warning);
  if (config.setupError) {
    // The server still starts and lists its tools; every call will say the same.
    log.warn(describeError(config.setupError));
  }
  const runtime = await createRuntime(config, log);
  const server = createServer({
    api: runtime.api,
    log,
    version: VERSION,
    sampleData: runtime.sampleData,
    secrets: config.secrets,
    watchIntervalS: config.watchIntervalS,
  });
  // Once the client has initialized, and only when idle: the first call then finds the connection
  // open. setImmediate lets the answers already queued go out first.
  server.oninitialized = () =>
    setImmediate(() => {
      prepareTools();
      void runtime.warmUp();
    });
  await runStdio(withCodeCache(server, io.codeCache, log), { log, onShutdown: () => runtime.close() });
}
