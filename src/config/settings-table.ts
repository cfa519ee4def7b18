/**
 * Every setting, said once: its variable, its flag, its default, its bounds, its help line, which
 * commands read it, and whether it holds a secret. The configuration (config.ts) takes its bounds
 * and defaults from here; the command line (cli-settings.ts) its flags, each command's help and the
 * root help's list of variables; a test holds the README's settings table to it.
 */

import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../log-options.js';
import { ENV } from './setting-source.js';

/** Where answers come from: the hosted service, the public origins recorded here, or sample data. */
export const SOURCES = ['service', 'public', 'sample'] as const;
export type SourceKind = (typeof SOURCES)[number];

/** The public origins by name, with their default addresses. */
export const PUBLIC_ORIGINS = {
  openrouter: { env: ENV.openrouterUrl, url: 'https://openrouter.ai/api/v1' },
  modelsDev: { env: ENV.modelsDevUrl, url: 'https://models.dev' },
  huggingface: { env: ENV.huggingfaceUrl, url: 'https://huggingface.co' },
  deprecations: { env: ENV.deprecationsUrl, url: 'https://modeldeprecations.dev' },
} as const;
export type PublicOriginName = keyof typeof PUBLIC_ORIGINS;

export const DEFAULTS = {
  timeoutMs: 15_000,
  cacheTtlS: 60,
  logLevel: 'warn' as LogLevel,
  logFormat: 'text' as LogFormat,
  /** A week: an answer that old still beats none while the service is down, and says its age. */
  staleMaxAgeS: 7 * 86_400,
  source: 'service' as SourceKind,
  /** An hour: the aggregator's catalog changes a few times a day. */
  refreshS: 3600,
};

/** The commands, by the name their help goes by (`help` is commander's own). */
export const COMMANDS = [
  'model-feed-mcp',
  'call',
  'watch',
  'check',
  'doctor',
  'setup',
  'sandbox',
  'help',
] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface WholeNumberRange {
  min: number;
  max: number;
  unit: string;
}

export interface Setting {
  /** The environment variable that sets it, if one does. */
  env?: string;
  /** The flag as the help shows it, with its argument (`--timeout <ms>`), if one sets it. */
  flag?: string;
  /** The default, as help and README say it. */
  shownDefault: string;
  /** What it does, in a command's help (the variable and the default are added there). */
  help: string;
  /** The words it takes, when it takes one of a few. */
  choices?: readonly string[];
  /** The whole numbers it takes, when it takes a number. */
  range?: WholeNumberRange;
  /** The commands that read it: they list it in their help and take it. */
  readBy: readonly CommandName[];
  /** Commands that take it without reading it, not listed in their help (doctor takes a client's pasted args). */
  takenBy?: readonly CommandName[];
  /** It holds a credential: no output shows its value. */
  secret: boolean;
}

/** The commands that call the service (or stand in for it): they read its settings. */
const CALLERS: readonly CommandName[] = ['model-feed-mcp', 'call', 'watch', 'check', 'doctor'];
const ALL_BUT_SANDBOX: readonly CommandName[] = [...CALLERS, 'setup'];

/** A public origin's address: https, http only on loopback, or `off`; read only with `--source public`. */
function origin(name: PublicOriginName, what: string): Setting {
  return {
    env: PUBLIC_ORIGINS[name].env,
    shownDefault: PUBLIC_ORIGINS[name].url,
    help: `with --source public: where ${what} is read, off = not read`,
    readBy: CALLERS,
    secret: false,
  };
}

