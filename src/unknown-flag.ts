/**
 * What the command line says about a flag a command does not take: the command that refused it,
 * what takes it instead (another command, another tool, the server), the flag most likely meant, and
 * what the command does take. Commander's own "unknown option" says none of this, and suggests only
 * flags at most two edits away, so `--max-price` and `get_model --model` got no hint.
 */

import { Command, type Option } from 'commander';
import {
  closestFlag,
  closestTool,
  flagsMeant,
  kebabFlag,
  type ToolFlags,
  unknownToolMessage,
} from './call-flags.js';
import { EXIT } from './exit-codes.js';
import { listTools } from './mcp-server.js';
import { ownCommand } from './own-command.js';
import { prefixedSecrets } from './text/key-shapes.js';
import { echoValue } from './text/redact.js';
import type { JsonSchema } from './tools/json-schema.js';

/** The help heading of the settings a command takes, below its own options. */
export const SETTINGS_HEADING = 'Settings:';

/** Why a command refuses a flag, where the general rule would say less than the command can. */
const REASONS: Readonly<Record<string, () => string>> = {
  'setup --sandbox': () =>
    `setup configures clients for the real service and does not take --sandbox; to try the tools on sample data, run \`${ownCommand('call search_models --sandbox')}\``,
};

/** `model-feed-mcp`, `call get_model`: how a message and `--help` name the command. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.length ? names.join(' ') : command.name();
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

function isCall(command: Command): boolean {
  return command.name() === 'call' && command.parent?.parent === null;
}

function isTool(command: Command): boolean {
  return command.parent ? isCall(command.parent) : false;
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The flags a command's help lists, apart from --help and --version, which every command takes. */
function shownFlags(command: Command): Option[] {
  return command.options.filter((o) => !o.hidden && o.long && o.long !== '--version');
}

