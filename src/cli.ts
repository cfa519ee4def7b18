/**
 * The command line: `model-feed-mcp` (the stdio server), `doctor`, `call`, `sandbox`. Flags become
 * one Config here; user mistakes print one line and exit 2, never a stack.
 */

import { type Command, CommanderError, Option } from 'commander';
import { EVENT_TYPES } from './api/schemas.js';
import type { CheckFlags } from './check/options.js';
import { addCallCommand } from './cli-call.js';
import { addSettingsToEveryCommand, configuredKey, HELP_AFTER } from './cli-settings.js';
import type { SandboxFlags } from './commands/sandbox.js';
import { type ConfigFlags, ENV, resolveConfig } from './config.js';
import { docsUrl } from './docs-links.js';
import { ConfigError } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { CliIo } from './io.js';
import { ownCommand } from './own-command.js';
import { reportFailure } from './report-failure.js';
import { serveStdio } from './serve-stdio.js';
import { echoValue } from './text/redact.js';
import { terminalSafe } from './text/terminal.js';
import { CliCommand, refuseCommand, refuseFlag } from './unknown-flag.js';
import { VERSION } from './version.js';
import type { WatchFlags } from './watch/options.js';

/** The root program's own flags beside the settings: where `--http` listens. */
type ServeFlags = ConfigFlags & { http?: string; host?: string };

async function serve(
  flags: ServeFlags,
  io: CliIo,
  argv: readonly string[],
  exit: (code: number) => void,
): Promise<void> {
  if (flags.host !== undefined && flags.http === undefined) {
    throw new ConfigError(
      `--host applies only with --http: the stdio server opens no port. Use --http <port> --host ${echoValue(flags.host, configuredKey(io.env))}.`,
      'host',
      '--host',
    );
  }
  const config = resolveConfig(flags, io.env, argv);
  if (flags.http !== undefined) {
    const { runHttp } = await import('./commands/http.js');
    exit(await runHttp(config, io, flags.http, flags.host));
    return;
  }
  await serveStdio(config, io);
}

const WATCH_HELP = `
Each change is one JSON line (--jsonl, --exec stdin, stdout but on a terminal) or one POST (--webhook):
  {"type":"model_feed.change","timestamp":"<delivery time>","deliveryId":"<id>_<hash>",
   "delivery":"new"|"update","changed":[<fields that moved>],"previous":{<their values before>},
   "rejected":<true when the service rejected it>,"data":<the change>}
Delivery is at least once, in feed order: the cursor in the state file moves past a change only
after the sink accepted it. See ${docsUrl('watch')}.

Environment:
  MODEL_FEED_WEBHOOK_SECRET   the receiver's whsec_… secret, for --webhook (Standard Webhooks)

Exit codes:
  0  done (--once), also when nothing was new; or stopped by SIGINT/SIGTERM
  1  a delivery or the service failed (the cursor stays before the change), or another watcher holds the state file
  2  invalid flags or settings`;

