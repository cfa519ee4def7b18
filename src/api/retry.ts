/** Retry policy as pure functions: what may be retried, and how long to wait first. */

/** Attempts per call, the first one included. */
export const MAX_ATTEMPTS = 3;

/** Gateway failures are usually momentary; other 5xx mean the service itself is broken. */
const RETRYABLE_STATUSES = new Set([502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * Wait before the next attempt: exponential (200 ms, 400 ms, … capped at 2 s) with "equal jitter",
 * half fixed and half random, so that concurrent callers spread out but never retry at once.
 * `attemptsMade` counts from 1.
 */
export function backoffMs(attemptsMade: number, random: () => number, baseMs = 200, capMs = 2000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attemptsMade - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * How long one attempt may take. The timeout bounds the whole call; an attempt may use half of it
 * (at least 1 s), so a connection that went silent is abandoned early enough to retry once.
 */
export function attemptBudgetMs(timeoutMs: number, remainingMs: number): number {
  return Math.max(0, Math.min(remainingMs, Math.max(timeoutMs / 2, 1000)));
}
