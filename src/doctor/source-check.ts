/**
 * Where answers come from, as doctor reports it: the settings of `--source public` (no key, no base
 * URL), and, for someone on the service without a key, the two ways on without an account. Pure.
 */

import { type Config, ENV } from '../config.js';
import { ownCommand } from '../own-command.js';
import { echoPath } from '../text/redact.js';
import { type Check, check } from './check.js';

type Env = Readonly<Record<string, string | undefined>>;

function from(origin: string | undefined): string {
  return origin ? `from ${origin}` : '(default)';
}

function noAccountWays(): string {
  return `No account? \`--source public\` gives real data from the public origins (no key, no base URL): run \`${ownCommand('doctor --source public')}\` to check them; \`--sandbox\` gives sample data, offline.`;
}

/** The Settings check of `--source public`: its own settings; a key, if set, is not used. */
export function checkPublicSettings(config: Config, env: Env): Check {
  const { sources } = config;
  const parts = [
    `source public ${from(sources.source)}`,
    `refresh ${config.refreshS} s ${from(sources.refresh)}`,
    `timeout ${config.timeoutMs} ms ${from(sources.timeout)}`,
    `log level ${config.logLevel} ${from(sources.logLevel)}`,
    `state folder ${echoPath(config.stateFolder, config.secrets)}`,
  ];
  if (env[ENV.apiKey]?.trim())
    parts.push(`${ENV.apiKey} is set but not used: the public origins take no key`);
  for (const warning of config.warnings) parts.push(`WARNING: ${warning}`);
  if (config.keyInArgv) {
    parts.push('WARNING: the API key appears in the command-line arguments');
    return check('settings', {
      status: 'warn',
      detail: parts.join('; '),
      fix: 'Remove the key from the command line (and from the client config\'s "args"): arguments show in process lists and shared config files, and --source public needs no key.',
    });
  }
  return check('settings', { status: config.warnings.length ? 'warn' : 'pass', detail: parts.join('; ') });
}

/**
 * For the service with no key at all: a line that names the two ways on without an account. A key
 * set but unusable means an account, so no such line.
 */
export function checkNoAccount(config: Config, env: Env): Check | undefined {
  if (config.source !== 'service' || env[ENV.apiKey]?.trim()) return undefined;
  return check('source', {
    status: 'warn',
    detail: `service ${from(config.sources.source)}: it needs an account (a base URL and an API key)`,
    fix: noAccountWays(),
  });
}
