/**
 * The settings as the command line takes them: one flag per setting, the commands that read each
 * (a command's help lists those and it refuses the rest), and the root help's list of variables.
 */

import { type Command, Option } from 'commander';
import { type ConfigFlags, DEFAULTS, ENV, LOG_FORMATS, LOG_LEVELS, SOURCES } from './config.js';
import type { CliIo } from './io.js';
import { commandPath, SETTINGS_HEADING } from './unknown-flag.js';
import { VERSION } from './version.js';

/** The root help's end: every setting's variable, and the exit codes. */
export const HELP_AFTER = `
Environment:
  ${ENV.apiKey}      API key (required; from the service's account screen)
  ${ENV.baseUrl}     service base URL, e.g. https://<service host> (required)
  ${ENV.timeout}   request timeout in ms, retries included (default ${DEFAULTS.timeoutMs})
  ${ENV.cacheTtl}  cache lifetime of catalog reads in s, 0 = off (default ${DEFAULTS.cacheTtlS})
  ${ENV.logLevel}    ${LOG_LEVELS.join('|')} (default ${DEFAULTS.logLevel}); logs go to stderr
  ${ENV.logFormat}   ${LOG_FORMATS.join('|')} (default ${DEFAULTS.logFormat})
  ${ENV.diskCache}   0 turns off the cache shared by this user's processes (default on)
  ${ENV.staleMaxAge}  oldest cached answer given while the service is down, s (default ${DEFAULTS.staleMaxAgeS})
  ${ENV.watchInterval}  s between polls while subscribed to a resource (default: from the tier)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY   proxy settings, either case (default: none)
  NODE_EXTRA_CA_CERTS    extra CA certificates (PEM), added to the default roots
  Flags win over environment variables.

Exit codes:
  0  success
  1  a check, tool call or delivery failed (doctor, call, watch), or check found a failing finding
  2  invalid flags or settings; for check also a path it could not read, or no file to scan`;

/**
 * The settings, as flags; each command takes those it reads (SETTINGS_OF). Keyed by ConfigFlags, so
 * a setting added there must be added here, and given to the commands that read it.
 */
const SETTING_OPTIONS: Readonly<Record<keyof ConfigFlags, () => Option>> = {
  baseUrl: () => new Option('--base-url <url>', `service base URL (env ${ENV.baseUrl})`),
  timeout: () =>
    new Option('--timeout <ms>', `request timeout in ms (env ${ENV.timeout}, default ${DEFAULTS.timeoutMs})`),
  cacheTtl: () =>
    new Option(
      '--cache-ttl <s>',
      `catalog cache lifetime in s, 0 = off (env ${ENV.cacheTtl}, default ${DEFAULTS.cacheTtlS})`,
    ),
  logLevel: () =>
    new Option(
      '--log-level <level>',
      `stderr log level (env ${ENV.logLevel}, default ${DEFAULTS.logLevel})`,
    ).choices(LOG_LEVELS),
  logFormat: () =>
    new Option('--log-format <format>', `stderr log format (env ${ENV.logFormat}, default text)`).choices(
      LOG_FORMATS,
    ),
  watchInterval: () =>
    new Option(
      '--watch-interval <s>',
      `seconds between polls while a client subscribes to model-feed://changes (env ${ENV.watchInterval}, default: from the tier)`,
    ),
  proxy: () =>
    new Option(
      '--proxy <url>',
      'proxy for the service, overrides HTTPS_PROXY/HTTP_PROXY (NO_PROXY still applies)',
    ),
  diskCache: () =>
    new Option(
      '--no-disk-cache',
      `do not share catalog answers and 429s with other processes on disk (env ${ENV.diskCache}=0)`,
    ),
  staleMaxAge: () =>
    new Option(
      '--stale-max-age <s>',
      `oldest cached catalog answer given while the service is down, 0 = never (env ${ENV.staleMaxAge}, default ${DEFAULTS.staleMaxAgeS})`,
    ),
  sandbox: () =>
    new Option(
      '--sandbox',
      'answer from a built-in sandbox with sample data: no key, no network (= --source sample)',
    ),
  source: () =>
    new Option(
      '--source <kind>',
      `where answers come from: service, public (the public origins, recorded on this machine: no key) or sample (env ${ENV.source}, default service)`,
    ).choices(SOURCES),
  refresh: () =>
    new Option(
      '--refresh <s>',
      `with --source public: fetch the origins again when the newest snapshot is older, 0 = every read (env ${ENV.refresh}, default ${DEFAULTS.refreshS})`,
    ),
};

