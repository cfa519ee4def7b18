/**
 * The one typed configuration, built once at the edge from flags > env > defaults. Nothing else
 * in the package reads `process.env`. A problem with the key or the base URL does not stop the
 * server (it must still list its tools): it is kept in `setupError` and every tool call reports it.
 * Any other invalid value throws a ConfigError, which the CLI prints as one line.
 *
 * A value is quoted back in a message only through `echoValue`: people paste keys into the wrong
 * variable, and the message must not print the key it was handed.
 */

import { type Audience, whereToSet } from './audience.js';
import { ConfigError } from './errors.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './log-options.js';
import { isLoopbackHost } from './net/loopback.js';
import { cacheFolder, homeFolder, stateFolder } from './store/paths.js';
import { withoutTrailingSlashes } from './text/key-shapes.js';
import {
  echoHost,
  echoUrl,
  echoUrlPath,
  echoValue,
  prefixedSecrets,
  secretShapedTokens,
  secretValues,
} from './text/redact.js';

// The settings' own vocabulary, for those who validate or document them.
export { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel };

export const ENV = {
  apiKey: 'MODEL_FEED_API_KEY',
  baseUrl: 'MODEL_FEED_BASE_URL',
  timeout: 'MODEL_FEED_TIMEOUT_MS',
  cacheTtl: 'MODEL_FEED_CACHE_TTL_S',
  logLevel: 'MODEL_FEED_LOG_LEVEL',
  logFormat: 'MODEL_FEED_LOG_FORMAT',
  diskCache: 'MODEL_FEED_DISK_CACHE',
  staleMaxAge: 'MODEL_FEED_STALE_MAX_AGE_S',
  watchInterval: 'MODEL_FEED_WATCH_INTERVAL_S',
  source: 'MODEL_FEED_SOURCE',
  refresh: 'MODEL_FEED_REFRESH_S',
  openrouterUrl: 'MODEL_FEED_OPENROUTER_URL',
  modelsDevUrl: 'MODEL_FEED_MODELS_DEV_URL',
  huggingfaceUrl: 'MODEL_FEED_HUGGINGFACE_URL',
  deprecationsUrl: 'MODEL_FEED_DEPRECATIONS_URL',
} as const;

/** Where answers come from: the hosted service, the public origins recorded here, or sample data. */
export const SOURCES = ['service', 'public', 'sample'] as const;
export type SourceKind = (typeof SOURCES)[number];

/** The public origins by name, with their default addresses (runner.md). */
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

type Env = Readonly<Record<string, string | undefined>>;

/** An env var's value, trimmed; empty counts as unset. */
function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** Either spelling of a conventional variable such as HTTPS_PROXY / https_proxy (upper case wins). */
function envEitherCase(env: Env, name: string): string | undefined {
  return envValue(env, name) ?? envValue(env, name.toLowerCase());
}

interface Source {
  value: string;
  /** How the message names where the value came from. */
  origin: string;
}

/** The values a message may not print, known before any setting is checked. */
type Secrets = readonly string[];

function pick(flag: string | undefined, flagName: string, env: Env, envName: string): Source | undefined {
  const fromFlag = flag?.trim();
  if (fromFlag) return { value: fromFlag, origin: flagName };
  const fromEnv = envValue(env, envName);
  return fromEnv === undefined ? undefined : { value: fromEnv, origin: envName };
}

function integerSetting(
  source: Source | undefined,
  fallback: number,
  { min, max, unit }: { min: number; max: number; unit: string },
  setting: string,
  flag: string,
  secrets: Secrets,
): number {
  if (!source) return fallback;
  const n = /^\d+$/.test(source.value) ? Number(source.value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(
      `${source.origin} must be a whole number of ${unit} from ${min} to ${max}; got "${echoValue(source.value, secrets)}".`,
      setting,
      flag,
    );
  }
  return n;
}