function addWatchCommand(
  program: Command,
  io: CliIo,
  argv: readonly string[],
  exit: (code: number) => void,
): void {
  program
    .command('watch')
    .description(
      'follow the change feed and deliver every change, from a saved cursor, through restarts and outages',
    )
    .addOption(
      new Option('--type <eventType>', 'only changes of this type (sent to the service)').choices(
        EVENT_TYPES,
      ),
    )
    .option('--model <vendor>', 'only changes of this vendor slug, e.g. openai (sent to the service)')
    .option(
      '--since <time>',
      'where to start when no cursor is saved, or with --reset: Unix seconds, 0 = whole history, or now',
      'now',
    )
    .option('--reset', 'start from --since even when a cursor is saved; the state file is kept as a backup')
    .option(
      '--state <file>',
      'state file holding the cursor (default: one per base URL and filters in the state folder)',
    )
    .option(
      '--interval <s>',
      'seconds between polls (default: from the tier, at most a quarter of the daily limit)',
    )
    .option('--once', 'deliver what is new, save the cursor and exit (for cron and CI)')
    .option('--max-attempts <n>', 'attempts per change before giving up with exit 1 (default 10)')
    .option(
      '--skip <changeId>',
      'move past this one change that cannot be read, undelivered (the watcher names it when it stops); recorded in the state file',
    )
    .option(
      '--uses <path>',
      'deliver only the changes that concern a model the code under this path names (repeatable; as check finds them)',
      (path: string, paths: string[] = []) => [...paths, path],
    )
    .addOption(
      new Option(
        '--format <format>',
        'stdout: text (one line per change, for a person) or json (the envelope); default text on a terminal, else json',
      ).choices(['text', 'json']),
    )
    .option('--jsonl <file>', 'append each change as a JSON line to this file (fsynced)')
    .option('--exec <command>', 'run this shell command once per change, the change on its stdin')
    .option(
      '--webhook <url>',
      'POST each change to this URL, signed per Standard Webhooks (https, or http to loopback)',
    )
    .addOption(
      new Option(
        '--webhook-format <format>',
        'standard: the envelope, signed; slack: {"text": "<one line>"}',
      ).choices(['standard', 'slack']),
    )
    .option('--atom <file>', 'keep an Atom feed of the 100 most recent changes in this file')
    .option('--atom-url <url>', 'the Atom feed\'s own address, for its rel="self" link (absolute http(s))')
    .configureHelp({
      // A watcher logs at info unless told otherwise (commands/watch.ts): the server's default
      // level, shown among the settings, would be untrue here.
      optionDescription(option) {
        const text: string = Object.getPrototypeOf(this).optionDescription.call(this, option);
        return option.long === '--log-level' ? text.replace(/default \w+/, 'default info for watch') : text;
      },
    })
    .addHelpText('after', WATCH_HELP)
    .action(async (_opts, command: Command) => {
      const all = command.opts<Record<string, unknown>>();
      // A --since the user gave is one a saved cursor overrides, and the watcher says so; the
      // default is not.
      if (command.getOptionValueSource('since') === 'default') delete all.since;
      const config = resolveConfig(all as ConfigFlags, io.env, argv, { audience: 'shell' });
      const { parseWatchFlags } = await import('./watch/options.js');
      const options = parseWatchFlags(all as WatchFlags, {
        cwd: process.cwd(),
        env: io.env,
        secrets: config.secrets,
        sandbox: config.sandbox,
      });
      const { runWatch } = await import('./commands/watch.js');
      exit(await runWatch(config, io, options));
    });
}

function addCheckCommand(
  program: Command,
  io: CliIo,
  argv: readonly string[],
  exit: (code: number) => void,
): void {
  program
    .command('check')
    .description(
      'find the models your code names and check them against the catalog and the feed: deprecated, not listed, price increases (for CI)',
    )
    .argument(
      '[paths...]',
      'files and folders to scan (default: .), honouring .gitignore and .model-feed-ignore',
    )
    .addOption(
      new Option('--format <format>', 'text, json, sarif (code scanning) or github (annotations)').choices([
        'text',
        'json',
        'sarif',
        'github',
      ]),
    )
    .option(
      '--fail-on <kinds>',
      'finding kinds that fail (exit 1), comma-separated, or none (default deprecated,not_listed)',
    )
    .option('--since <date>', 'count price increases from this date, e.g. 2026-10-01 (default: 30 days ago)')
    .option('--max-file-size <MiB>', 'skip files larger than this, counted in the summary (default 4)')
    .option('--baseline <file>', 'accepted findings (from --write-baseline): reported, never failing')
    .option('--write-baseline <file>', 'record every current finding as accepted, then exit 0')
    .option(
      '--allow-unread',
      'do not fail (exit 2) when a path, folder or file cannot be read, or no file is found to scan',
    )
    .option(
      '--suggest <what>',
      'text: also name a cheaper catalog model for each model (cheaper, or none: the default); json, sarif and github always do',
    )
    .addHelpText(
      'after',
      `\nA line holding "model-feed-ignore", or following one that does, is not reported.\nExit codes: 0 no failing finding, 1 a finding of a --fail-on kind (or the service unreachable with no fresh cached catalog), 2 invalid flags or settings, or something could not be read (a path, folder or file; see --allow-unread) or no file was found. See ${docsUrl('check')}.`,
    )
    .action(async (paths: string[], _opts, command: Command) => {
      const all = command.opts<Record<string, unknown>>();
      const config = resolveConfig(all as ConfigFlags, io.env, argv, { audience: 'shell' });
      const { parseCheckFlags } = await import('./check/options.js');
      const options = parseCheckFlags(paths, all as CheckFlags, Date.now());
      const { runCheck } = await import('./commands/check.js');
      exit(await runCheck(config, io, options));
    });
}

