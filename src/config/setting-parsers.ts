/**
 * How a setting's raw text becomes its value: whole numbers in a range, one of a few words, a proxy
 * URL. A value that does not parse is a ConfigError naming where it was set, quoting it only
 * through `echoValue`.
 */

import { ConfigError } from '../errors.js';
import { echoValue } from '../text/redact.js';
import { ENV, type Secrets, type Source } from './setting-source.js';
import { SETTINGS, type WholeNumberRange } from './settings-table.js';

export function integerSetting(
  source: Source | undefined,
  fallback: number,
  { min, max, unit }: WholeNumberRange,
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
export function watchIntervalSetting(source: Source | undefined, secrets: Secrets): number | undefined {
  if (!source) return undefined;
  const { min, max } = SETTINGS.watchInterval.range;
  const n = /^\d+$/.test(source.value) ? Number(source.value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new ConfigError(
      `${source.origin} must be a whole number of seconds from ${min} to ${max} (the poll interval for resource subscriptions, set by --watch-interval or ${ENV.watchInterval}); got "${echoValue(source.value, secrets)}".`,
      ENV.watchInterval,
      '--watch-interval',
    );
  }
  return n;
}

export function choiceSetting<T extends string>(
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

export function proxySetting(source: Source | undefined, setting: string, flag: string): string | undefined {
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