type Setting = keyof ConfigFlags;
/** What a command that calls the service reads: all but the subscription poll interval. */
const SERVICE_SETTINGS: readonly Setting[] = [
  'baseUrl',
  'timeout',
  'cacheTtl',
  'logLevel',
  'logFormat',
  'proxy',
  'diskCache',
  'staleMaxAge',
  'sandbox',
  'source',
  'refresh',
];
const ALL_SETTINGS = Object.keys(SETTING_OPTIONS) as Setting[];

/**
 * The settings each command reads, by its name (the tools of `call` read call's); its help lists
 * these and no others, and it refuses the rest. doctor checks the server's configuration, so it takes every setting the server
 * does (a client config's "args" pasted in). setup only checks the key: one request, no cache, no
 * sandbox. The sandbox is the service itself.
 */
const SETTINGS_OF: Readonly<Record<string, readonly Setting[]>> = {
  'model-feed-mcp': ALL_SETTINGS,
  call: SERVICE_SETTINGS,
  watch: SERVICE_SETTINGS,
  check: SERVICE_SETTINGS,
  doctor: ALL_SETTINGS,
  setup: ['baseUrl', 'timeout', 'logLevel', 'logFormat', 'proxy', 'source'],
  sandbox: [],
  help: [],
};

/**
 * Settings a command takes but does not read, left out of its help: doctor runs with a client
 * config's "args" pasted in, which may hold the server's poll interval or stale-answer age.
 */
const UNLISTED_SETTINGS_OF: Readonly<Record<string, readonly Setting[]>> = {
  doctor: ['watchInterval', 'staleMaxAge'],
};

/**
 * Gives a command the settings it takes, under their own heading in its help, and what every
 * command takes: --version, and --api-key, which is there only to be refused with where the key
 * goes instead (refuseKeyFlag). Its usage errors point to its own help.
 */
export function addConfigOptions(
  command: Command,
  which: readonly Setting[],
  unlisted: readonly Setting[] = [],
): Command {
  if (!command.options.some((o) => o.long === '--version')) {
    command.version(VERSION, '-v, --version', 'print the version');
  }
  for (const [name, option] of Object.entries(SETTING_OPTIONS)) {
    if (!which.includes(name as Setting)) continue;
    const added = option().helpGroup(SETTINGS_HEADING);
    command.addOption(unlisted.includes(name as Setting) ? added.hideHelp() : added);
  }
  return command
    .addOption(new Option('--api-key [key]').hideHelp())
    .showHelpAfterError(
      `(run model-feed-mcp${command.parent ? ` ${commandPath(command)}` : ''} --help for usage)`,
    );
}

/** Every command with the settings it takes (SETTINGS_OF); the tools of `call` take call's. */
export function addSettingsToEveryCommand(program: Command): void {
  for (const command of [program, ...program.commands]) {
    const which = SETTINGS_OF[command.name()];
    if (!which) throw new Error(`SETTINGS_OF names no settings for the command ${command.name()}`);
    const tools = command === program ? [] : command.commands;
    for (const sub of [command, ...tools]) {
      addConfigOptions(sub, which, UNLISTED_SETTINGS_OF[command.name()]);
    }
  }
}

/** The key as configured: what a message quoting the user's own input must hide first. */
export function configuredKey(env: CliIo['env']): string[] {
  const key = env[ENV.apiKey]?.trim();
  return key ? [key] : [];
}
