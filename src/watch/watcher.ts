/**
 * The watch loop: drain the feed from the saved cursor into the sink, save the cursor after each
 * accepted page, wait for the next poll within the tier's budget, ride out outages and 429s.
 * Everything with a clock or a socket is injected, so tests can run a day of polls in a moment.
 */

import type { FeedApi } from '../api/client.js';
import type { ChangeEvent } from '../api/schemas.js';
import { describeError } from '../describe-error.js';
import {
  AuthError,
  ConfigError,
  DeliveryError,
  FeedContractError,
  FileSystemError,
  ForbiddenError,
  RateLimitError,
  UnreadableChangeError,
} from '../errors.js';
import { createDelivery } from '../feed/envelope.js';
import { drainFeed, type FeedPage, newestChangeTime, type SkippedChange } from '../feed/follower.js';
import {
  ASSUMED_DAILY_LIMIT,
  chooseInterval,
  defaultIntervalS,
  outageDelayMs,
  Pacer,
} from '../feed/schedule.js';
import type { Logger } from '../log.js';
import { withRetries } from './deliver.js';
import { DeliveredMemory, markDelivery } from './news.js';
import type { WatchOptions } from './options.js';
import type { Sink } from './sinks/sink.js';
import {
  backUpState,
  readState,
  StateFileError,
  saveState,
  stateMismatch,
  type WatchState,
  withSkip,
} from './state.js';
import type { StatusLine } from './status.js';

export interface WatcherDeps {
  api: FeedApi;
  sink: Sink;
  log: Logger;
  status: StatusLine;
  /**
   * The state file. Undefined: the cursor is kept in this process only, neither read nor saved
   * (`--sandbox`: each in-process sandbox is new, so no earlier run's cursor fits it).
   */
  statePath: string | undefined;
  /** Where the state path came from, for a message's fix. @default "--state" */
  stateSetting?: string;
  /** The base URL as stored in the state file (no credentials). */
  service: string;
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  random(): number;
  /** Throws unless this process still holds the state file's lock: asked before every save. */
  checkLock?(): Promise<void>;
  /**
   * `--uses`: whether a change concerns the code; the others are passed over, counted, and the
   * cursor moves past them all the same. Absent: every change is delivered.
   */
  concerns?(event: ChangeEvent): boolean;
  /**
   * Told when a page's deliveries start and end: what a stop abandons, if anything, is what it
   * says (a person pressing Ctrl-C between polls abandons nothing).
   */
  onDelivering?(delivering: boolean): void;
}

export interface WatchResult {
  /** 0 done or stopped, 1 a delivery or the service failed, 2 invalid flags. */
  code: 0 | 1 | 2;
  /** Why it ended, for stderr, when not 0. */
  message?: string;
}

/** "3 new changes", or "3 changes" when some of them are updates, which are not new. */
function changeCount(changes: number, updates: number): string {
  return `${changes} ${updates === 0 ? 'new ' : ''}${changes === 1 ? 'change' : 'changes'}`;
}

/** "1 of them an update of a change delivered before", for log lines that count deliveries. */
function updateCount(updates: number): string {
  return updates === 1
    ? '1 of them an update of a change delivered before'
    : `${updates} of them updates of changes delivered before`;
}

function failed(error: unknown): WatchResult {
  return { code: 1, message: describeError(error, 'shell') };
}

/** Errors after which polling again cannot help: the user must act. */
function isFatal(error: unknown): boolean {
  return (
    error instanceof DeliveryError ||
    error instanceof AuthError ||
    error instanceof ForbiddenError ||
    error instanceof StateFileError ||
    // A full disk may free up, but the cursor cannot wait on it: the next run starts from it.
    error instanceof FileSystemError ||
    // A broken `latest` or an unreadable change is the service's bug: polling again would only
    // meet it again.
    error instanceof FeedContractError ||
    error instanceof UnreadableChangeError
  );
}

