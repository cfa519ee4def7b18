/** `check [paths…]`: its flags, help and exit codes; the scan loads when the command runs. */

import { type Command, Option } from 'commander';
import type { CheckFlags } from '../../check/options.js';
import { type ConfigFlags, resolveConfig } from '../../config.js';
import { docsUrl } from '../../docs-links.js';
import type { CommandContext } from '../context.js';

export function addCheckCommand(program: Command, { io, argv, exit }: CommandContext): void {
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
      const { parseCheckFlags } = await import('../../check/options.js');
      const options = parseCheckFlags(paths, all as CheckFlags, Date.now());
      const { runCheck } = await import('./run.js');
      exit(await runCheck(config, io, options));
    });
}
