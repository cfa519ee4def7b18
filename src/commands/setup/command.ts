/** `setup`: its flags, help and exit codes; the questions and writes load when the command runs. */

import type { Command } from 'commander';
import { ENV } from '../../config.js';
import { docsUrl } from '../../docs-links.js';
import type { CommandContext } from '../context.js';

export function addSetupCommand(program: Command, { io, exit }: CommandContext): void {
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
      const { runSetup } = await import('./run.js');
      exit(await runSetup(flags, io));
    });
}
