/**
 * The one typed configuration, built once at the edge from flags > env > defaults. Nothing else
 * in the package reads `process.env`. A problem with the key or the base URL does not stop the
 * server (it must still list its tools): it is kept in `setupError` and every tool call reports it.
 * Any other invalid value throws a ConfigError, which the CLI prints as one line.
 *
 * A value is quoted back in a message only through `echoValue`: people paste keys into the wrong
 * variable, and the message must not print the key it was handed.
 */

import type { Audience } from './audience.js';
import {
  argvHasKey,
  checkApiKey,
  checkBaseUrl,
  keyWhitespaceWarning,
  nothingSet,
} from './config/key-and-base-url.js';
import {
  choiceSetting,
  integerSetting,
  proxySetting,
  watchIntervalSetting,
} from './config/setting-parsers.js';
import {
  ENV,
  type Env,
  envEitherCase,
  envValue,
  pick,
  type Secrets,
  type Source,
} from './config/setting-source.js';
import {
  DEFAULTS,
  PUBLIC_ORIGINS,
  type PublicOriginName,
  SETTINGS,
  type Setting,
  SOURCES,
  type SourceKind,
} from './config/settings-table.js';
import { ConfigError } from './errors.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './log-options.js';
import { isLoopbackHost } from './net/loopback.js';
import { cacheFolder, homeFolder, stateFolder } from './store/paths.js';
import { withoutTrailingSlashes } from './text/key-shapes.js';
import { echoValue, prefixedSecrets, secretShapedTokens, secretValues } from './text/redact.js';

// The settings' own vocabulary, for those who validate or document them.
export {
  DEFAULTS,
  ENV,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
  PUBLIC_ORIGINS,
  type PublicOriginName,
  SOURCES,
  type SourceKind,
};

/** Proxy settings as found; which one applies to a URL is decided by `chooseProxy`. */
export interface ProxySettings {
  /** `--proxy`: used for both schemes, wins over the env vars. */
  flag: string | undefined;
  /** `HTTPS_PROXY` / `https_proxy`. */
  https: string | undefined;
  /** `HTTP_PROXY` / `http_proxy`. */
  http: string | undefined;
  /** `NO_PROXY` / `no_proxy`: hosts, `.suffix` or `*.suffix` entries, optional `:port`, or `*`. */
  noProxy: string | undefined;
}

export interface Config {
  /** `MODEL_FEED_API_KEY`. No flag: a key in argv leaks into process lists and client configs. */
  readonly apiKey: string | undefined;
  /** `MODEL_FEED_BASE_URL` / `--base-url`, without a trailing slash. No default: must be set. */
  readonly baseUrl: string | undefined;
  /** Why tool calls cannot reach the service (no key, bad base URL); undefined when ready. */
  readonly setupError: ConfigError | undefined;
  /** `MODEL_FEED_TIMEOUT_MS` / `--timeout`: bounds a whole call, retries included. @default 15000 */
  readonly timeoutMs: number;
  /** `MODEL_FEED_CACHE_TTL_S` / `--cache-ttl`: lifetime of cached catalog reads; 0 = off. @default 60 */
  readonly cacheTtlS: number;
  /**
   * `MODEL_FEED_DISK_CACHE` (0 = off) / `--no-disk-cache`: catalog answers and the last 429 shared
   * by the user's processes through files in `cacheFolder`. Off with `--sandbox`. @default on
   */
  readonly diskCache: boolean;
  /** The user's cache folder for this package (XDG_CACHE_HOME, ~/Library/Caches, %LOCALAPPDATA%). */
  readonly cacheFolder: string;
  /**
   * `MODEL_FEED_STALE_MAX_AGE_S` / `--stale-max-age <s>`: the oldest cached catalog answer given
   * while the service is down; 0 = never. @default 604800 (7 days)
   */
  readonly staleMaxAgeS: number;
  /** `MODEL_FEED_LOG_LEVEL` / `--log-level`: stderr verbosity. @default warn */
  readonly logLevel: LogLevel;
  /** `MODEL_FEED_LOG_FORMAT` / `--log-format`: plain lines or JSON lines on stderr. @default text */
  readonly logFormat: LogFormat;
  /**
   * `MODEL_FEED_WATCH_INTERVAL_S` / `--watch-interval`: seconds between polls while a client is
   * subscribed to `model-feed://changes`. @default undefined: from the tier, as `watch` polls
   */
  readonly watchIntervalS: number | undefined;
  readonly proxy: Readonly<ProxySettings>;
  /** `NODE_EXTRA_CA_CERTS`, which Node itself reads at start and adds to its default roots. */
  readonly extraCaCerts: string | undefined;
  /** `--sandbox`: answer from an in-process sandbox with sample data instead of the network. */
  readonly sandbox: boolean;
  /** `MODEL_FEED_SOURCE` / `--source` (`--sandbox` is `sample`). @default service */
  readonly source: SourceKind;
  /**
   * `MODEL_FEED_REFRESH_S` / `--refresh <s>`: the oldest snapshot of the public origins a read uses
   * before fetching anew; 0 fetches on every read. @default 3600
   */
  readonly refreshS: number;
  /** Each public origin's address without a trailing slash; undefined when set to `off`. */
  readonly publicOrigins: Readonly<Record<PublicOriginName, string | undefined>>;
  /** The user's state folder for this package (XDG_STATE_HOME, ~/Library/Application Support, %LOCALAPPDATA%). */
  readonly stateFolder: string;
  /** True when argv seems to carry the key (doctor warns: it leaks into process lists). */
  readonly keyInArgv: boolean;
  /** Where each setting came from: the flag or env var that set it; absent means the default. */
  readonly sources: Readonly<SettingSources>;
  /** Settings that were ignored, and why: logged at start, shown by doctor. */
  readonly warnings: readonly string[];
  /**
   * What no output may show: the key, and any credential-shaped value found in another setting (a
   * key pasted into the base URL, say). The logger, tool results, `call` and `doctor` hide them.
   */
  readonly secrets: readonly string[];
}

