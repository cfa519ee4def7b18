/**
 * The settings as the command line takes them, all derived from the settings table
 * (config/settings-table.ts): one flag per setting, given to the commands that read it (a command's
 * help lists those and it refuses the rest), and the root help's list of variables.
 */

import { type Command, Option } from 'commander';
import { COMMANDS, type CommandName, SETTINGS, type Setting } from './config/settings-table.js';
import { type ConfigFlags, ENV } from './config.js';
import type { CliIo } from './io.js';
import { ownCommand } from './own-command.js';
import { commandPath, SETTINGS_HEADING } from './unknown-flag.js';
import { VERSION } from './version.js';

/** A setting's default as help says it: "required", or the value. */
function defaultNote(setting: Setting): string {
  return setting.shownDefault === 'required' ? 'required' : `default ${setting.shownDefault}`;
}

const isOffSwitch = (setting: Setting): boolean => setting.flag?.startsWith('--no-') === true;

/** The variables, as the root help lists them: what each does and its default. */
function variableLines(): string[] {
  const rows = Object.values(SETTINGS as Record<string, Setting>)
    .filter((setting) => setting.env)
    .map((setting): [string, string] => [
      setting.env ?? '',
      `${setting.help}${isOffSwitch(setting) ? ', 0 = off' : ''} (${defaultNote(setting)})`,
    ]);
  rows.push(
    ['HTTPS_PROXY, HTTP_PROXY, NO_PROXY', 'proxy settings, either case (default none)'],
    ['NODE_EXTRA_CA_CERTS', 'extra CA certificates (PEM), added to the default roots'],
  );
  const width = Math.max(...rows.map(([name]) => name.length)) + 2;
  return rows.map(
    ([name, text]) => `  ${name.padEnd(width)}${wrap(text, HELP_COLUMNS - width - 2, width + 2)}`,
  );
}

/** The width the root help's variable lines keep to, as commander's own help does at a terminal. */
const HELP_COLUMNS = 100;

/** Text broken at spaces into lines of at most `columns`, each after the first indented by `indent`. */
function wrap(text: string, columns: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > columns) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** The root help's end: every setting's variable, and the exit codes. */
export const HELP_AFTER = `
Environment:
${variableLines().join('\n')}
  Flags win over environment variables.

Exit codes:
  0  success
  1  a check, tool call or delivery failed (doctor, call, watch), or check found a failing finding
  2  invalid flags or settings; for check also a path it could not read, or no file to scan`;

type FlagSetting = keyof ConfigFlags;

/** A setting's flag, with its variable and default in the help line. */
function settingOption(setting: Setting): Option {
  const off = isOffSwitch(setting);
  const env = setting.env === undefined ? undefined : off ? `env ${setting.env}=0` : `env ${setting.env}`;
  const notes = [env, off || setting.env === undefined ? undefined : defaultNote(setting)].filter(Boolean);
  const text = `${off ? `turn off ${setting.help}` : setting.help}${notes.length ? ` (${notes.join(', ')})` : ''}`;
  const option = new Option(setting.flag ?? '', text);
  return setting.choices ? option.choices(setting.choices) : option;
}

/** The flags a command takes, by the table: those it reads, and those it takes without reading. */
function flagsOf(command: string): { listed: FlagSetting[]; unlisted: FlagSetting[] } {
  const listed: FlagSetting[] = [];
  const unlisted: FlagSetting[] = [];
  for (const [name, setting] of Object.entries(SETTINGS as Record<string, Setting>)) {
    if (!setting.flag) continue;
    if (setting.readBy.includes(command as CommandName)) listed.push(name as FlagSetting);
    else if (setting.takenBy?.includes(command as CommandName)) unlisted.push(name as FlagSetting);
  }
  return { listed, unlisted };
}

/**
 * Gives a command the settings it takes, under their own heading in its help, and what every
 * command takes: --version, and --api-key, which is there only to be refused with where the key
 * goes instead (refuseKeyFlag). Its usage errors point to its own help.
 */
export function addConfigOptions(
  command: Command,
  which: readonly FlagSetting[],
  unlisted: readonly FlagSetting[] = [],
): Command {
  if (!command.options.some((o) => o.long === '--version')) {
    command.version(VERSION, '-v, --version', 'print the version');
  }
  for (const name of [...which, ...unlisted]) {
    const added = settingOption(SETTINGS[name]).helpGroup(SETTINGS_HEADING);
    command.addOption(unlisted.includes(name) ? added.hideHelp() : added);
  }
  return command
    .addOption(new Option('--api-key [key]').hideHelp())
    .showHelpAfterError(
      `(run ${ownCommand(`${command.parent ? `${commandPath(command)} ` : ''}--help`)} for usage)`,
    );
}

/** Every command with the settings the table says it takes; the tools of `call` take call's. */
export function addSettingsToEveryCommand(program: Command): void {
  for (const command of [program, ...program.commands]) {
    if (!COMMANDS.includes(command.name() as CommandName))
      throw new Error(`the settings table names no command ${command.name()}`);
    const { listed, unlisted } = flagsOf(command.name());
    const tools = command === program ? [] : command.commands;
    for (const sub of [command, ...tools]) addConfigOptions(sub, listed, unlisted);
  }
}

/** The key as configured: what a message quoting the user's own input must hide first. */
export function configuredKey(env: CliIo['env']): string[] {
  const key = env[ENV.apiKey]?.trim();
  return key ? [key] : [];
}
