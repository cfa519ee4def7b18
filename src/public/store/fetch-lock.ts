/**
 * One refresh of a store at a time, across processes (a lock file, lock.ts) and within this one (a
 * queue per lock path: lock.ts takes a lock naming this very process for stale, so two callers of
 * one process must never both ask for it). A refresh holds it for one fetch of the origins, so a
 * second caller waits rather than fetching the same answers again.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileSystemError, StateFileError } from '../../errors.js';
import { once } from '../../once.js';
import { acquireLock, type Lock, LockedError } from '../../store/lock.js';
import { refusedFile, STORE_SETTING, storeFault } from './store-faults.js';

/** Asks again this often while another process holds the lock: its refresh takes seconds. */
const POLL_MS = 25;

export interface FetchLockOptions {
  /** How long to wait for another holder before giving up, in ms. */
  readonly waitMs: number;
  /** Epoch ms, for the wait's deadline. */
  readonly now: () => number;
  readonly signal?: AbortSignal | undefined;
}

/** The lock paths held by the work running in the current async context. */
const holding = once(() => new AsyncLocalStorage<ReadonlySet<string>>());
/** Per lock path, the turn of its last caller in this process: settles when that caller is done. */
const turns = new Map<string, Promise<void>>();

/** Whether the code running now is inside `withFetchLock(path, …)`'s work. */
export function holdsFetchLock(path: string): boolean {
  return holding().getStore()?.has(path) ?? false;
}

/**
 * Runs `work` holding the lock at `path`, after every earlier caller of this process is done. The
 * whole wait, for callers of this process and for other processes, is bounded by `waitMs`.
 */
export async function withFetchLock<T>(
  path: string,
  options: FetchLockOptions,
  work: () => Promise<T>,
): Promise<T> {
  // Already held here: waiting for itself would never end.
  if (holdsFetchLock(path)) return work();
  const deadline = options.now() + options.waitMs;
  const previous = turns.get(path) ?? Promise.resolve();
  let done = () => {};
  const mine = previous.then(() => new Promise<void>((resolve) => (done = resolve)));
  turns.set(path, mine);
  try {
    await untilSettled(previous, path, deadline, options);
    const lock = await acquireBy(path, deadline, options);
    try {
      const held = new Set(holding().getStore());
      held.add(path);
      return await holding().run(held, work);
    } finally {
      await lock.release().catch(() => {});
    }
  } finally {
    // `done` is set once `previous` settled; until then `mine` waits for it anyway.
    void previous.then(() => done());
    if (turns.get(path) === mine) turns.delete(path);
  }
}

/** Waits for the turn of the caller before, unless the signal aborts or the deadline passes first. */
function untilSettled(
  turn: Promise<void>,
  path: string,
  deadline: number,
  { waitMs, now, signal }: FetchLockOptions,
): Promise<void> {
  signal?.throwIfAborted();
  return new Promise((resolve, reject) => {
    const finish = (settle: () => void) => () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      settle();
    };
    const stop = finish(() => reject(signal?.reason));
    const late = finish(() => reject(lockedTooLong(path, 'another refresh of this process', waitMs)));
    const timer = setTimeout(late, Math.max(0, deadline - now()));
    signal?.addEventListener('abort', stop, { once: true });
    void turn.then(finish(resolve));
  });
}

async function acquireBy(
  path: string,
  deadline: number,
  { waitMs, now, signal }: FetchLockOptions,
): Promise<Lock> {
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await acquireLock(path);
    } catch (error) {
      // lock.ts words a lock it cannot read for the watcher: here, the same advice in the store's words.
      if (error instanceof StateFileError) throw refusedFile(path, 'is not a lock file of this user');
      if (!(error instanceof LockedError)) {
        throw storeFault(error, "take the public store's fetch lock", path);
      }
      if (now() >= deadline) {
        const { holder } = error;
        throw lockedTooLong(
          path,
          holder ? `process ${holder.pid} on ${holder.host}` : 'another process',
          waitMs,
        );
      }
    }
    await sleep(POLL_MS, undefined, signal ? { signal } : {}).catch(() => signal?.throwIfAborted());
  }
}

/** Busy (EBUSY, which callers may retry), naming the holder so the user knows what to stop. */
function lockedTooLong(path: string, holder: string, waitMs: number): FileSystemError {
  return new FileSystemError(
    `take within ${Math.round(waitMs / 1000)} s (${holder} holds it) the public store's fetch lock`,
    path,
    'EBUSY',
    STORE_SETTING,
  );
}
