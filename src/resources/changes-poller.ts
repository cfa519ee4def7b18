/**
 * The poller behind a subscription to `model-feed://changes`. It runs only while someone is
 * subscribed: nothing polls before the first subscription or after the last unsubscribe, and
 * every timer is unref'd, every request aborted on stop, so it never keeps the process alive.
 *
 * It follows the feed the way `watch` does (feed/): the first poll takes the newest change time
 * as its cursor, so only what comes after the subscription counts; the interval comes from the
 * tier's budget (a quarter of the daily limit) unless `--watch-interval` says otherwise; a 429
 * waits until `retry-after`, and an outage backs off. Each poll asks only for the newest change
 * time (one item): a subscriber needs to know that the resource changed, not each change, and
 * asking for the head never lags behind a backlog.
 */

import { sleep } from '../api/abort.js';
import type { FeedApi } from '../api/client.js';
import { describeError } from '../describe-error.js';
import { AuthError, ConfigError, ForbiddenError, RateLimitError } from '../errors.js';
import { newestChangeTime } from '../feed/follower.js';
import {
  ASSUMED_DAILY_LIMIT,
  chooseInterval,
  defaultIntervalS,
  outageDelayMs,
  Pacer,
} from '../feed/schedule.js';
import type { Logger } from '../log.js';

export interface ChangesPollerOptions {
  api: Pick<FeedApi, 'readChanges' | 'rateLimit'>;
  log: Logger;
  /** `--watch-interval` / MODEL_FEED_WATCH_INTERVAL_S; undefined: from the tier. */
  intervalS: number | undefined;
  /** New changes arrived. Called at most once per poll. */
  onChange(): void;
  now?: () => number;
  random?: () => number;
  /** Resolves after `ms`, rejects when the signal aborts. @default an unref'd timer */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Errors after which polling again cannot help: the key or the setup must change first. */
function isFatal(error: unknown): boolean {
  return error instanceof AuthError || error instanceof ForbiddenError || error instanceof ConfigError;
}

/** A poll is never a reason to keep the process up. */
const sleepUnref = (ms: number, signal: AbortSignal) => sleep(ms, signal, { unref: true });

export class ChangesPoller {
  private controller: AbortController | undefined;
  private first: Promise<Error | undefined> | undefined;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly options: ChangesPollerOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? sleepUnref;
  }

  get running(): boolean {
    return this.controller !== undefined;
  }

  /**
   * Starts polling unless it already runs. Resolves once the first poll has settled: with the
   * error that stopped polling at once (no key, a rejected key), else undefined, also when the
   * first poll met an outage it will ride out.
   */
  start(): Promise<Error | undefined> {
    if (this.controller && this.first) return this.first;
    const controller = new AbortController();
    this.controller = controller;
    let settle: (error: Error | undefined) => void = () => {};
    this.first = new Promise((resolve) => {
      settle = resolve;
    });
    void this.loop(controller.signal, (error) => settle(error)).finally(() => {
      settle(undefined);
      if (this.controller === controller) {
        this.controller = undefined;
        this.first = undefined;
      }
    });
    return this.first;
  }

  /** Stops polling now: the timer is cleared and a request in flight is aborted. */
  stop(): void {
    this.controller?.abort();
    this.controller = undefined;
    this.first = undefined;
  }

  private async loop(signal: AbortSignal, settled: (error: Error | undefined) => void): Promise<void> {
    const { api, log } = this.options;
    // Until the first answer tells the tier, the free tier's budget is assumed (feed/schedule.ts).
    const pacer = new Pacer(defaultIntervalS(ASSUMED_DAILY_LIMIT) * 1000, this.now());
    let cursor: number | undefined;
    let failures = 0;
    let intervalKnown = false;
    for (;;) {
      const at = this.now();
      let waitUntil = 0;
      let failed: unknown;
      try {
        const latest = await newestChangeTime(api, {}, signal);
        // Any move of the head changes the resource, also one backwards (a feed that was reset).
        // The cursor moves first: a notification that throws must not make this poll an outage.
        const changed = cursor !== undefined && latest !== cursor;
        cursor = latest;
        if (changed) this.options.onChange();
        failures = 0;
        settled(undefined);
      } catch (error) {
        if (signal.aborted) return;
        if (isFatal(error)) {
          log.warn(`resource subscription: polling stopped: ${describeError(error)}`);
          settled(error as Error);
          return;
        }
        settled(undefined);
        if (error instanceof RateLimitError && error.retryAt !== undefined) {
          // Nothing goes out before the service said it may. Not an outage: no backoff grows.
          waitUntil = error.retryAt;
          log.warn(
            `resource subscription: rate limited; polling resumes at ${new Date(waitUntil).toISOString()}`,
          );
        } else {
          failures++;
          failed = error;
        }
      }
      // A failed call is not charged to the budget: the outage backoff alone spaces the retries, so
      // a poller started during an outage does not wait out the assumed free tier's interval
      // (feed/schedule.ts, as the watcher does).
      if (failed === undefined) pacer.spent(1, at);
      if (!intervalKnown && api.rateLimit !== undefined) {
        intervalKnown = true;
        pacer.setInterval(this.interval(api.rateLimit) * 1000);
      }
      if (failed !== undefined) {
        waitUntil = this.now() + outageDelayMs(failures, this.random, pacer.interval);
        // The wait is worked out before it is announced, so the log says the real one.
        log.warn(
          `resource subscription: polling failed (${failures} in a row): ${describeError(failed)} Retrying in ${Math.ceil((Math.max(pacer.nextAt, waitUntil) - this.now()) / 1000)} s.`,
        );
      }
      try {
        await this.sleep(Math.max(0, Math.max(pacer.nextAt, waitUntil) - this.now()), signal);
      } catch {
        return;
      }
    }
  }

  /** The interval once the tier is known: the override if the tier allows it, else its smallest. */
  private interval(rateLimit: NonNullable<FeedApi['rateLimit']>): number {
    const { log, intervalS } = this.options;
    const choice = chooseInterval(intervalS, { limit: rateLimit.limit, name: rateLimit.tier });
    if (!choice.ok) {
      log.warn(
        `resource subscription: --watch-interval ${intervalS} is more often than the tier allows (${choice.reason.replace('--interval', '--watch-interval')}); polling every ${choice.smallest} s instead.`,
      );
      return choice.smallest;
    }
    const why = intervalS === undefined ? choice.reason : `--watch-interval ${intervalS}`;
    log.info(`resource subscription: polling every ${choice.seconds} s (${why})`);
    return choice.seconds;
  }
}