export async function runWatcher(
  options: WatchOptions,
  deps: WatcherDeps,
  signal: AbortSignal,
): Promise<WatchResult> {
  const { api, sink, log, status } = deps;
  const retry = {
    maxAttempts: options.maxAttempts,
    random: deps.random,
    sleep: deps.sleep,
    log,
    cursorSaved: deps.statePath !== undefined,
  };
  // Until an answer tells the tier, the interval asked for, or the free tier's: the first poll goes
  // out at once either way, and a failed one waits on the outage backoff, not on this.
  const pacer = new Pacer((options.intervalS ?? defaultIntervalS(ASSUMED_DAILY_LIMIT)) * 1000, deps.now());
  let intervalKnown = options.once;
  let state: WatchState;
  /** Where the cursor is kept, for log lines. */
  const kept = deps.statePath === undefined ? 'the cursor is not saved' : `state ${deps.statePath}`;

  // This run's changes read, and delivered: all of them, or (with --uses) those that concern the
  // code. The status line counts this run's, not the state file's total over every run.
  // `updates`: those delivered before (news.ts), counted apart so a log line never calls them new.
  const run = { seen: 0, delivered: 0, updates: 0 };
  // The same for the poll in progress, for its log line.
  const poll = { seen: 0, delivered: 0, updates: 0 };
  const concerningNote = () =>
    deps.concerns ? `${run.delivered} of ${run.seen} concern your code` : undefined;

  // What was delivered lately, to tell an update from news: saved with the cursor where the cursor
  // is, so the two always agree after a crash; otherwise kept for this run only.
  let memory = new DeliveredMemory();

  const save = async (cursor: number, delivered: number) => {
    // Taken over meanwhile (the lock judged stale, or deleted): two watchers would share one cursor.
    await deps.checkLock?.();
    state = {
      ...state,
      cursor,
      delivered: state.delivered + delivered,
      updatedAt: new Date(deps.now()).toISOString(),
      remembered: memory.list(),
    };
    if (deps.statePath !== undefined) await saveState(deps.statePath, state, deps.stateSetting);
    status.update({ cursor, delivered: run.delivered, callsLeft: api.rateLimit?.remaining });
  };

  const accept = async (page: FeedPage) => {
    // The first answer told the tier: an interval it does not allow is refused before any delivery.
    const refusal = settleInterval();
    if (refusal) throw new ConfigError(refusal, '--interval', '--interval');
    let delivered = 0;
    const some = page.items.length > 0;
    if (some) deps.onDelivering?.(true);
    try {
      await deliverPage(page, () => delivered++);
    } finally {
      if (some) deps.onDelivering?.(false);
    }
    // Only now, with every change of the page accepted (or passed over), may the cursor move past them.
    await save(page.cursor, delivered);
    if (deps.concerns) status.update({ concerning: concerningNote() });
  };

  const deliverPage = async (page: FeedPage, counted: () => void) => {
    for (const item of page.items) {
      run.seen++;
      poll.seen++;
      if (deps.concerns && !deps.concerns(item.event)) continue;
      const delivery = createDelivery(item.sent, item.event, new Date(deps.now()));
      const marking = memory.mark(delivery);
      const marked = markDelivery(delivery, marking);
      const what = `delivery of change ${delivery.envelope.deliveryId} to ${sink.label}`;
      await withRetries(what, () => sink.deliver(marked, signal), retry, signal);
      memory.remember(delivery);
      counted();
      run.delivered++;
      poll.delivered++;
      if (marking.delivery === 'update') {
        run.updates++;
        poll.updates++;
      }
    }
    await withRetries(`saving deliveries to ${sink.label}`, () => sink.flush(signal), retry, signal);
  };

  // The one change `--skip` names: moved past once, when the drain meets it unreadable.
  let skip = options.skip;
  const recordSkip = async (change: SkippedChange) => {
    state = withSkip(state, change, new Date(deps.now()).toISOString());
    await save(change.changeTime, 0);
    skip = undefined;
    // The id is a plain one (page-glimpse.ts), safe in a log line; the reason is the runner's words.
    log.warn(
      `skipped change "${change.id}" (change time ${change.changeTime}) as --skip asked: it cannot be read (${change.reason}) and was not delivered; ${deps.statePath === undefined ? 'not recorded, as the cursor is not saved' : `recorded in ${deps.statePath}`}`,
    );
  };

  /** Once the first answer told the tier: the interval, or the refusal of one too small. */
  const settleInterval = (): string | undefined => {
    if (intervalKnown) return undefined;
    const limit = api.rateLimit?.limit ?? null;
    const choice = chooseInterval(options.intervalS, { limit, name: api.rateLimit?.tier ?? null });
    if (!choice.ok) return `${choice.reason}; the smallest allowed is --interval ${choice.smallest}.`;
    intervalKnown = true;
    pacer.setInterval(choice.seconds * 1000);
    log.info(`polling every ${choice.seconds} s: ${choice.reason}`);
    return undefined;
  };

  /**
   * One line per poll that read something (how many, the new cursor), for a log read without the
   * status line (systemd's journal). On a terminal the status line shows the same, so the line goes
   * to debug there; an idle poll is a debug line either way.
   */
  const logPoll = () => {
    if (poll.seen === 0) {
      log.debug(`polled: nothing new after change time ${state.cursor}`);
      return;
    }
    const changes = (n: number) => changeCount(n, poll.updates);
    const updates = poll.updates === 0 ? '' : `, ${updateCount(poll.updates)}`;
    const what = deps.concerns
      ? `delivered ${poll.delivered} of ${changes(poll.seen)}${updates} (the others do not concern your code)`
      : `delivered ${changes(poll.delivered)}${updates}`;
    const line = `${what} to ${sink.label}; cursor ${state.cursor}${deps.statePath === undefined ? '' : ' saved'}`;
    if (status.live) log.debug(line);
    else log.info(line);
  };

  // The saved place, if any. With none, `--since now` is settled by the first poll, which rides
  // out an unreachable service like any other.
  let cursorKnown = true;
  try {
    const path = deps.statePath;
    if (options.reset && path !== undefined) {
      // Whatever the file holds (another feed's cursor, or no state at all) is kept as it was.
      const backup = await backUpState(path, new Date(deps.now()), deps.stateSetting);
      log.info(
        backup === undefined
          ? `--reset: no state was saved in ${path}; starting from --since`
          : `--reset: the saved state is kept as ${backup}; starting from --since`,
      );
    }
    const saved = path === undefined ? undefined : await readState(path, deps.stateSetting);
    if (saved) {
      const mismatch = stateMismatch(saved, deps.service, options.filters);
      if (mismatch) {
        throw new StateFileError(
          `${path} holds the cursor of another feed: ${mismatch}. Use the same settings, another --state file, or --reset to start again (that file is kept as a backup)`,
        );
      }
      state = saved;
      memory = new DeliveredMemory(saved.remembered);
      // Saved again, unchanged, before anything is delivered: a file that cannot be written (immutable,
      // a full or read-only disk) is found now, not after a page was delivered it cannot record.
      await deps.checkLock?.();
      if (path !== undefined) await saveState(path, saved, deps.stateSetting);
      // Shown from the start, not only after the first page: where this run carries on from.
      status.update({ cursor: saved.cursor });
      log.info(`continuing after change time ${saved.cursor} (${kept})`);
      if (options.sinceGiven) {
        log.warn(
          `--since ${options.since} is not used: a cursor is saved in ${path}, and the watcher carries on from it. To start from --since instead, add --reset (the state file is kept as a backup).`,
        );
      }
    } else {
      state = { cursor: 0, service: deps.service, filters: options.filters, delivered: 0, updatedAt: '' };
      if (options.since === 'now') cursorKnown = false;
      else {
        await save(options.since, 0);
        log.info(`starting after change time ${options.since} (${kept})`);
      }
    }
  } catch (error) {
    if (signal.aborted) return { code: 0 };
    return failed(error);
  }

  // Named in a message about an answer that breaks the feed's contract, as other service errors do.
  const host = URL.canParse(deps.service) ? new URL(deps.service).host : '';
  let failures = 0;
  for (;;) {
    const cycleStart = deps.now();
    let calls = 0;
    let failedCalls = 0;
    let failure: unknown;
    poll.seen = 0;
    poll.delivered = 0;
    try {
      status.update({ lastPoll: cycleStart, nextPoll: undefined, note: undefined });
      if (!cursorKnown) {
        calls++;
        const newest = await newestChangeTime(api, options.filters, signal, deps.now, host);
        await save(newest, 0);
        cursorKnown = true;
        log.info(`starting after change time ${newest}, the newest change now (${kept})`);
      }
      await drainFeed({
        api,
        filters: options.filters,
        cursor: state.cursor,
        accept,
        onCall: () => {
          calls++;
        },
        now: deps.now,
        skip: skip === undefined ? undefined : { id: skip, record: recordSkip },
        host,
        signal,
      });
      if (skip !== undefined) {
        // A whole drain without meeting it: the change was read and delivered after all, or lies
        // behind the cursor. Never armed past that, and never without a word.
        log.warn(`--skip ${skip}: no change that cannot be read was met, so nothing was skipped`);
        skip = undefined;
      }
      if (failures > 0) {
        // What this poll delivered, if anything, is the next line, with the cursor.
        log.info(
          `polling recovered after ${failures} failed ${failures === 1 ? 'poll' : 'polls'}${poll.seen === 0 ? `; nothing new after change time ${state.cursor}` : ''}`,
        );
      }
      failures = 0;
      const refusal = settleInterval();
      if (refusal) return { code: 2, message: refusal };
      if (options.once) {
        const concerning = concerningNote();
        const updates = run.updates === 0 ? '' : `, ${updateCount(run.updates)}`;
        log.info(
          `--once: ${changeCount(run.seen, run.updates)}${concerning ? `, ${concerning}` : ''}${updates}; cursor ${state.cursor}`,
        );
        return { code: 0 };
      }
      logPoll();
    } catch (error) {
      if (signal.aborted) return { code: 0 };
      if (error instanceof ConfigError) return { code: 2, message: error.message };
      if (options.once || isFatal(error)) return failed(error);
      // Pages before the failed call were delivered and saved: the log says so before the failure.
      if (poll.seen > 0) logPoll();
      failures++;
      // The call that failed is not charged to the budget: the outage backoff spaces the retries.
      failedCalls = 1;
      failure = error;
    } finally {
      pacer.spent(calls - failedCalls, cycleStart);
    }
    // A failed call (a 429 among them) may have told the tier already.
    if (api.rateLimit !== undefined) {
      const refusal = settleInterval();
      if (refusal) return { code: 2, message: refusal };
    }
    let nextPoll = pacer.nextAt;
    if (failure instanceof RateLimitError && failure.retryAt !== undefined) {
      // Nothing goes out before the service said it may: the client also answers from memory.
      nextPoll = Math.max(nextPoll, failure.retryAt);
      const note = `rate limited: polling resumes at ${new Date(nextPoll).toISOString().slice(11, 19)} UTC`;
      status.update({ note });
      log.warn(`${note} (${describeError(failure, 'shell')})`);
    } else if (failure !== undefined) {
      // Computed before it is announced, so the log says when the next call really goes out.
      nextPoll = Math.max(nextPoll, deps.now() + outageDelayMs(failures, deps.random, pacer.interval));
      const seconds = Math.ceil((nextPoll - deps.now()) / 1000);
      status.update({ note: `service unavailable, retrying in ${seconds} s` });
      log.warn(
        `polling failed (${failures} in a row): ${describeError(failure, 'shell')} Retrying in ${seconds} s.`,
      );
    }
    status.update({ nextPoll, callsLeft: api.rateLimit?.remaining });
    try {
      await deps.sleep(Math.max(0, nextPoll - deps.now()), signal);
    } catch {
      return { code: 0 };
    }
  }
}
