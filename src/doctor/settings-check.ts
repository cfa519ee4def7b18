/**
 * The Settings check: every setting with where it came from, the key only as a masked fingerprint.
 * A missing or unusable key or base URL fails with the same text every tool call would give.
 */

import { type Config, type ConfigFlags, ENV } from '../config.js';
import { describeError } from '../describe-error.js';
import { type Check, check } from './check.js';
import { maskKey } from './mask-key.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface SettingsFacts {
  config: Config;
  /** The raw flags, to tell a flag from an env var (resolveConfig does not record which won). */
  flags: ConfigFlags;
  env: Env;
  /** Base URL of the in-process sandbox, when `--sandbox` is on. */
  sandboxUrl: string | undefined;
}

/** Which flag or env var a setting came from, by the rule resolveConfig applies; undefined = default. */
export function settingOrigin(
  flag: string | undefined,
  flagName: string,
  env: Env,
  envName: string,
): string | undefined {
  if (flag?.trim()) return flagName;
  if (env[envName]?.trim()) return envName;
  return undefined;
}

function from(origin: string | undefined): string {
  return origin ? `from ${origin}` : '(default)';
}

function describeKey({ config, env, sandboxUrl }: SettingsFacts): string {
  if (sandboxUrl) return "API key: the sandbox's own";
  if (config.apiKey) return `API key ${maskKey(config.apiKey)} from ${ENV.apiKey}`;
  return env[ENV.apiKey]?.trim() ? `API key from ${ENV.apiKey} not usable` : 'API key not set';
}

function describeBaseUrl({ config, flags, env, sandboxUrl }: SettingsFacts): string {
  if (sandboxUrl) return `base URL ${sandboxUrl} (the sandbox's)`;
  const origin = settingOrigin(flags.baseUrl, '--base-url', env, ENV.baseUrl);
  if (config.baseUrl) return `base URL ${config.baseUrl} ${from(origin)}`;
  return origin ? `base URL from ${origin} refused` : 'base URL not set';
}

const KEY_IN_ARGV_FIX = `Remove the key from the command line (the client config's "args"): arguments show in process lists and shared config files. Put it in the "env" block as ${ENV.apiKey} instead.`;

export function checkSettings(facts: SettingsFacts): Check {
  const { config, flags, env } = facts;
  const parts = [
    ...(facts.sandboxUrl ? ['--sandbox: sample data from an in-process sandbox'] : []),
    describeKey(facts),
    describeBaseUrl(facts),
    `timeout ${config.timeoutMs} ms ${from(settingOrigin(flags.timeout, '--timeout', env, ENV.timeout))}`,
    `cache TTL ${config.cacheTtlS} s ${from(settingOrigin(flags.cacheTtl, '--cache-ttl', env, ENV.cacheTtl))}`,
    `log level ${config.logLevel} ${from(settingOrigin(flags.logLevel, '--log-level', env, ENV.logLevel))}`,
  ];
  if (config.keyInArgv) parts.push('WARNING: the API key appears in the command-line arguments');
  const detail = parts.join('; ');
  if (config.setupError) {
    const fix = describeError(config.setupError);
    return check('settings', {
      status: 'fail',
      detail,
      fix: config.keyInArgv ? `${fix} ${KEY_IN_ARGV_FIX}` : fix,
    });
  }
  if (config.keyInArgv) return check('settings', { status: 'warn', detail, fix: KEY_IN_ARGV_FIX });
  return check('settings', { status: 'pass', detail });
}