/**
 * `--api-key` is refused with the fix, not as an unknown option: argv shows in process lists (ps,
 * Task Manager) and in shared client configs, the environment does not. The server's message
 * speaks of the client config that started it; the commands', of the shell they run in.
 */
function refuseKeyFlag(program: Command, action: Command): void {
  let given = false;
  for (let c: Command | null = action; c; c = c.parent) given ||= c.getOptionValue('apiKey') !== undefined;
  if (!given) return;
  const fix =
    action === program
      ? `set ${ENV.apiKey} in the MCP client's "env" for this server and remove the key from its "args"`
      : `export ${ENV.apiKey}=<your key> in this shell, then run the command without --api-key`;
  throw new ConfigError(
    `--api-key is not accepted: a key on the command line shows in process lists and shell history. Put it in the environment instead: ${fix}.`,
    ENV.apiKey,
    '--api-key',
  );
}

/**
 * A flag before the command's name (`model-feed-mcp --sandbox call get_model …`) is the program's
 * (positional options): it goes to the command when the command takes it, and is refused, as an
 * unknown option of that command, when it does not. Given on both sides, the one after the name wins.
 */
function passFlagsDown(action: Command): void {
  for (let parent = action.parent; parent; parent = parent.parent) {
    for (const option of parent.options) {
      const name = option.attributeName();
      if (parent.getOptionValueSource(name) !== 'cli') continue;
      if (!action.options.some((o) => o.long === option.long)) {
        refuseFlag(action, option.long ?? option.flags);
      }
      if (action.getOptionValueSource(name) !== 'cli') {
        action.setOptionValueWithSource(name, parent.getOptionValue(name), 'cli');
      }
    }
  }
}

/**
 * `help [command…]`, as people type it (`model-feed-mcp help watch`, `help call get_model`): the
 * help `<command> --help` gives. Commander adds its own only to a program without an action, and
 * that one took `help call get_model` for `help call` and an unknown name for the program's help.
 */
function addHelpCommand(program: Command, exit: (code: number) => void): void {
  program
    .command('help')
    .description('show the help of a command (and of a tool: help call get_model)')
    .argument('[command...]', 'the command')
    .action((names: string[]) => {
      let target = program;
      for (const name of names) {
        target = target.commands.find((c) => c.name() === name) ?? refuseCommand(target, name);
      }
      target.outputHelp();
      exit(EXIT.ok);
    });
}

/**
 * Every flag with a fixed set of values (`.choices()`) checked by a parser of ours: commander's own
 * check quotes the value as typed (a key put in the wrong flag, an escape sequence that clears the
 * screen, 100 KB) in its error. Ours says the same through echoValue. Its help keeps the choices.
 */
function checkChoicesSafely(command: Command, secrets: readonly string[]): void {
  for (const option of command.options) {
    const choices = option.argChoices;
    if (!choices) continue;
    option.argParser((value: string) => {
      if (choices.includes(value)) return value;
      command.error(
        `error: option '${option.flags}' argument '${echoValue(value, secrets)}' is invalid. Allowed choices are ${choices.join(', ')}.`,
        // Not commander's own code: with that, commander would print its raw message after ours.
        { exitCode: EXIT.usage, code: 'model-feed-mcp.invalidChoice' },
      );
    });
  }
  for (const sub of command.commands) checkChoicesSafely(sub, secrets);
}

