/**
 * What SIGINT (Ctrl-C at a line prompt), SIGTERM and SIGHUP do to `setup`. Before the first write,
 * setup ends at once, but first gives the terminal its echo back (the key prompt turns it off, and
 * a shell such as `sh` does not turn it on again; Node itself restores it on SIGINT and SIGTERM,
 * not on SIGHUP) and says that nothing was written. Once writing has begun, a signal is held: the
 * write under way stops at its next step and undoes itself (its temp file may hold the key), or, if
 * the file was already replaced, finishes and is reported; then setup stops. A second signal ends
 * it at once, removing the temp files being written.
 */

import { rmSync } from 'node:fs';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The exit status of a process that a signal ended: 128 + its number, as shells report it. */
export const EXIT_BY_SIGNAL: Record<StopSignal, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

export interface StopSignals {
  /** Aborted by a stop signal received while writes are under way. */
  readonly signal: AbortSignal;
  /** The stop signal received during the writes, if any. */
  readonly received: StopSignal | undefined;
  /** From now on a stop signal is held for the writes to stop at a safe point. */
  holdForWrites(): void;
  /** Marks `path` as a temp file being written, to remove if setup must end at once; returns the unmark. */
  track(path: string): () => void;
  /** Takes the handlers away. */
  dispose(): void;
}

/** Signals that never come: for setup run in a test, in process. */
export function noStopSignals(): StopSignals {
  return {
    signal: new AbortController().signal,
    received: undefined,
    holdForWrites: () => {},
    track: () => () => {},
    dispose: () => {},
  };
}

/**
 * The process's own signals. `restoreTerminal` gives the terminal its normal mode back; `say`
 * writes one line to the user (which may fail when the terminal has hung up).
 */
export function watchStopSignals(restoreTerminal: () => void, say: (text: string) => void): StopSignals {
  const controller = new AbortController();
  const temps = new Set<string>();
  let holding = false;
  let received: StopSignal | undefined;

  const endNow = (signal: StopSignal, message: string): void => {
    for (const path of temps) rmSync(path, { force: true });
    try {
      restoreTerminal();
      say(message);
    } catch {
      // A terminal that hung up can neither be restored nor written to.
    }
    dispose();
    // Ended by the signal itself, as a shell expects of a process it interrupted.
    process.kill(process.pid, signal);
    process.exit(EXIT_BY_SIGNAL[signal]);
  };

  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = (): void => {
      if (!holding) {
        endNow(signal, `model-feed-mcp setup: stopped by ${signal}; nothing was written.\n`);
      } else if (received === undefined) {
        received = signal;
        controller.abort();
      } else {
        endNow(signal, `model-feed-mcp setup: stopped by ${signal} during a write.\n`);
      }
    };
    process.on(signal, handler);
    return { signal, handler };
  });

  function dispose(): void {
    for (const { signal, handler } of handlers) process.off(signal, handler);
  }

  return {
    signal: controller.signal,
    get received() {
      return received;
    },
    holdForWrites: () => {
      holding = true;
    },
    track: (path) => {
      temps.add(path);
      return () => temps.delete(path);
    },
    dispose,
  };
}
