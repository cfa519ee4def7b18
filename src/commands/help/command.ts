import type { Command } from 'commander';
import { EXIT } from '../../exit-codes.js';
import { refuseCommand } from '../../unknown-flag.js';
import type { CommandContext } from '../context.js';

/**
 * `help [command…]`, as people type it (`model-feed-mcp help watch`, `help call get_model`): the
 * help `<command> --help` gives. Commander adds its own only to a program without an action, and
 * that one took `help call get_model` for `help call` and an unknown name for the program's help.
 */
export function addHelpCommand(program: Command, { exit }: CommandContext): void {
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