export interface SettingSources {
  baseUrl?: string;
  timeout?: string;
  cacheTtl?: string;
  logLevel?: string;
  logFormat?: string;
  watchInterval?: string;
  source?: string;
  refresh?: string;
}

/** Raw flag values, as the CLI parser hands them over (strings, unvalidated). */
export interface ConfigFlags {
  baseUrl?: string | undefined;
  timeout?: string | undefined;
  cacheTtl?: string | undefined;
  logLevel?: string | undefined;
  logFormat?: string | undefined;
  watchInterval?: string | undefined;
  proxy?: string | undefined;
  sandbox?: boolean | undefined;
  source?: string | undefined;
  refresh?: string | undefined;
  /** false with `--no-disk-cache`. */
  diskCache?: boolean | undefined;
  staleMaxAge?: string | undefined;
}

/** The flags that hold a string setting: the type makes a string flag added later a compile error here. */
type StringSettingFlag = {
  [Name in keyof ConfigFlags]-?: NonNullable<ConfigFlags[Name]> extends string ? Name : never;
}[keyof ConfigFlags];
const STRING_SETTING_FLAGS: Record<StringSettingFlag, true> = {
  baseUrl: true,
  timeout: true,
  cacheTtl: true,
  logLevel: true,
  logFormat: true,
  watchInterval: true,
  proxy: true,
  staleMaxAge: true,
  source: true,
  refresh: true,
};

/**
 * The key, as given and as used, plus every credential-shaped token in any setting this package
 * reads: all known before a single message is composed. Only settings: a command's own arguments
 * (call's tool arguments, watch's paths) are data, and a model id shaped like a key must not be
 * hidden in the answers about it.
 */
function collectSecrets(flags: ConfigFlags, env: Env, apiKey: string | undefined): string[] {
  const settings = [
    ...Object.keys(STRING_SETTING_FLAGS).map((name) => flags[name as StringSettingFlag]),
    ...Object.values(SETTINGS as Record<string, Setting>)
      .filter((setting) => setting.env && !setting.secret)
      .map((setting) => env[setting.env ?? '']),
    ...['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'].flatMap((name) => [env[name], env[name.toLowerCase()]]),
  ];
  const shaped = [
    ...settings.flatMap((value) => (value ? secretShapedTokens(value) : [])),
    // doctor prints this path: only a key by its prefix counts, so an ordinary file name stays.
    ...(env.NODE_EXTRA_CA_CERTS ? prefixedSecrets(env.NODE_EXTRA_CA_CERTS) : []),
  ];
  const secretSettings = Object.values(SETTINGS as Record<string, Setting>).filter(
    (setting) => setting.secret,
  );
  const found = [apiKey, ...secretSettings.map((setting) => env[setting.env ?? '']?.trim()), ...shaped];
  // Lowercased too: a key pasted where a host name belongs comes back lowercased by URL parsing.
  return secretValues([...found, ...found.map((value) => value?.toLowerCase())]);
}