/** Seconds between subscription polls, or undefined: the tier decides. The message names both ways to set it. */
function watchIntervalSetting(source: Source | undefined, secrets: Secrets): number | undefined {
  if (!source) return undefined;
  const n = /^\d+$/.test(source.value) ? Number(source.value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 86_400) {
    throw new ConfigError(
      `${source.origin} must be a whole number of seconds from 1 to 86400 (the poll interval for resource subscriptions, set by --watch-interval or ${ENV.watchInterval}); got "${echoValue(source.value, secrets)}".`,
      ENV.watchInterval,
      '--watch-interval',
    );
  }
  return n;
}

function choiceSetting<T extends string>(
  source: Source | undefined,
  fallback: T,
  choices: readonly T[],
  setting: string,
  flag: string,
  secrets: Secrets,
): T {
  if (!source) return fallback;
  const value = source.value.toLowerCase() as T;
  if (!choices.includes(value)) {
    throw new ConfigError(
      `${source.origin} must be one of ${choices.join(', ')}; got "${echoValue(source.value, secrets)}".`,
      setting,
      flag,
    );
  }
  return value;
}

function proxySetting(source: Source | undefined, setting: string, flag: string): string | undefined {
  if (!source) return undefined;
  // A bare host:port is common in proxy variables; curl and undici read it as http://host:port.
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(source.value) ? source.value : `http://${source.value}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not echoed at all: a value that does not parse cannot be trusted to show where a password is.
    throw new ConfigError(
      `${source.origin} is not a valid proxy URL (its value is not shown: it may hold a password). Use http://host:port or http://user:password@host:port, with any special character in the password percent-encoded (@ as %40, / as %2F).`,
      setting,
      flag,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `${source.origin} must be an http:// or https:// proxy; got ${url.protocol}// (SOCKS is not supported).`,
      setting,
      flag,
    );
  }
  // A proxy URL has no path. One here most often means a password with a `/` in it, which the URL
  // parser read as the end of the host: the proxy would be the wrong host, so the value is refused.
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new ConfigError(
      `${source.origin} is not a valid proxy URL (its value is not shown: it may hold a password): a proxy URL is scheme://[user:password@]host:port, without a path. Percent-encode any special character in the password (@ as %40, / as %2F).`,
      setting,
      flag,
    );
  }
  return raw;
}

const KEY_EXAMPLE = `${ENV.apiKey}=<your key>`;
const BASE_URL_EXAMPLE = `${ENV.baseUrl}=https://<service host>`;
const KEY_VAR = [ENV.apiKey, '<your key>'] as const;
const BASE_URL_VAR = [ENV.baseUrl, 'https://<service host>'] as const;
const CREATE_KEY = "Create a key on the service's account screen; it is shown only once.";
/** The ways on without an account, where the key or base URL is missing. */
export const NO_ACCOUNT = {
  shell:
    'No account? Add --source public (real data from the public origins, no key) or --sandbox (sample data).',
  client:
    'No account? Put "--source", "public" in this server\'s "args" for real data from the public origins with no key, or "--sandbox" for sample data.',
} as const;

