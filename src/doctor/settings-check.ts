/**
 * The Settings check: every setting with where it came from, the key only as a masked fingerprint.
 * A missing or unusable key or base URL fails with the same text every tool call would give.
 */

import { type Config, ENV } from '../config.js';
import { describeError } from '../describe-error.js';
import { type Check, check } from './check.js';
import { maskKey } from './mask-key.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface SettingsFacts {
  config: Config;
  env: Env;
  /** Base URL of the in-process sandbox, when `--sandbox` is on. */
  sandboxUrl: string | undefined;
  /** The ways on without an account have a line of their own: the fix does not repeat them. */
  noAccountApart?: boolean;
}

function from(origin: string | undefined): string {
  return origin ? `from ${origin}` : '(default)';
}

function describeKey({ config, env, sandboxUrl }: SettingsFacts): string {
  if (sandboxUrl) return "API key: the sandbox's own";
  if (config.apiKey) return `API key ${maskKey(config.apiKey)} from ${ENV.apiKey}`;
  return env[ENV.apiKey]?.trim() ? `API key from ${ENV.apiKey} not usable` : 'API key not set';
}

function describeBaseUrl({ config, sandboxUrl }: SettingsFacts): string {
  if (sandboxUrl) return `base URL ${sandboxUrl} (the sandbox's)`;
  const origin = config.sources.baseUrl;
  if (config.baseUrl) return `base URL ${config.baseUrl} ${from(origin)}`;
  return origin ? `base URL from ${origin} refused` : 'base URL not set';
}

const KEY_IN_ARGV_FIX = `Remove the key from the command line (and from the client config's "args" if it came from there): arguments show in process lists and shared config files. Set it in the environment instead: export ${ENV.apiKey}=<your key> in this shell, and "${ENV.apiKey}" in the client's "env" for the server.`;

export function checkSettings(facts: SettingsFacts): Check {
  const { config } = facts;
  const parts = [
    ...(facts.sandboxUrl ? ['--sandbox: sample data from an in-process sandbox'] : []),
    describeKey(facts),
    describeBaseUrl(facts),
    `timeout ${config.timeoutMs} ms ${from(config.sources.timeout)}`,
    `cache TTL ${config.cacheTtlS} s ${from(config.sources.cacheTtl)}`,
    `log level ${config.logLevel} ${from(config.sources.logLevel)}`,
  ];
  if (config.keyInArgv) parts.push('WARNING: the API key appears in the command-line arguments');
  for (const warning of config.warnings) parts.push(`WARNING: ${warning}`);
  const detail = parts.join('; ');
  if (config.setupError) {
    const fix = facts.noAccountApart ? config.setupError.mistake : describeError(config.setupError);
    return check('settings', {
      status: 'fail',
      detail,
      fix: config.keyInArgv ? `${fix} ${KEY_IN_ARGV_FIX}` : fix,
    });
  }
  if (config.keyInArgv) return check('settings', { status: 'warn', detail, fix: KEY_IN_ARGV_FIX });
  if (config.warnings.length) return check('settings', { status: 'warn', detail });
  return check('settings', { status: 'pass', detail });
}