/** `MODEL_FEED_DISK_CACHE`: 0/false/off turn the shared disk cache off; 1/true/on or unset keep it. */
function diskCacheSetting(env: Env, secrets: Secrets): boolean {
  const raw = envValue(env, ENV.diskCache);
  const value = raw?.toLowerCase();
  if (value === undefined || ['1', 'true', 'on', 'yes'].includes(value)) return true;
  if (['0', 'false', 'off', 'no'].includes(value)) return false;
  // The value as given, not lowercased: redaction matches the key exactly as configured.
  throw new ConfigError(
    `${ENV.diskCache} must be 0 (off) or 1 (on); got "${echoValue(raw ?? '', secrets)}".`,
    ENV.diskCache,
    '--no-disk-cache',
  );
}

/** `--source`, or `--sandbox` as its short form for `sample`; the two may not disagree. */
function sourceSetting(flags: ConfigFlags, source: Source | undefined, secrets: Secrets): SourceKind {
  const chosen = choiceSetting(source, DEFAULTS.source, SOURCES, ENV.source, '--source', secrets);
  if (flags.sandbox !== true) return chosen;
  if (source !== undefined && source.origin === '--source' && chosen !== 'sample') {
    throw new ConfigError(
      `--sandbox is --source sample, but --source ${chosen} was given too; keep one.`,
      ENV.source,
      '--source',
    );
  }
  return 'sample';
}

/**
 * A public origin's address: https anywhere, http only on loopback (a mirror on this machine), or
 * `off`. No key goes there, but the answers become the feed, so they must come from where they say.
 */
function originSetting(env: Env, name: PublicOriginName, secrets: Secrets): string | undefined {
  const { env: variable, url: fallback } = PUBLIC_ORIGINS[name];
  const value = envValue(env, variable);
  if (value === undefined) return fallback;
  if (value.toLowerCase() === 'off') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const plain = url !== undefined && url.protocol === 'http:' && !isLoopbackHost(url.hostname);
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:') || plain) {
    throw new ConfigError(
      `${variable} must be an https:// URL (http:// only for localhost), or off; got "${echoValue(value, secrets)}".`,
      variable,
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError(
      `${variable} must be a plain URL, without user info, query or fragment; e.g. ${fallback}.`,
      variable,
    );
  }
  return `${url.origin}${withoutTrailingSlashes(url.pathname)}`;
}

export interface ResolveOptions {
  /**
   * Who reads the settings messages: the MCP client's log (the server) or a person at a shell
   * (`call`, `doctor`, `watch`). It decides where they say to set a variable. @default 'client'
   */
  audience?: Audience;
}

