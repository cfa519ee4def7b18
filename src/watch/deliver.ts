/**
 * One change into a sink, with retries: capped exponential backoff with jitter, the receiver's
 * `retry-after` honoured, up to the watcher's max attempts. Giving up is a permanent DeliveryError:
 * the watcher then exits 1 with the cursor still before the change, never skipping it (where no
 * cursor is saved, the next run starts from --since again, and the message says that instead).
 */

import { describeError } from '../describe-error.js';
import { DeliveryError, FileSystemError } from '../errors.js';
import type { Logger } from '../log.js';

export interface RetryPolicy {
  maxAttempts: number;
  random(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  log: Logger;
  /** Whether the cursor is saved, so that the next run delivers again what this one gave up on. */
  cursorSaved: boolean;
}

/** A receiver's `retry-after` is honoured up to an hour; past that the watcher would look hung. */
export const MAX_DELIVERY_WAIT_MS = 3_600_000;

/** 1 s doubling to a minute, half of it random. */
export function deliveryBackoffMs(attemptsMade: number, random: () => number): number {
  const ceiling = Math.min(60_000, 1000 * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

function asDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  // A read-only disk or a bad path stays as it is: attempting again only delays the message.
  if (error instanceof FileSystemError) return new DeliveryError(describeError(error), !error.retryable);
  return new DeliveryError(error instanceof Error ? error.message : String(error), false);
}

/** Runs `attempt` until it succeeds, fails permanently, or runs out of attempts. */
export async function withRetries(
  what: string,
  attempt: () => Promise<void>,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<void> {
  for (let made = 1; ; made++) {
    try {
      await attempt();
      return;
    } catch (error) {
      // Shutdown: the change is abandoned (and delivered again on the next run, where the cursor is saved).
      if (signal.aborted) throw signal.reason;
      const failure = asDeliveryError(error);
      if (failure.permanent || made >= policy.maxAttempts) {
        const after = failure.permanent
          ? 'a permanent failure'
          : `${made} ${made === 1 ? 'attempt' : 'attempts'}`;
        const next = policy.cursorSaved
          ? 'The cursor stays before this change: fix the sink, and the next run delivers it again.'
          : 'This run keeps no cursor, so the next one starts from --since again, not from this change: fix the sink and run again.';
        throw new DeliveryError(
          `${what} failed (${after}): ${failure.message.replace(/\.$/, '')}. ${next}`,
          true,
        );
      }
      const waitMs = Math.min(
        MAX_DELIVERY_WAIT_MS,
        Math.max(failure.retryAfterMs ?? 0, deliveryBackoffMs(made, policy.random)),
      );
      policy.log.warn(
        `${what} failed (attempt ${made} of ${policy.maxAttempts}): ${failure.message}; trying again in ${Math.ceil(waitMs / 1000)} s`,
      );
      await policy.sleep(waitMs, signal);
    }
  }
}
