/**
 * The code-cache hook's way to its quiet moments (code-cache-hook.ts), kept for as long as the
 * hook is: the moments of stdio/quiet-moments.ts, after the server is connected to a transport
 * that offers its activity.
 */

import type { SessionActivity } from './stdio/activity.js';
import { onQuietMoments, QUIET_MS, type QuietMomentOptions } from './stdio/quiet-moments.js';

export { QUIET_MS, type QuietMomentOptions };

/** A transport whose session can be watched: the stdio transport. */
export interface ObservedTransport {
  readonly activity: SessionActivity;
}

/**
 * The server, connected so that `onQuiet` is called at each quiet moment after one of `after`,
 * until it returns false (nothing more to do).
 */
export function withQuietMoments<T extends ObservedTransport>(
  server: { connect(transport: T): Promise<void> },
  onQuiet: () => boolean,
  options: QuietMomentOptions,
): { connect(transport: T): Promise<void> } {
  return {
    async connect(transport) {
      await server.connect(transport);
      onQuietMoments(transport.activity, onQuiet, options);
    },
  };
}