export const SETTINGS = {
  apiKey: {
    env: ENV.apiKey,
    shownDefault: 'required',
    help: "API key, from the service's account screen (no flag: args leak into process lists)",
    readBy: ALL_BUT_SANDBOX,
    secret: true,
  },
  baseUrl: {
    env: ENV.baseUrl,
    flag: '--base-url <url>',
    shownDefault: 'required',
    help: 'service base URL, e.g. https://<service host>',
    readBy: ALL_BUT_SANDBOX,
    secret: false,
  },
  timeout: {
    env: ENV.timeout,
    flag: '--timeout <ms>',
    shownDefault: String(DEFAULTS.timeoutMs),
    help: 'timeout of a whole call in ms, retries included',
    range: { min: 1, max: 600_000, unit: 'milliseconds' },
    readBy: ALL_BUT_SANDBOX,
    secret: false,
  },
  cacheTtl: {
    env: ENV.cacheTtl,
    flag: '--cache-ttl <s>',
    shownDefault: String(DEFAULTS.cacheTtlS),
    help: 'cache lifetime of catalog reads in s, 0 = off',
    range: { min: 0, max: 86_400, unit: 'seconds' },
    readBy: CALLERS,
    secret: false,
  },
  logLevel: {
    env: ENV.logLevel,
    flag: '--log-level <level>',
    shownDefault: DEFAULTS.logLevel,
    help: 'stderr log level',
    choices: LOG_LEVELS,
    readBy: ALL_BUT_SANDBOX,
    secret: false,
  },
  logFormat: {
    env: ENV.logFormat,
    flag: '--log-format <format>',
    shownDefault: DEFAULTS.logFormat,
    help: 'stderr log format',
    choices: LOG_FORMATS,
    readBy: ALL_BUT_SANDBOX,
    secret: false,
  },
  watchInterval: {
    env: ENV.watchInterval,
    flag: '--watch-interval <s>',
    shownDefault: 'from the tier',
    help: 's between polls while a client subscribes to model-feed://changes',
    range: { min: 1, max: 86_400, unit: 'seconds' },
    readBy: ['model-feed-mcp'],
    takenBy: ['doctor'],
    secret: false,
  },
  proxy: {
    flag: '--proxy <url>',
    shownDefault: 'from env',
    help: 'proxy for the service, over HTTPS_PROXY/HTTP_PROXY (NO_PROXY still applies)',
    readBy: ALL_BUT_SANDBOX,
    secret: false,
  },
  diskCache: {
    env: ENV.diskCache,
    flag: '--no-disk-cache',
    shownDefault: 'on',
    help: 'the cache your processes share on disk (catalog answers, 429s)',
    readBy: CALLERS,
    secret: false,
  },
  staleMaxAge: {
    env: ENV.staleMaxAge,
    flag: '--stale-max-age <s>',
    shownDefault: String(DEFAULTS.staleMaxAgeS),
    help: 'oldest cached answer given while the service is down, in s, 0 = never',
    range: { min: 0, max: 365 * 86_400, unit: 'seconds' },
    readBy: ['model-feed-mcp', 'call', 'watch', 'check'],
    takenBy: ['doctor'],
    secret: false,
  },
  sandbox: {
    flag: '--sandbox',
    shownDefault: 'off',
    help: 'sample data from a built-in sandbox: no key, no network (= --source sample)',
    readBy: CALLERS,
    secret: false,
  },
  source: {
    env: ENV.source,
    flag: '--source <kind>',
    shownDefault: DEFAULTS.source,
    help: 'where answers come from: service, public (the public origins: no key) or sample',
    choices: SOURCES,
    readBy: ALL_BUT_SANDBOX,
    secret: false,
  },
  refresh: {
    env: ENV.refresh,
    flag: '--refresh <s>',
    shownDefault: String(DEFAULTS.refreshS),
    help: 'with --source public: age in s before the origins are fetched anew, 0 = every read',
    range: { min: 0, max: 30 * 86_400, unit: 'seconds' },
    readBy: CALLERS,
    secret: false,
  },
  openrouterUrl: origin('openrouter', "the aggregator's catalog"),
  modelsDevUrl: origin('modelsDev', 'models.dev'),
  huggingfaceUrl: origin('huggingface', 'the open model repository'),
  deprecationsUrl: origin('deprecations', 'vendor-cited deprecations'),
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;
