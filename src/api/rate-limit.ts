/** Pure helpers for the service's rate-limit headers and `retry-after`. */

export interface RateLimitInfo {
  /** Daily limit of the caller's tier (`x-ratelimit-limit`). */
  limit: number | null;
  /** Calls left today (`x-ratelimit-remaining`). */
  remaining: number | null;
  /** `free`, `pro`, or whatever the service names (`x-service-tier`). */
  tier: string | null;
  /** When the headers were read, ISO 8601: cached answers report the state as last seen. */
  observedAt: string;
}

interface HeaderSource {
  get(name: string): string | null;
}

function integerHeader(headers: HeaderSource, name: string): number | null {
  const raw = headers.get(name)?.trim();
  if (!raw || !/^\d+$/.test(raw)) return null;
  return Number(raw);
}

/** Reads the three rate-limit headers; undefined when the response carries none of them. */
export function readRateLimit(headers: HeaderSource, now: number): RateLimitInfo | undefined {
  const limit = integerHeader(headers, 'x-ratelimit-limit');
  const remaining = integerHeader(headers, 'x-ratelimit-remaining');
  const tier = headers.get('x-service-tier')?.trim() || null;
  if (limit === null && remaining === null && tier === null) return undefined;
  return { limit, remaining, tier, observedAt: new Date(now).toISOString() };
}

/**
 * A 429's `retry-after` wait would be absurd beyond a day and a little (the daily limit resets at
 * midnight), so a larger value is capped rather than trusted.
 */
export const MAX_RETRY_AFTER_S = 26 * 60 * 60;

/** `retry-after` as whole seconds from now: delta-seconds or an HTTP date; undefined if unusable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const raw = value?.trim();
  if (!raw) return undefined;
  let seconds: number;
  if (/^\d+$/.test(raw)) {
    seconds = Number(raw);
  } else {
    const at = Date.parse(raw);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - now) / 1000);
  }
  return Math.min(Math.max(seconds, 1), MAX_RETRY_AFTER_S);
}

/** True when fewer than 5% of the day's calls remain: the text rendering then says so. */
export function isRunningLow(info: RateLimitInfo | undefined): boolean {
  if (!info || info.limit === null || info.remaining === null || info.limit <= 0) return false;
  return info.remaining < info.limit * 0.05;
}
