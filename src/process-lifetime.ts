/**
 * How a serving process ends, for stdio and `--http` alike: on SIGINT or SIGTERM, when the parent
 * process goes (stdio only: there the parent is the MCP client), or when the caller says so (stdin
 * ended, stdout closed). An error that escapes every handler is the last resort's: logged while
 * serving, fatal once ending. What to release, and how long it may take, is the caller's.
 */

import type { Logger } from './log.js';
import { errorText } from './text/error-text.js';

/** Often enough that an orphan goes within seconds; rarely enough to cost nothing. */
const PARENT_CHECK_MS = 2000;

/**
 * Whether the process that started this one is gone. An orphan is adopted by init or a subreaper,
 * which changes its parent id on Linux and macOS. Windows never updates the parent id, so the
 * process is also probed: ESRCH means gone; EPERM means it exists under another user.
 */
export function parentGone(startPpid: number, currentPpid: number = process.ppid): boolean {
  if (currentPpid !== startPpid) return true;
  try {
    process.kill(startPpid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Calls `onGone` once when the parent process goes. A client that dies while something else holds
 * the stdin pipe open (a grandchild, a sibling, a wrapper script) never ends our input; without
 * this the server would outlive it for ever. The timer is unref'd: it never keeps the process up.
 * Returns the timer, or nothing when there is no parent to watch (pid 0: a container's first process).
 */
export function watchParent(
  onGone: () => void,
  {
    intervalMs = PARENT_CHECK_MS,
    ppid = () => process.ppid,
  }: { intervalMs?: number; ppid?: () => number } = {},
): NodeJS.Timeout | undefined {
  const startPpid = ppid();
  if (startPpid === 0) return undefined;
  const timer = setInterval(() => {
    if (!parentGone(startPpid, ppid())) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  return timer.unref();
}

/**
 * The handler for an error that escaped every other (`uncaughtException`, `unhandledRejection`).
 * While serving it logs one line and the session goes on. The process is one long session that
 * the MCP client will not restart by itself: dying would fail every call in flight and take the
 * user's tools away until they restart the client. What can still escape (the transport, the SDK
 * and the tool handlers each catch their own) is a stray throw in one request's callback; the
 * state Node warns may be left half-updated is then that request's bookkeeping, a smaller harm.
 * Once shutting down there is nothing left to save: exit with status 1, so that the error can
 * neither hold the process nor pass for a clean exit.
 */
export function lastResort(
  log: Logger,
  stopping: () => boolean,
  exit: (code: number) => void = (code) => process.exit(code),
): (error: unknown) => void {
  return (error) => {
    // The message only: a stack of the minified bundle helps nobody, and may be long.
    if (stopping()) {
      log.error('uncaught error during shutdown', { error: errorText(error) });
      exit(1);
      return;
    }
    log.error('uncaught error, still serving', { error: errorText(error) });
  };
}

/** Why the process is ending. */
export interface Ending {
  why: string;
}

export interface LifetimeOptions {
  log: Logger;
  /**
   * Also end when the parent process goes; off when absent. For stdio, whose parent is the client;
   * not for `--http`, which a user may leave running on its own. `intervalMs` @default 2000
   */
  parentWatch?: { intervalMs?: number };
}

export interface ProcessLifetime {
  /** Resolves once, with the first reason to end. */
  readonly ended: Promise<Ending>;
  /** Ends for a reason of the caller's; only the first reason counts. */
  end(why: string): void;
}

/**
 * Installs, for the rest of the process, what ends it: the signals, the last resort for escaping
 * errors and, when asked, the parent watch. A closed stderr only silences the log: unheard, each
 * failed log line would be an uncaught error, logged to stderr again, a loop at full CPU.
 */
export function startProcessLifetime({ log, parentWatch }: LifetimeOptions): ProcessLifetime {
  let ending: Ending | undefined;
  let resolveEnded: (ending: Ending) => void = () => {};
  const ended = new Promise<Ending>((resolve) => {
    resolveEnded = resolve;
  });
  const end = (why: string): void => {
    if (ending) return;
    ending = { why };
    log.debug('shutting down', { why });
    resolveEnded(ending);
  };
  const onUncaught = lastResort(log, () => ending !== undefined);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  process.stderr.on('error', () => {});
  process.once('SIGINT', () => end('SIGINT'));
  process.once('SIGTERM', () => end('SIGTERM'));
  if (parentWatch) {
    watchParent(() => {
      log.info('parent process exited; shutting down');
      end('parent process exited');
    }, parentWatch);
  }
  return { ended, end };
}

/**
 * Resolves once every piece of `work` has settled, or after `budgetMs`, whichever comes first. The
 * timer is unref'd: with nothing else left to wait for, the process may end sooner still.
 */
export function settleWithin(budgetMs: number, work: readonly unknown[]): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(resolve, budgetMs).unref();
    void Promise.allSettled(work).then(() => resolve());
  });
}
