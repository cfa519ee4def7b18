/**
 * Quiet moments in a stdio session: once something worth waiting for has happened, no request is
 * in flight and none has arrived for a while. Work that is synchronous and can wait (the idle
 * warm-up, serve-stdio.ts) runs then, so that only a request arriving within those few
 * milliseconds can wait for it. Found through the transport's activity (activity.ts). The timer is
 * unref'd: it never keeps the process up.
 */

import type { SessionActivity, Unsubscribe } from './activity.js';

/** How long nothing must happen before a quiet moment. */
export const QUIET_MS = 100;

export interface QuietMomentOptions {
  /**
   * What makes a quiet moment due: the answer to a request with one of these methods, or a
   * notification from the client with one of them (`notifications/initialized`). A request the
   * client cancelled makes none due.
   */
  after: ReadonlySet<string>;
  /** @default QUIET_MS */
  quietMs?: number;
}

/**
 * Calls `onQuiet` at each quiet moment after one of `after`, until it returns false (nothing more
 * to do) or the session closes. Returns what stops it sooner.
 */
export function onQuietMoments(
  activity: SessionActivity,
  onQuiet: () => boolean,
  { after, quietMs = QUIET_MS }: QuietMomentOptions,
): Unsubscribe {
  /** One of `after` happened since the last quiet moment. */
  let due = false;
  let timer: NodeJS.Timeout | undefined;

  // Each event puts the moment off: it comes quietMs after the last thing that happened.
  const arm = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (!due || !activity.idle) return;
    timer = setTimeout(() => {
      timer = undefined;
      due = false;
      if (!onQuiet()) stop();
    }, quietMs).unref();
  };
  const listening = [
    activity.onRequest(arm),
    activity.onNotification(({ method }) => {
      if (after.has(method)) due = true;
      arm();
    }),
    activity.onSettled(({ method, outcome }) => {
      if (outcome !== 'cancelled' && after.has(method)) due = true;
      arm();
    }),
    activity.onClosed(() => stop()),
  ];
  const stop = (): void => {
    clearTimeout(timer);
    for (const unsubscribe of listening) unsubscribe();
  };
  return stop;
}