function toolFlags(): ToolFlags[] {
  return listTools().map((tool) => ({
    name: tool.name,
    arguments: Object.entries((tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>).map(
      ([name, schema]) => ({ name, description: schema.description as string | undefined }),
    ),
    required: tool.inputSchema.required ?? [],
  }));
}

/**
 * The commands, as a sentence names them: the tools as `call <tool>`, since every tool takes the
 * flags this names (the settings, --json; a tool's arguments are named by tool elsewhere).
 */
function ownerNames(owners: readonly Command[]): string[] {
  const names = owners.map((c) => {
    if (!c.parent) return 'the server (model-feed-mcp)';
    return isTool(c) || isCall(c) ? 'call <tool>' : commandPath(c);
  });
  return [...new Set(names)];
}

/** What takes the flag instead: another tool (with what its argument means), or other commands. */
function takenElsewhere(command: Command, flag: string, tools: readonly ToolFlags[]): string | undefined {
  if (!flag.startsWith('--')) return undefined;
  const long = `--${kebabFlag(flag.slice(2))}`;
  // `--baseUrl` for `--base-url`: the command takes it, spelt otherwise; the guess says which.
  if (shownFlags(command).some((o) => o.long === long)) return undefined;
  const owners = allCommands(rootOf(command)).filter(
    (c) => c !== command && shownFlags(c).some((o) => o.long === long),
  );
  if (!owners.length) return undefined;
  const asArgument = tools.flatMap((tool) =>
    tool.arguments.filter((a) => `--${kebabFlag(a.name)}` === long).map((a) => ({ tool: tool.name, ...a })),
  );
  if (asArgument.length === 1) {
    const [{ tool, description }] = asArgument as [(typeof asArgument)[number]];
    const about = description ? ` (${description.replace(/\.$/, '')})` : '';
    return `${flag} is an argument of call ${tool}${about}`;
  }
  if (asArgument.length > 1) {
    return `${flag} is an argument of ${listed(asArgument.map((a) => `call ${a.tool}`))}`;
  }
  const setting = owners.some((c) =>
    c.options.some((o) => o.long === long && o.helpGroupHeading === SETTINGS_HEADING),
  );
  return `${flag} is ${setting ? 'a setting' : 'an option'} of ${listed(ownerNames(owners))}`;
}

/** "call get_model takes --id and --json, and the settings --base-url, …". */
function whatItTakes(command: Command): string {
  const path = commandPath(command);
  const flags = shownFlags(command);
  const own = flags.filter((o) => o.helpGroupHeading !== SETTINGS_HEADING).map((o) => o.long ?? '');
  const settings = flags.filter((o) => o.helpGroupHeading === SETTINGS_HEADING).map((o) => o.long ?? '');
  if (!own.length && !settings.length) return `${path} takes no flags but --help and --version.`;
  if (!settings.length) return `${path} takes ${listed(own)}.`;
  if (!own.length) return `${path} takes the settings ${listed(settings)}.`;
  return `${path} takes ${listed(own)}, and the settings ${listed(settings)}.`;
}

/**
 * Two lines: the flag, what takes it instead and the flag most likely meant; then what the command
 * takes. Only the name of `--name=value` is echoed: the value may be a key typed into the wrong flag.
 */
export function unknownFlagMessage(command: Command, typed: string): string {
  const flag = shownFlagName(command, typed.split('=')[0] ?? typed);
  const path = commandPath(command);
  const tools = toolFlags();
  const why = REASONS[`${path} ${flag}`]?.() ?? takenElsewhere(command, flag, tools);
  // A flag another command takes was typed on purpose, for the wrong command: only a flag about the
  // same thing is a guess then (--watch-interval → --interval), not one spelt alike (--http → --help).
  const close = flag.startsWith('--')
    ? closestFlag(flag, [...shownFlags(command).map((o) => o.long ?? ''), '--help', '--version'], {
        spelling: why === undefined,
      })
    : undefined;
  const tool = isTool(command) ? tools.find((t) => t.name === command.name()) : undefined;
  const meant = close ? [close] : tool ? flagsMeant(flag, tool, tools) : [];
  const guess = meant.length ? ` Did you mean ${meant.join(' or ')}?` : '';
  return `error: unknown option '${flag}' for ${path}${why ? `: ${why}` : ''}.${guess}\n${whatItTakes(command)}`;
}

/** A flag's name as typed: one long token, yet no key (`--stdout-format-json`), so shown whole. */
const FLAG_NAME = /^--?[A-Za-z][A-Za-z0-9-]*$/;

/** The typed name of an unknown flag as the message shows it: the name, or an echo that hides a key. */
function shownFlagName(command: Command, name: string): string {
  const secrets = hiddenIn(command);
  const plainName =
    FLAG_NAME.test(name) && !prefixedSecrets(name).length && !secrets.some((secret) => name.includes(secret));
  return plainName ? name : echoValue(name, secrets);
}

/** The configured key, which every echo of the user's input hides first: kept on the program. */
function hiddenIn(command: Command): readonly string[] {
  let root = command;
  while (root.parent) root = root.parent;
  return root instanceof CliCommand ? root.secrets : [];
}

/** Refuses a flag the command does not take, as a usage error (exit 2). */
export function refuseFlag(command: Command, typed: string): never {
  command.error(unknownFlagMessage(command, typed), {
    exitCode: EXIT.usage,
    code: 'commander.unknownOption',
  });
}

/**
 * A Command whose "unknown option" error is `unknownFlagMessage`. `unknownOption` is commander's
 * internal hook for that error (14.x); test/unit/cli-help.test.ts fails if it stops being called.
 */
export class CliCommand extends Command {
  /** The configured key: set on the program once the environment is known. */
  secrets: readonly string[] = [];

  override createCommand(name?: string): Command {
    return new CliCommand(name);
  }

  unknownOption(flag: string): never {
    // `wach --interval 5`, `call list_changes --limit 5`: the mistyped command or tool is the
    // mistake, not a flag that it would take. Commander lists the words before the first unknown
    // flag first in `args`.
    const stray = this.parent && !isCall(this) ? undefined : this.args[0];
    if (stray !== undefined && !stray.startsWith('-')) refuseCommand(this, stray);
    refuseFlag(this, flag);
  }
}

/**
 * Refuses a command name the command does not have (`model-feed-mcp wach`, `help nope`), as a usage
 * error (exit 2) with the name most likely meant. The root serves when given no command, so commander
 * took a stray word for an argument it does not take: "too many arguments".
 */
export function refuseCommand(command: Command, typed: string): never {
  const names = command.commands.map((c) => c.name());
  if (isCall(command)) {
    command.error(`error: ${unknownToolMessage(typed, names, hiddenIn(command))}`, {
      exitCode: EXIT.usage,
      code: 'model-feed-mcp.unknownTool',
    });
  }
  const path = commandPath(command);
  if (!names.length) {
    command.error(
      `error: ${path} has no commands of its own: '${echoValue(typed, hiddenIn(command))}' is not one.`,
      {
        exitCode: EXIT.usage,
        code: 'commander.unknownCommand',
      },
    );
  }
  const closest = closestTool(typed, names);
  const guess = closest ? ` Did you mean ${closest}?` : '';
  // The user's own text, echoed: no escape sequence or line break in it may act on the terminal,
  // and a key pasted as a word (a client's "args") is not shown.
  command.error(
    `error: unknown command '${echoValue(typed, hiddenIn(command))}' for ${path}.${guess} The commands are ${listed(names)}.`,
    { exitCode: EXIT.usage, code: 'commander.unknownCommand' },
  );
}
