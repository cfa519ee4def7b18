/**
 * `model-feed-mcp watch`: follows the feed and delivers every change to one sink, from a cursor
 * saved in the user's state folder. The wiring only: the loop is watch/watcher.ts, the feed logic
 * feed/, the files store/.
 */

import { sleep } from '../../api/abort.js';
import type { ChangeEvent } from '../../api/schemas.js';
import { type Config, PUBLIC_ORIGINS } from '../../config.js';
import { describeError } from '../../describe-error.js';
import { EXIT } from '../../exit-codes.js';
import type { CliIo } from '../../io.js';
import { createLogger, type Logger } from '../../log.js';
import { createNetworkFetch } from '../../net/fetch.js';
import { chooseProxy } from '../../net/proxy.js';
import { createRuntime, type Runtime } from '../../runtime.js';
import { fileFault } from '../../store/file-fault.js';
import { removeLeftovers } from '../../store/leftovers.js';
import { acquireLock, type Lock, LockedError } from '../../store/lock.js';
import { homeFolder, stateFolder } from '../../store/paths.js';
import { redact, secretValues, withEscapedForms } from '../../text/redact.js';
import { oneLine } from '../../text/terminal.js';
import { USER_AGENT } from '../../version.js';
import type { StdoutFormat, WatchOptions } from '../../watch/options.js';
import { createJsonlSink } from '../../watch/sinks/jsonl.js';
import type { Sink } from '../../watch/sinks/sink.js';
import { createStdoutSink } from '../../watch/sinks/stdout.js';
import { defaultStatePath, feedHash } from '../../watch/state.js';
import { createStatusLine, type StatusLine } from '../../watch/status.js';
import { runWatcher } from '../../watch/watcher.js';

/** How often the in-process sandbox publishes when no --interval says otherwise. */
const SANDBOX_LIVE_S = 5;

/** After SIGINT or SIGTERM the watcher stops within this long, whatever a sink is doing. */
const SHUTDOWN_DEADLINE_MS = 1800;

interface SinkContext {
  config: Config;
  status: StatusLine;
  env: CliIo['env'];
  log: Logger;
  /** Names this feed (base URL and filters), as the state file's name does: the Atom feed's id. */
  feedHash: string;
}

async function createSink(
  options: WatchOptions,
  { config, status, env, log, feedHash }: SinkContext,
): Promise<Sink> {
  const { sink } = options;
  switch (sink.kind) {
    case 'stdout':
      // Change lines on the status line's terminal are written around it, or they would run into it.
      return createStdoutSink(
        process.stdout,
        process.stdout.isTTY ? status : undefined,
        stdoutFormat(sink.format),
      );
    case 'jsonl':
      return createJsonlSink(sink.path, (message) => log.warn(message));
    case 'webhook': {
      const { createWebhookSink } = await import('../../watch/sinks/webhook.js');
      // The receiver is reached as the service is: the same proxy settings, NO_PROXY and CAs.
      const network = createNetworkFetch(chooseProxy(sink.url, config.proxy).proxy, 2);
      const webhook = createWebhookSink({
        url: sink.url,
        format: sink.format,
        secret: sink.secret,
        fetch: network.fetch,
        timeoutMs: config.timeoutMs,
        userAgent: USER_AGENT,
      });
      return {
        ...webhook,
        close: async () => {
          await webhook.close();
          await network.close();
        },
      };
    }
    case 'exec': {
      const { createExecSink } = await import('../../watch/sinks/exec.js');
      // The command's own output goes to stderr (stdout may be another sink's, and is never ours
      // here), line by line around the status line, as log lines do.
      return createExecSink({
        command: sink.command,
        timeoutMs: config.timeoutMs,
        env,
        output: (lines) => status.write(lines),
      });
    }
    case 'atom': {
      const { createAtomSink } = await import('../../watch/sinks/atom.js');
      return createAtomSink({
        path: sink.path,
        feedId: `urn:model-feed:feed:${feedHash}`,
        selfUrl: sink.selfUrl,
        warn: (message) => log.warn(message),
      });
    }
  }
}

/** `--format`, or by default text for a person at a terminal and JSON for a program reading a pipe. */
function stdoutFormat(format: StdoutFormat | undefined): StdoutFormat {
  return format ?? (process.stdout.isTTY ? 'text' : 'json');
}

/** `defaultPath`: the state file when --state was not given, named so the user sees where it is. */
function lockMessage(error: LockedError, defaultPath: string | undefined): string {
  const holder = error.holder;
  const who = holder
    ? `process ${holder.pid}${holder.host ? ` on ${holder.host}` : ''}${holder.startedAt ? `, started ${holder.startedAt}` : ''}`
    : 'another process';
  const theDefault = defaultPath === undefined ? '' : ` (the default for this feed is ${defaultPath})`;
  return (
    `another watcher is following this feed: ${who} holds ${error.path}. ` +
    `Stop it first, or give this one its own --state file${theDefault}. ` +
    `If that watcher is no longer running (on another machine or container, say), delete ${error.path}.`
  );
}

