/**
 * Rules the command line holds for every command: no key on the command line, the program's flags
 * passed down to the command named after them, and fixed-choice values quoted safely.
 */

import type { Command } from 'commander';
import { ENV } from './config.js';
import { ConfigError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { echoValue } from './text/redact.js';
import { refuseFlag } from './unknown-flag.js';

/**
 * `--api-key` is refused with the fix, not as an unknown option: argv shows in process lists (ps,
 * Task Manager) and in shared client configs, the environment does not. The server's message
 * speaks of the client config that started it; the commands', of the shell they run in.
 */
export function refuseKeyFlag(program: Command, action: Command): void {
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
export function passFlagsDown(action: Command): void {
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
 * Every flag with a fixed set of values (`.choices()`) checked by a parser of ours: commander's own
 * check quotes the value as typed (a key put in the wrong flag, an escape sequence that clears the
 * screen, 100 KB) in its error. Ours says the same through echoValue. Its help keeps the choices.
 */
export function checkChoicesSafely(command: Command, secrets: readonly string[]): void {
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
