/**
 * The feed's change times: unique across the store and only growing, so a reader that sends back
 * the newest one it saw (rule 3) gets every later event, none skipped and none twice, whatever
 * the origins say their dates are.
 */

import type { ChangeEvent } from '../../api/schemas.js';
import type { StoredEvent } from './store.js';

/**
 * The change time of each event, in order. An id new to the store keeps its own date
 * (`detectedAt`, in whole seconds), moved past every change time given before it; an id already
 * stored is published again at the snapshot's time (its date is the old one: the change is now).
 * A date after the snapshot's own time (or none that parses) counts as the snapshot's time: a
 * change cannot be detected after the snapshot that saw it, and one far-future date would
 * otherwise push every later change time after it.
 */
export function assignChangeTimes(
  events: readonly ChangeEvent[],
  isStored: (id: string) => boolean,
  takenAt: number,
  lastChangeTime: number,
): { stored: StoredEvent[]; lastChangeTime: number } {
  const seen = new Set<string>();
  let last = lastChangeTime;
  const stored = events.map((event) => {
    const again = seen.has(event.id) || isStored(event.id);
    seen.add(event.id);
    const detected = Math.floor(Date.parse(event.detectedAt) / 1000);
    const own = again || !Number.isFinite(detected) ? takenAt : Math.min(detected, takenAt);
    last = Math.max(own, last + 1);
    return { changeTime: last, event };
  });
  return { stored, lastChangeTime: last };
}
