/**
 * The stdio server as a command runs it: logger, runtime, MCP server, idle warm-up.
 * Shared by the full command line (commands/serve/command.ts, for `model-feed-mcp --sandbox`,
 * `--proxy …`) and the server-only bundle (stdio-entry.ts) that a client's plain start loads.
 */

import type { Config } from './config.js';
import { describeError } from './describe-error.js';
import type { CliIo } from './io.js';
import { createLogger } from './log.js';
import { createServer, prepareTools } from './mcp-server.js';
import { ownCommand } from './own-command.js';
import { ChangesSubscriptions } from './resources/changes-subscriptions.js';
import { followListens, honoredListen } from './resources/listen.js';
import { createRuntime, serverDeps } from './runtime.js';
import { onQuietMoments } from './stdio/quiet-moments.js';
import type { StdioTransport } from './stdio/transport.js';
import { runStdio, servingBothEras } from './stdio.js';

/**
 * What opens a session: a 2025 client's `initialized`, a 2026 client's `server/discover` (or, from
 * one that skips discovery, its first `tools/list`).
 */
const OPENED: ReadonlySet<string> = new Set(['notifications/initialized', 'server/discover', 'tools/list']);
/**
 * Quiet after the opening before the warm-up starts: the requests a client sends right after it
 * (tools/list, prompts/list, …) come within milliseconds, and a person takes seconds to ask.
 */
const WARM_UP_QUIET_MS = 50;

function terminalHint(): string {
  return (
    'model-feed-mcp is an MCP server: it waits here for an MCP client to speak JSON-RPC on stdin, and shows nothing until one does (Ctrl-C ends it).\n' +
    `  Try a tool from this shell:  ${ownCommand('call search_models --vendor openai --sandbox')}\n` +
    `  Real data, no account:       ${ownCommand('call search_models --vendor openai --source public')}\n` +
    `  Add it to your MCP clients:  ${ownCommand('setup')}\n`
  );
}

/** Serves MCP over stdin/stdout until stdin ends or a signal comes. */
export async function serveStdio(config: Config, io: CliIo): Promise<void> {
  const log = createLogger({ level: config.logLevel, format: config.logFormat, secrets: config.secrets });
  for (const warning of config.warnings) log.warn(warning);
  if (config.setupError) {
    // The server still starts and lists its tools; every call will say the same.
    log.warn(describeError(config.setupError));
  }
  // A person who typed the command sees a silent wait otherwise: say what it waits for (on stderr:
  // stdout is the protocol's alone). An MCP client's stdin is a pipe, never a terminal.
  if (process.stdin.isTTY) io.stderr(terminalHint());
  const runtime = await createRuntime(config, log);
  // One poller for the connection, whichever era follows the changes: 2025 resources/subscribe on
  // the server, 2026 subscriptions/listen on the transport.
  const changeSubscriptions = new ChangesSubscriptions({
    api: runtime.api,
    log,
    intervalS: config.watchIntervalS,
  });
  const deps = serverDeps(runtime, log, config.secrets, {
    watchIntervalS: config.watchIntervalS,
    changeSubscriptions,
  });
  // A factory: the SDK builds the server for the era the client opens with (twice when a 2026
  // probe falls back to initialize).
  const bothEras = servingBothEras(({ era }) => createServer(deps, era), log);
  const server = {
    async connect(transport: StdioTransport) {
      await bothEras.connect(transport);
      followListens(transport, changeSubscriptions, { log, secrets: config.secrets });
      // Once the client has opened the session and gone quiet: the first call then finds the
      // connection open and its schemas built. Not at once: the lists a client asks for right after
      // initialized would wait for the warm-up's synchronous part. A tool call within those 50 ms
      // opens the connection itself; the warm-up's OPTIONS then reuses it.
      onQuietMoments(
        transport.activity,
        () => {
          prepareTools();
          void runtime.warmUp();
          return false;
        },
        { after: OPENED, quietMs: WARM_UP_QUIET_MS },
      );
    },
  };
  await runStdio(server, {
    log,
    onShutdown: () => runtime.close(),
    prepare: honoredListen,
  });
}