export function resolveConfig(
  flags: ConfigFlags,
  env: Env,
  argv: readonly string[] = [],
  { audience = 'client' }: ResolveOptions = {},
): Config {
  const key = checkApiKey(env, audience);
  const secrets = collectSecrets(flags, env, key.apiKey);
  const sources: SettingSources = {};
  const from = (key: keyof SettingSources, source: Source | undefined): Source | undefined => {
    if (source) sources[key] = source.origin;
    return source;
  };
  const timeoutMs = integerSetting(
    from('timeout', pick(flags.timeout, '--timeout', env, ENV.timeout)),
    DEFAULTS.timeoutMs,
    SETTINGS.timeout.range,
    ENV.timeout,
    '--timeout',
    secrets,
  );
  const cacheTtlS = integerSetting(
    from('cacheTtl', pick(flags.cacheTtl, '--cache-ttl', env, ENV.cacheTtl)),
    DEFAULTS.cacheTtlS,
    SETTINGS.cacheTtl.range,
    ENV.cacheTtl,
    '--cache-ttl',
    secrets,
  );
  const logLevel = choiceSetting(
    from('logLevel', pick(flags.logLevel, '--log-level', env, ENV.logLevel)),
    DEFAULTS.logLevel,
    LOG_LEVELS,
    ENV.logLevel,
    '--log-level',
    secrets,
  );
  const logFormat = choiceSetting(
    from('logFormat', pick(flags.logFormat, '--log-format', env, ENV.logFormat)),
    DEFAULTS.logFormat,
    LOG_FORMATS,
    ENV.logFormat,
    '--log-format',
    secrets,
  );
  const watchIntervalSource = from(
    'watchInterval',
    pick(flags.watchInterval, '--watch-interval', env, ENV.watchInterval),
  );
  const watchIntervalS = watchIntervalSetting(watchIntervalSource, secrets);
  const envSource = (name: string): Source | undefined => {
    const value = envEitherCase(env, name);
    return value === undefined ? undefined : { value, origin: name };
  };
  const flagProxy = flags.proxy?.trim();
  const warnings: string[] = keyWhitespaceWarning(env, key.apiKey, audience);
  // A proxy variable set for other tools (a SOCKS proxy, say) must not stop this server: it is
  // ignored with a warning. A bad --proxy, given to this server on purpose, stops it.
  const envProxy = (name: string): string | undefined => {
    try {
      return proxySetting(envSource(name), name, '--proxy');
    } catch (error) {
      warnings.push(
        `${(error as ConfigError).message} It is ignored; requests go direct unless --proxy names an HTTP proxy.`,
      );
      return undefined;
    }
  };
  const proxy: ProxySettings = {
    flag: proxySetting(
      flagProxy ? { value: flagProxy, origin: '--proxy' } : undefined,
      'HTTPS_PROXY',
      '--proxy',
    ),
    https: envProxy('HTTPS_PROXY'),
    http: envProxy('HTTP_PROXY'),
    noProxy: envEitherCase(env, 'NO_PROXY'),
  };

  const staleMaxAgeS = integerSetting(
    pick(flags.staleMaxAge, '--stale-max-age', env, ENV.staleMaxAge),
    DEFAULTS.staleMaxAgeS,
    SETTINGS.staleMaxAge.range,
    ENV.staleMaxAge,
    '--stale-max-age',
    secrets,
  );
  const source = sourceSetting(
    flags,
    from('source', pick(flags.source, '--source', env, ENV.source)),
    secrets,
  );
  const sandbox = source === 'sample';
  // The public source's settings are checked where they are used: a stray one must not stop a
  // server that reads the service.
  const isPublic = source === 'public';
  const refreshS = isPublic
    ? integerSetting(
        from('refresh', pick(flags.refresh, '--refresh', env, ENV.refresh)),
        DEFAULTS.refreshS,
        SETTINGS.refresh.range,
        ENV.refresh,
        '--refresh',
        secrets,
      )
    : DEFAULTS.refreshS;
  const origin = (name: PublicOriginName) =>
    isPublic ? originSetting(env, name, secrets) : PUBLIC_ORIGINS[name].url;
  const publicOrigins = {
    openrouter: origin('openrouter'),
    modelsDev: origin('modelsDev'),
    huggingface: origin('huggingface'),
    deprecations: origin('deprecations'),
  };
  const baseUrlSource = from('baseUrl', pick(flags.baseUrl, '--base-url', env, ENV.baseUrl));
  const base = checkBaseUrl(baseUrlSource, key.apiKey, secrets, audience);
  const neither = !baseUrlSource && envValue(env, ENV.apiKey) === undefined;
  return Object.freeze({
    apiKey: key.apiKey,
    baseUrl: base.baseUrl,
    // The base URL is the first thing to fix: without it the key has nowhere to go.
    setupError: source !== 'service' ? undefined : neither ? nothingSet(audience) : (base.error ?? key.error),
    timeoutMs,
    cacheTtlS,
    diskCache: source === 'service' && flags.diskCache !== false && diskCacheSetting(env, secrets),
    cacheFolder: cacheFolder({ env, platform: process.platform, home: homeFolder() }),
    staleMaxAgeS,
    logLevel,
    logFormat,
    watchIntervalS,
    proxy: Object.freeze(proxy),
    extraCaCerts: envValue(env, 'NODE_EXTRA_CA_CERTS'),
    sandbox,
    source,
    refreshS,
    publicOrigins: Object.freeze(publicOrigins),
    stateFolder: stateFolder({ env, platform: process.platform, home: homeFolder() }),
    keyInArgv: argvHasKey(argv, key.apiKey),
    sources: Object.freeze(sources),
    warnings: Object.freeze(warnings),
    secrets: Object.freeze(secrets),
  });
}
