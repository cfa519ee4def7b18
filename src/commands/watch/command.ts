/** `watch`: its flags, help and exit codes; the watcher itself loads when the command runs. */

import { type Command, Option } from 'commander';
import { EVENT_TYPES } from '../../api/schemas.js';
import { type ConfigFlags, resolveConfig } from '../../config.js';
import { docsUrl } from '../../docs-links.js';
import type { WatchFlags } from '../../watch/options.js';
import type { CommandContext } from '../context.js';

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

export function addWatchCommand(program: Command, { io, argv, exit }: CommandContext): void {
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
      'seconds between polls (default: from the tier, at most a quarter of the daily limit); with --sandbox, also how often it publishes',
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
      // A watcher logs at info unless told otherwise (run.ts): the server's default level, shown
      // among the settings, would be untrue here.
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
      const { parseWatchFlags } = await import('../../watch/options.js');
      const options = parseWatchFlags(all as WatchFlags, {
        cwd: process.cwd(),
        env: io.env,
        secrets: config.secrets,
        sandbox: config.sandbox,
      });
      const { runWatch } = await import('./run.js');
      exit(await runWatch(config, io, options));
    });
}