export function buildProgram(io: CliIo, argv: readonly string[], exit: (code: number) => void): Command {
  const program = new CliCommand('model-feed-mcp');
  program.secrets = configuredKey(io.env);
  program
    // A subcommand's flags are its own, so each lists and takes only what it reads; the program's
    // come before the subcommand (passFlagsDown).
    .enablePositionalOptions()
    .description(
      'MCP server (stdio) for the Model Change Feed Service: list_model_changes, get_model, search_models.\n' +
        'Started by an MCP client, e.g. `npx -y model-feed-mcp`.',
    )
    .version(VERSION, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addHelpText('after', HELP_AFTER)
    .showHelpAfterError(`(run ${ownCommand('--help')} for usage)`)
    .exitOverride()
    // Commander's own errors too: whatever of the user's text one quotes acts on no terminal.
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      outputError: (text, write) => write(terminalSafe(text)),
    })
    .hook('preAction', (root, action) => {
      refuseKeyFlag(root, action);
      passFlagsDown(action);
    })
    .option(
      '--http <[host:]port>',
      'serve MCP over HTTP at POST /api/mcp instead of stdio (bearer key as for the hosted endpoint; binds 127.0.0.1 unless a host is given here or in --host)',
    )
    .option(
      '--host <address>',
      'with --http: the interface to bind (default 127.0.0.1); any other than loopback lets anyone who reaches the port and holds the key spend its quota',
    )
    .action((flags: ServeFlags, command: Command) => {
      if (command.args.length) refuseCommand(program, command.args[0] ?? '');
      return serve(flags, io, argv, exit);
    });
  addCallCommand(program, io, argv, exit);
  addWatchCommand(program, io, argv, exit);
  addCheckCommand(program, io, argv, exit);
  program
    .command('doctor')
    .description(
      'check Node, settings, proxy, CA certificates, DNS/TCP/TLS to the service, the key and the calls left',
    )
    .option('--json', 'print the checks as one JSON object')
    // Run with a client config's "args" pasted in, doctor should warn about a key among them, not refuse.
    .allowExcessArguments()
    .addHelpText(
      'after',
      '\nExit codes: 0 every check passed (warnings allowed), 1 a check failed or could not run, 2 invalid flags or settings.',
    )
    .action(async (_opts, command: Command) => {
      const { json, ...flags } = command.opts<Record<string, unknown>>();
      const config = resolveConfig(flags as ConfigFlags, io.env, argv, { audience: 'shell' });
      const { runDoctor } = await import('./commands/doctor.js');
      exit(await runDoctor(config, io, { json: json === true }));
    });
  program
    .command('setup')
    .description(
      'add this server to your MCP clients (Claude, Cursor, VS Code, Windsurf, Codex, Gemini CLI, Zed)',
    )
    .option(
      '--client <name>',
      'configure this client without asking; repeat or comma-separate',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--yes', 'accept the defaults: every client found, no questions')
    .option('--print', 'show what would change (diffs, commands) and write nothing')
    .option('--remove', 'take the model-feed entry out of the chosen clients again')
    .addHelpText(
      'after',
      `\nThe key: ${ENV.apiKey}, else the first line on stdin when it is not a terminal, else typed (hidden).\nIt is checked against the service before anything is written. Backups: <file>.<time>.bak. See ${docsUrl('setup')}.\n\nExit codes: 0 done, 1 the key was rejected, the base URL given is not the service, or a client's file could not be read, parsed or written (that file is left unchanged), 2 invalid flags or settings (or no terminal to ask in, or three unusable answers to a question, or the input ended), 130 Ctrl-C at any prompt (129 and 143: SIGHUP, SIGTERM).`,
    )
    .action(async (_opts, command: Command) => {
      const flags = command.opts<Record<string, unknown>>();
      const { runSetup } = await import('./commands/setup.js');
      exit(await runSetup(flags, io));
    });
  program
    .command('sandbox')
    .description(
      'run the sandbox service (sample data) on loopback; prints its base URL and the key it accepts',
    )
    .option('--port <n>', 'TCP port; 0 picks a free one', '0')
    .option(
      '--host <host>',
      'interface to bind; anything but loopback exposes it to the network',
      '127.0.0.1',
    )
    .option(
      '--live <seconds>',
      'publish a new sample change every <seconds> s (up to 86400), so the feed grows',
    )
    .option(
      '--tier <tier>',
      'the tier of the key it accepts: free (1,000 calls a day) or pro (100,000); default pro with --live, so watch can poll every few seconds, else free',
    )
    .action(async (flags: SandboxFlags) => {
      const { runSandbox } = await import('./commands/sandbox.js');
      exit(await runSandbox(flags, io));
    });
  addHelpCommand(program, exit);
  // A word where a command belongs is a mistyped command (refuseCommand), not an argument: the
  // server takes none. Set once the commands exist, which would otherwise inherit it.
  program.allowExcessArguments();
  addSettingsToEveryCommand(program);
  checkChoicesSafely(program, configuredKey(io.env));
  return program;
}

/** Runs the CLI; resolves with an exit code, or with undefined while the server keeps running. */
export async function main(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  let code: number | undefined;
  const exit = (c: number) => {
    code = c;
  };
  try {
    // No arguments: the stdio server, as stdio-entry.ts serves it, without building the command
    // line. The flags commander gives for none change nothing (a test checks it).
    if (argv.length === 0) await serve({}, io, argv, exit);
    else await buildProgram(io, argv, exit).parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version end with code 0; everything else is a usage error already printed.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    return reportFailure(error, io);
  }
}
