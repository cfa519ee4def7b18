/**
 * The command line: the program (the stdio server, or `--http`) and its commands, each defined in
 * `commands/<name>/command.ts`. Flags become one Config in each command; user mistakes print one
 * line and exit 2, never a stack.
 */

import { type Command, CommanderError } from 'commander';
import { checkChoicesSafely, passFlagsDown, refuseKeyFlag } from './cli-rules.js';
import { addSettingsToEveryCommand, configuredKey, HELP_AFTER } from './cli-settings.js';
import { addCallCommand } from './commands/call/command.js';
import { addCheckCommand } from './commands/check/command.js';
import type { CommandContext } from './commands/context.js';
import { addDoctorCommand } from './commands/doctor/command.js';
import { addHelpCommand } from './commands/help/command.js';
import { addSandboxCommand } from './commands/sandbox/command.js';
import { addServeFlags, serve } from './commands/serve/command.js';
import { addSetupCommand } from './commands/setup/command.js';
import { addWatchCommand } from './commands/watch/command.js';
import { EXIT } from './exit-codes.js';
import type { CliIo } from './io.js';
import { nameCommandsFor } from './own-command.js';
import { reportFailure } from './report-failure.js';
import { terminalSafe } from './text/terminal.js';
import { CliCommand } from './unknown-flag.js';
import { VERSION } from './version.js';

export function buildProgram(io: CliIo, argv: readonly string[], exit: (code: number) => void): Command {
  const context: CommandContext = { io, argv, exit };
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
    });
  addServeFlags(program, context);
  addCallCommand(program, context);
  addWatchCommand(program, context);
  addCheckCommand(program, context);
  addDoctorCommand(program, context);
  addSetupCommand(program, context);
  addSandboxCommand(program, context);
  addHelpCommand(program, context);
  // A word where a command belongs is a mistyped command (refuseCommand), not an argument: the
  // server takes none. Set once the commands exist, which would otherwise inherit it.
  program.allowExcessArguments();
  addSettingsToEveryCommand(program);
  checkChoicesSafely(program, configuredKey(io.env));
  return program;
}

/** Runs the CLI; resolves with an exit code, or with undefined while the server keeps running. */
export async function main(argv: readonly string[], io: CliIo): Promise<number | undefined> {
  nameCommandsFor({ env: io.env, script: process.argv[1] });
  let code: number | undefined;
  const exit = (c: number) => {
    code = c;
  };
  try {
    // No arguments: the stdio server, as stdio-entry.ts serves it, without building the command
    // line. The flags commander gives for none change nothing (a test checks it).
    if (argv.length === 0) await serve({}, { io, argv, exit });
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
