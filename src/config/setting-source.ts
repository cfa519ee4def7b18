/**
 * Where a setting's value comes from: a flag or an environment variable, with the name a message
 * uses for it. Shared by the configuration and the key and base-URL checks.
 */

/** Every environment variable this package reads for its own settings. */
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

export type Env = Readonly<Record<string, string | undefined>>;

/** An env var's value, trimmed; empty counts as unset. */
export function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** Either spelling of a conventional variable such as HTTPS_PROXY / https_proxy (upper case wins). */
export function envEitherCase(env: Env, name: string): string | undefined {
  return envValue(env, name) ?? envValue(env, name.toLowerCase());
}

export interface Source {
  value: string;
  /** How the message names where the value came from. */
  origin: string;
}

/** The values a message may not print, known before any setting is checked. */
export type Secrets = readonly string[];

/** The flag's value if given, else the env var's: flags win. */
export function pick(
  flag: string | undefined,
  flagName: string,
  env: Env,
  envName: string,
): Source | undefined {
  const fromFlag = flag?.trim();
  if (fromFlag) return { value: fromFlag, origin: flagName };
  const fromEnv = envValue(env, envName);
  return fromEnv === undefined ? undefined : { value: fromEnv, origin: envName };
}
