/**
 * `call <tool>`: one subcommand per tool, its flags derived from the tool's input schema, and what
 * `call` says when no tool answers to the name.
 */

import { type Command, Option } from 'commander';
import { kebabFlag, missingToolMessage, typedFlags } from '../../call-flags.js';
import { configuredKey } from '../../cli-settings.js';
import { type ConfigFlags, resolveConfig } from '../../config.js';
import { ConfigError } from '../../errors.js';
import { EXIT } from '../../exit-codes.js';
import { listTools } from '../../mcp-server.js';
import { ownCommand } from '../../own-command.js';
import { echoValue } from '../../text/redact.js';
import { describeAllowed } from '../../tools/arguments.js';
import type { JsonSchema } from '../../tools/json-schema.js';
import { refuseCommand } from '../../unknown-flag.js';
import type { CommandContext } from '../context.js';

/** One `call <tool>` subcommand per tool, its flags derived from the tool's input schema. */
export function addCallCommand(program: Command, { io, argv, exit }: CommandContext): void {
  const tools = listTools();
  const call = program
    .command('call')
    .description('call one tool and print its result (text, or the structured result with --json)')
    .usage('<tool> [flags]')
    .commandsGroup('Tools:')
    .helpCommand('help [tool]', "show a tool's flags")
    .argument('[tool]')
    .addHelpText(
      'after',
      `\nEach tool's flags: ${ownCommand('call <tool> --help')}. Each flag also takes the argument's own name: --maxInputPrice is --max-input-price.` +
        '\nExit codes: 0 result printed, 1 the tool reported an error, 2 invalid flags or settings.',
    )
    // Reached only when no tool answers to the name: none given, or one misspelt, so the message
    // can say which is missing or which tool was probably meant.
    .action((typed: string | undefined) => {
      if (typed !== undefined) refuseCommand(call, typed);
      call.error(`error: ${missingToolMessage(tools.map((t) => t.name))}`, {
        exitCode: EXIT.usage,
        code: 'model-feed-mcp.missingTool',
      });
    });
  for (const tool of tools) {
    const sub = call.command(tool.name).description(tool.description ?? '');
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(tool.inputSchema.required ?? []);
    for (const [name, schema] of Object.entries(properties)) {
      const what = `${schema.description ?? ''} Allowed: ${describeAllowed(schema)}.`.trim();
      sub.option(`--${kebabFlag(name)} <value>`, `${required.has(name) ? '(required) ' : ''}${what}`);
      // The schema's own spelling, as the README and tools/list show it; same value, hidden in help.
      if (kebabFlag(name) !== name) sub.addOption(new Option(`--${name} <value>`).hideHelp());
    }
    // A tool's one required argument may also come first, bare: `call get_model openai/gpt-4o`.
    const [positional] = required.size === 1 ? [...required] : [];
    if (positional) sub.argument(`[${positional}]`, `the same as --${kebabFlag(positional)}`);
    sub.option('--json', 'print the structured result as JSON').action(async (...params: unknown[]) => {
      const command = params.at(-1) as Command;
      const { json, ...all } = command.opts<Record<string, unknown>>();
      const bare = positional ? (params[0] as string | undefined) : undefined;
      if (positional && bare !== undefined) {
        if (positional in all) {
          throw new ConfigError(
            `${positional} was given twice, as "${echoValue(bare, configuredKey(io.env))}" and as --${kebabFlag(positional)}: give it once.`,
            positional,
            `--${kebabFlag(positional)}`,
          );
        }
        all[positional] = bare;
      }
      const names = Object.keys(properties);
      const args = Object.fromEntries(names.flatMap((name) => (name in all ? [[name, all[name]]] : [])));
      const config = resolveConfig(all as ConfigFlags, io.env, argv, { audience: 'shell' });
      const { runCall } = await import('./run.js');
      exit(
        await runCall(config, io, tool.name, args, { json: json === true, flags: typedFlags(argv, names) }),
      );
    });
  }
  // Set once the tools exist, which would otherwise inherit it: whatever follows a name that is
  // no tool reaches the action above, which names the mistake.
  call.allowExcessArguments();
}