/** Straight and typographic quotes: a key copied out of a document or a shell line brings them along. */
const QUOTE = /^["'`\u2018\u2019\u201c\u201d]|["'`\u2018\u2019\u201c\u201d]$/;
/** Invisible characters that trim() keeps: zero-width spaces and joiners, from pasting out of a page. */
const INVISIBLE_EDGE = /^[\p{Cf}]|[\p{Cf}]$/u;

function checkApiKey(env: Env, audience: Audience): { apiKey?: string; error?: ConfigError } {
  let key = envValue(env, ENV.apiKey);
  if (key === undefined) {
    const where =
      audience === 'shell'
        ? `in this shell (export ${KEY_EXAMPLE})`
        : `in the MCP client's "env" for this server (e.g. ${KEY_EXAMPLE})`;
    return {
      error: new ConfigError(
        `No API key: set ${ENV.apiKey} ${where}. ${CREATE_KEY} ${NO_ACCOUNT[audience]}`,
        ENV.apiKey,
      ),
    };
  }
  // Not a wrong key, so not "create a new one": the value around the key is what to fix.
  if (QUOTE.test(key)) {
    const fix =
      audience === 'shell'
        ? `export ${KEY_EXAMPLE}, with no quotes inside the value`
        : `"${ENV.apiKey}": "<your key>" in the client's "env", the JSON quotes only`;
    return {
      error: new ConfigError(
        `${ENV.apiKey} is wrapped in literal quotes, which the service would take as part of the key. Set the key alone: ${fix}.`,
        ENV.apiKey,
      ),
    };
  }
  if (INVISIBLE_EDGE.test(key)) {
    return {
      error: new ConfigError(
        `${ENV.apiKey} has invisible characters (zero-width spaces) around the key, which the service would take as part of it. Type or paste the key again without them.`,
        ENV.apiKey,
      ),
    };
  }
  // People paste the whole header value; the scheme is added by the client.
  key = key.replace(/^bearer\s+/i, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(key)) {
    return {
      error: new ConfigError(
        `${ENV.apiKey} holds a URL, not a key: ${ENV.apiKey} and ${ENV.baseUrl} look swapped. Put the key from the service's account screen in ${ENV.apiKey} and the service's base URL in ${ENV.baseUrl}.`,
        ENV.apiKey,
      ),
    };
  }
  if (/[\s\p{Cc}]/u.test(key)) {
    return {
      error: new ConfigError(
        `${ENV.apiKey} contains spaces or control characters; paste the key exactly as the account screen showed it.`,
        ENV.apiKey,
      ),
    };
  }
  return { apiKey: key };
}

/**
 * Spaces or a line break around an otherwise good key are removed, so the key works; but the value
 * was not what the user meant to set, and another tool reading the same variable may not trim it.
 * Said once at start, like the other ignored settings; the key itself is never quoted.
 */
function keyWhitespaceWarning(env: Env, apiKey: string | undefined, audience: Audience): string[] {
  const raw = env[ENV.apiKey];
  if (apiKey === undefined || raw === undefined || raw === raw.trim()) return [];
  const where =
    audience === 'shell'
      ? `export ${KEY_EXAMPLE} with nothing around the key`
      : `"${ENV.apiKey}": "<your key>" in the MCP client's "env", with nothing around the key`;
  return [
    `${ENV.apiKey} had spaces or line breaks around the key; they were removed and the key is used without them. Set it as ${where}.`,
  ];
}

/** Neither setting: one message that names both, since fixing one would only reveal the other. */
function nothingSet(audience: Audience): ConfigError {
  return new ConfigError(
    `No service address and no API key: set ${ENV.baseUrl} and ${ENV.apiKey} ${whereToSet(audience, [BASE_URL_VAR, KEY_VAR])}. The base URL comes with your account; create a key on the service's account screen (it is shown only once). ${NO_ACCOUNT[audience]}`,
    ENV.baseUrl,
    '--base-url',
  );
}

function checkBaseUrl(
  source: Source | undefined,
  apiKey: string | undefined,
  secrets: Secrets,
  audience: Audience,
): { baseUrl?: string; error?: ConfigError } {
  if (!source) {
    const example = audience === 'shell' ? `export ${BASE_URL_EXAMPLE}` : BASE_URL_EXAMPLE;
    return {
      error: new ConfigError(
        `No service address: set ${ENV.baseUrl} (or --base-url) to the service's base URL, e.g. ${example}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  // Every request line would carry it, to the service's logs and any proxy's.
  if (apiKey !== undefined && apiKey.length >= 6 && source.value.includes(apiKey)) {
    return {
      error: new ConfigError(
        `${source.origin} contains the API key. The key belongs only in ${ENV.apiKey}; set ${source.origin} to the service's base URL alone, e.g. ${BASE_URL_EXAMPLE}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  let url: URL;
  try {
    url = new URL(source.value);
  } catch {
    if (secretShapedTokens(source.value).length) {
      return {
        error: new ConfigError(
          `${source.origin} holds what looks like an API key, not a URL (not shown). Put the key in ${ENV.apiKey} and the service's base URL in ${ENV.baseUrl}, e.g. ${BASE_URL_EXAMPLE}.`,
          ENV.baseUrl,
          '--base-url',
        ),
      };
    }
    return {
      error: new ConfigError(
        `${source.origin} is not a URL: "${echoValue(source.value, secrets)}". Use the service's base URL, e.g. ${BASE_URL_EXAMPLE}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  // The path is part of what is wrong in these messages: shown, with any part that may be a key hidden.
  const shownUrl = (text: string): string =>
    echoUrl(text, secrets, { path: true }) ?? echoValue(text, secrets);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return {
      error: new ConfigError(
        `${source.origin} must start with https://; got ${url.protocol}//.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      error: new ConfigError(
        `${source.origin} uses plain http:// for ${echoHost(url.hostname, secrets)}, which would send the API key in clear text. Use ${shownUrl(`https://${url.host}${url.pathname}`)} (plain http is allowed only for localhost, 127.0.0.0/8 and ::1).`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  if (url.username || url.password || url.search || url.hash) {
    return {
      error: new ConfigError(
        `${source.origin} must be a plain base URL, without user info, query or fragment; e.g. ${BASE_URL_EXAMPLE}.`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  const path = withoutTrailingSlashes(url.pathname);
  // The hosted tool endpoint's URL, or a REST path, pasted where the base URL belongs: every
  // request would then 404. Say so now, with the base URL it most likely means.
  const endpoint = /\/api\/(mcp|v1)(\/.*)?$/.exec(path);
  if (endpoint) {
    const base = `${url.origin}${path.slice(0, endpoint.index)}`;
    return {
      error: new ConfigError(
        `${source.origin} points at ${echoUrlPath(endpoint[0], secrets)}, an endpoint of the service, not its base URL. Use ${shownUrl(base)} (model-feed-mcp adds /api/v1/…; /api/mcp is the hosted tool endpoint, for clients that connect to it directly).`,
        ENV.baseUrl,
        '--base-url',
      ),
    };
  }
  return { baseUrl: `${url.origin}${path}` };
}

/** Looks for the key in argv: doctor warns, because argv shows in process lists and configs. */
function argvHasKey(argv: readonly string[], apiKey: string | undefined): boolean {
  return argv.some(
    (arg) => /MODEL_FEED_API_KEY|--api-key/i.test(arg) || (apiKey !== undefined && arg.includes(apiKey)),
  );
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
 * The key, as given and as used, plus every credential-shaped token in any setting this runner
 * reads: all known before a single message is composed. Only settings: a command's own arguments
 * (call's tool arguments, watch's paths) are data, and a model id shaped like a key must not be
 * hidden in the answers about it.
 */
function collectSecrets(flags: ConfigFlags, env: Env, apiKey: string | undefined): string[] {
  const settings = [
    ...Object.keys(STRING_SETTING_FLAGS).map((name) => flags[name as StringSettingFlag]),
    ...Object.values(ENV)
      .filter((name) => name !== ENV.apiKey)
      .map((name) => env[name]),
    ...['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'].flatMap((name) => [env[name], env[name.toLowerCase()]]),
  ];
  const shaped = [
    ...settings.flatMap((value) => (value ? secretShapedTokens(value) : [])),
    // doctor prints this path: only a key by its prefix counts, so an ordinary file name stays.
    ...(env.NODE_EXTRA_CA_CERTS ? prefixedSecrets(env.NODE_EXTRA_CA_CERTS) : []),
  ];
  const found = [apiKey, env[ENV.apiKey]?.trim(), ...shaped];
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
    { min: 1, max: 600_000, unit: 'milliseconds' },
    ENV.timeout,
    '--timeout',
    secrets,
  );
  const cacheTtlS = integerSetting(
    from('cacheTtl', pick(flags.cacheTtl, '--cache-ttl', env, ENV.cacheTtl)),
    DEFAULTS.cacheTtlS,
    { min: 0, max: 86_400, unit: 'seconds' },
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
    { min: 0, max: 365 * 86_400, unit: 'seconds' },
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
        { min: 0, max: 30 * 86_400, unit: 'seconds' },
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