export async function runWatch(config: Config, io: CliIo, options: WatchOptions): Promise<number> {
  const secrets = [...config.secrets, ...(options.sink.kind === 'webhook' ? [options.sink.rawSecret] : [])];
  // The last message quotes service text (an event id, an error body) and files (a lock's host):
  // rendered as a log line is, one line, terminal-safe, printable first and redacted after, so a
  // line break or U+2028 in it cannot forge a line of the watcher's output.
  const hidden = withEscapedForms(secretValues(secrets));
  const print = (text: string): string => redact(oneLine(text), hidden);
  if (config.setupError) {
    io.stderr(`${print(describeError(config.setupError, 'shell'))}\n`);
    return EXIT.usage;
  }
  // On Windows a console write is asynchronous, so change lines on stdout and redraws on stderr
  // could interleave: there the status line is left out while stdout is that console.
  const sharedConsole =
    process.platform === 'win32' && options.sink.kind === 'stdout' && process.stdout.isTTY === true;
  const status = createStatusLine(
    sharedConsole ? { isTTY: false, write: (text: string) => process.stderr.write(text) } : process.stderr,
  );
  // A watcher is a long-running service: what it does is worth a line even at the default level.
  const level = config.sources.logLevel === undefined ? 'info' : config.logLevel;
  const log = createLogger({ level, format: config.logFormat, secrets, write: status.write });
  for (const warning of config.warnings) log.warn(warning);

  // The public record is kept per catalog address, so a cursor is too.
  const service = config.sandbox
    ? 'sandbox'
    : config.source === 'public'
      ? `public:${config.publicOrigins.openrouter ?? PUBLIC_ORIGINS.openrouter.url}`
      : (config.baseUrl ?? '');
  // The in-process sandbox is new on every run, and its feed with it: a cursor saved by an earlier
  // run would not fit it (`--since` would be passed over for it). So it keeps none: no state file,
  // no lock, every run starts from --since. (options.ts refuses --state and --reset with it.)
  const statePath = config.sandbox
    ? undefined
    : (options.statePath ??
      defaultStatePath(
        stateFolder({ env: io.env, platform: process.platform, home: homeFolder() }),
        service,
        options.filters,
      ));
  // Named in the fix of a message about the state file's disk or path.
  const stateSetting = options.statePath !== undefined ? '--state' : 'XDG_STATE_HOME or --state';
  let lock: Lock | undefined;
  try {
    if (statePath !== undefined) {
      lock = await acquireLock(`${statePath}.lock`);
      // Holding the lock, this watcher is the state file's one writer: what a killed one left is ours.
      await removeLeftovers(statePath);
    }
  } catch (error) {
    status.stop();
    const text =
      error instanceof LockedError && statePath !== undefined
        ? lockMessage(error, options.statePath === undefined ? statePath : undefined)
        : describeError(
            fileFault(error, 'lock the watch state file', `${statePath}.lock`, stateSetting),
            'shell',
          );
    io.stderr(`model-feed-mcp: ${print(text)}\n`);
    return EXIT.failed;
  }

  const controller = new AbortController();
  let delivering = false;
  const stop = () => {
    if (controller.signal.aborted) return;
    // Only a page being delivered is abandoned; where no cursor is kept, nothing is made again.
    const abandoned = !delivering
      ? ''
      : statePath === undefined
        ? ': the delivery in progress is abandoned (this run keeps no cursor)'
        : ': the delivery in progress is abandoned, and the next run makes it again';
    log.info(`stopping${abandoned}`);
    controller.abort(new Error('stopped by a signal'));
    setTimeout(() => process.exit(EXIT.ok), SHUTDOWN_DEADLINE_MS).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  let runtime: Runtime | undefined;
  let sink: Sink | undefined;
  try {
    // The in-process sandbox publishes a change every few seconds, or once per --interval, on the
    // pro tier so the default interval (4 s) shows them as they come: a newcomer sees the watcher
    // work within a minute, and one who asks for a faster poll gets a faster feed.
    const liveS = options.intervalS ?? SANDBOX_LIVE_S;
    runtime = await createRuntime(
      config,
      log,
      config.sandbox ? { tier: 'pro', live: { everyMs: liveS * 1000 } } : undefined,
    );
    if (config.sandbox)
      log.info(
        `sandbox: sample data; a new change is published every ${liveS} s. Each sandbox is new: the cursor is not saved, and every run starts from --since`,
      );
    sink = await createSink(options, {
      config,
      status,
      env: io.env,
      log,
      feedHash: feedHash(service, options.filters),
    });
    // A person who wanted the JSON at a terminal learns how to get it.
    const asText = options.sink.kind === 'stdout' && stdoutFormat(options.sink.format) === 'text';
    log.info(
      `delivering to ${sink.label}${asText ? ' as text (--format json for JSON lines)' : ''}${options.once ? ', once' : ''}`,
    );
    let concerns: ((event: ChangeEvent) => boolean) | undefined;
    if (options.uses.length) {
      const { modelsUsedUnder } = await import('../../check/uses.js');
      const used = await modelsUsedUnder(runtime.api, options.uses, controller.signal);
      concerns = used.concerns;
      log.info(
        `--uses: ${used.models.length} ${used.models.length === 1 ? 'model' : 'models'} named in ${used.scanned} ${used.scanned === 1 ? 'file' : 'files'}${used.models.length ? ` (${used.models.join(', ')})` : ''}; only changes that concern them are delivered`,
      );
    }
    const result = await runWatcher(
      options,
      {
        api: runtime.api,
        sink,
        log,
        status,
        statePath,
        stateSetting,
        service,
        now: Date.now,
        sleep,
        random: Math.random,
        checkLock: lock?.check,
        concerns,
        onDelivering: (now) => {
          delivering = now;
        },
      },
      controller.signal,
    );
    status.stop();
    if (result.message) io.stderr(`model-feed-mcp: ${print(result.message)}\n`);
    return result.code;
  } catch (error) {
    status.stop();
    io.stderr(`model-feed-mcp: ${print(describeError(error, 'shell'))}\n`);
    return EXIT.failed;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await Promise.allSettled([sink?.close(), runtime?.close()]);
    await lock?.release().catch(() => {});
  }
}
