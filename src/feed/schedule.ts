/**
 * When to poll, as pure functions. By default a follower spends at most a quarter of the key's
 * daily limit, so the user's own tool calls keep the other three quarters. Every call counts, the
 * pages of a drain included: a drain borrows from the following intervals (see Pacer).
 */

export const DAY_S = 86_400;
/** Share of the daily limit a follower may spend by default. */
export const BUDGET_SHARE = 0.25;
/**
 * The tier is known only from the first answer's `x-ratelimit-limit`. Until then, and when the
 * service sends no such header, the free tier's 1,000 calls a day (service.md) are assumed: the
 * most careful guess.
 */
export const ASSUMED_DAILY_LIMIT = 1000;

/** The default interval: at most `BUDGET_SHARE` of the limit in a day. 1,000 → 346 s. */
export function defaultIntervalS(dailyLimit: number): number {
  return Math.max(1, Math.ceil(DAY_S / (dailyLimit * BUDGET_SHARE)));
}

/** The smallest interval that does not spend more than the whole daily limit. 1,000 → 87 s. */
export function smallestIntervalS(dailyLimit: number): number {
  return Math.max(1, Math.ceil(DAY_S / dailyLimit));
}

export interface Tier {
  /** Calls a day (`x-ratelimit-limit`); null when the service did not say. */
  limit: number | null;
  /** `x-service-tier`, e.g. `free`. */
  name: string | null;
}

export type IntervalChoice =
  | { ok: true; seconds: number; reason: string }
  | { ok: false; smallest: number; reason: string };

function describeTier(tier: Tier, limit: number): string {
  const name = tier.name ? `the ${tier.name} tier's` : 'the key’s';
  return tier.limit === null
    ? `the service sent no daily limit, so ${limit.toLocaleString('en-US')} calls a day are assumed`
    : `${name} ${limit.toLocaleString('en-US')} calls a day`;
}

/** The interval to poll at, and why: the user's, if the tier allows it, else the tier's default. */
export function chooseInterval(requestedS: number | undefined, tier: Tier): IntervalChoice {
  const limit = tier.limit !== null && tier.limit > 0 ? tier.limit : ASSUMED_DAILY_LIMIT;
  const pollsPerDay = (seconds: number) => Math.floor(DAY_S / seconds).toLocaleString('en-US');
  if (requestedS === undefined) {
    const seconds = defaultIntervalS(limit);
    return {
      ok: true,
      seconds,
      reason: `at most ${pollsPerDay(seconds)} polls a day, a quarter of ${describeTier(tier, limit)}`,
    };
  }
  const smallest = smallestIntervalS(limit);
  if (requestedS < smallest) {
    return {
      ok: false,
      smallest,
      reason: `--interval ${requestedS} would spend ${pollsPerDay(requestedS)} calls a day, more than ${describeTier(tier, limit)}`,
    };
  }
  return {
    ok: true,
    seconds: requestedS,
    reason: `--interval: up to ${pollsPerDay(requestedS)} polls a day of ${describeTier(tier, limit)}`,
  };
}

/**
 * Spacing of calls. Each call moves the earliest next poll one interval on, counted from when it
 * was made or from the previous earliest, whichever is later: a drain of five pages in a row is
 * followed by a wait of five intervals, so over any day the calls stay within one per interval
 * (plus the first).
 */
export class Pacer {
  private earliest: number;

  constructor(
    private intervalMs: number,
    start: number,
  ) {
    this.earliest = start;
  }

  /** Records calls made at `at` (ms). */
  spent(calls: number, at: number): void {
    if (calls > 0) this.earliest = Math.max(this.earliest, at) + calls * this.intervalMs;
  }

  /** When the next poll may go out (ms). */
  get nextAt(): number {
    return this.earliest;
  }

  get interval(): number {
    return this.intervalMs;
  }

  /** A new interval (once the tier is known) applies from the last call on. */
  setInterval(intervalMs: number): void {
    this.earliest += intervalMs - this.intervalMs;
    this.intervalMs = intervalMs;
  }
}

/** The outage backoff's ceiling, unless the polling interval is longer. */
export const OUTAGE_CEILING_MS = 300_000;

/**
 * Wait after the service failed `failures` times in a row: 2 s doubling to 5 minutes (or to the
 * polling interval, when that is longer), half of it random, so that an outage is ridden out
 * without hammering the service when it comes back, and a long one on a slow tier is retried
 * about as often as it would be polled. A failed call is not charged to the Pacer: this wait alone spaces the retries,
 * so a watcher started during an outage retries on this schedule even before the tier is known.
 */
export function outageDelayMs(failures: number, random: () => number, intervalMs = 0): number {
  const cap = Math.max(OUTAGE_CEILING_MS, intervalMs);
  const ceiling = Math.min(cap, 2000 * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
