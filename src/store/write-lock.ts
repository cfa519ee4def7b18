/**
 * A lock held for one read-and-rewrite of a shared file (an Atom feed two watchers write): other
 * writers wait their turn instead of renaming over each other's work. A holder keeps it for
 * milliseconds, so a writer waits a little; a holder that died is taken over as lock.ts does.
 */

import { acquireLock, LockedError } from './lock.js';

/** How long a writer waits for another's turn: far longer than one rewrite takes. */
const MAX_WAIT_MS = 10_000;
const POLL_MS = 25;

/** Runs `work` holding `<path>.lock`; throws LockedError when another holder keeps it past the wait. */
export async function withWriteLock<T>(
  path: string,
  signal: AbortSignal,
  work: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + MAX_WAIT_MS;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    let lock: Awaited<ReturnType<typeof acquireLock>>;
    try {
      lock = await acquireLock(`${path}.lock`);
    } catch (error) {
      if (!(error instanceof LockedError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    try {
      return await work();
    } finally {
      await lock.release().catch(() => {});
    }
  }
}
