import type { FeedEntry as Entry } from '../service-rules/feed-query.js';
import type { ChangeEvent } from './types.js';

/** A sandbox event with its change time (see feed-query.ts). */
export type FeedEntry = Entry<ChangeEvent>;

/** Entries in ascending change time. */
export type Feed = readonly FeedEntry[];

export function detectedAtSeconds(event: ChangeEvent): number {
  const ms = Date.parse(event.detectedAt);
  if (Number.isNaN(ms)) throw new Error(`change event ${event.id}: detectedAt is not a date-time`);
  return Math.floor(ms / 1000);
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Gives each event, in detectedAt order (ties by id), the first free second at or after its detectedAt. */
export function createFeed(events: readonly ChangeEvent[]): Feed {
  const ordered = events
    .map((event) => ({ event, detectedAt: detectedAtSeconds(event) }))
    .sort((a, b) => a.detectedAt - b.detectedAt || compareIds(a.event.id, b.event.id));
  const feed: FeedEntry[] = [];
  let previous = Number.NEGATIVE_INFINITY;
  for (const { event, detectedAt } of ordered) {
    previous = Math.max(detectedAt, previous + 1);
    feed.push({ event, changeTime: previous });
  }
  return feed;
}

/**
 * The change time an event gets when it is published or changes now: after every other one in the
 * feed (whose newest change time is `newestChangeTime`), not before `nowSec`, and not before its
 * detectedAt.
 */
export function nextChangeTime(newestChangeTime: number, event: ChangeEvent, nowSec: number): number {
  return Math.max(Math.floor(nowSec), detectedAtSeconds(event), newestChangeTime + 1);
}

function newestChangeTime(feed: Feed): number {
  return feed.at(-1)?.changeTime ?? Number.NEGATIVE_INFINITY;
}

/**
 * Appends newly published events, in the order given, each with a fresh change time (see
 * `nextChangeTime`), so a poller that had caught up receives them with its next `since`. Ids must
 * be new: the caller derives them from content and a sequence number, and checking every one
 * against the feed would make a backlog of 10,000 cost 10,000 passes.
 */
export function publishChanges(feed: Feed, events: readonly ChangeEvent[], nowSec: number): Feed {
  let previous = newestChangeTime(feed);
  const added = events.map((event): FeedEntry => {
    previous = nextChangeTime(previous, event, nowSec);
    return { event, changeTime: previous };
  });
  return [...feed, ...added];
}

/** Appends one newly published event with a fresh change time; see `publishChanges`. */
export function publishChange(feed: Feed, event: ChangeEvent, nowSec: number): Feed {
  return publishChanges(feed, [event], nowSec);
}

/**
 * Moves a pending event to `official` or `rejected`. The event gets a new change time, after every
 * other one and not before `nowSec`, so pollers that have passed it receive it again.
 */
export function changeVerification(
  feed: Feed,
  eventId: string,
  status: 'official' | 'rejected',
  nowSec: number,
): Feed {
  const entry = feed.find((candidate) => candidate.event.id === eventId);
  if (entry === undefined) throw new Error(`no change event with id ${eventId}`);
  if (entry.event.verificationStatus !== 'pending') {
    throw new Error(
      `change event ${eventId} is ${entry.event.verificationStatus}; only pending events can change`,
    );
  }
  const event: ChangeEvent = { ...entry.event, verificationStatus: status, official: status === 'official' };
  const changed: FeedEntry = { event, changeTime: nextChangeTime(newestChangeTime(feed), event, nowSec) };
  return [...feed.filter((candidate) => candidate !== entry), changed];
}
