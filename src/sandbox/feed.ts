import type { ChangeEvent, EventType } from './types.js';

/**
 * An event with its change time: the whole Unix second at which it was published or last changed.
 * Change times are unique across the feed and never earlier than the event's detectedAt, which is
 * what lets an integer `since` with a hard `limit` page through any number of same-second events.
 */
export interface FeedEntry {
  readonly event: ChangeEvent;
  readonly changeTime: number;
}

/** Entries in ascending change time. */
export type Feed = readonly FeedEntry[];

export interface FeedQuery {
  since?: number | undefined;
  before?: number | undefined;
  /** 1..100; the caller validates it. */
  limit: number;
  type?: EventType | undefined;
  /** Vendor slug, matched case-insensitively. */
  model?: string | undefined;
}

export interface FeedPage {
  items: ChangeEvent[];
  /** Without `since`: `before` value for the next, older page; null on the last page. Always null with `since`. */
  nextCursor: number | null;
  /** Greatest change time among `items` (the last one when `since` is given); null when none. */
  latest: number | null;
}

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

/** The first index at which `test` holds, `feed.length` when none; `test` must be false, then true, along the feed. */
function firstIndexWhere(feed: Feed, test: (entry: FeedEntry) => boolean): number {
  let low = 0;
  let high = feed.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const entry = feed[middle];
    if (entry !== undefined && test(entry)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * With `since`: the entries changed after it (and before `before`, when given), oldest first.
 * Without: the entries changed before `before` (all, when absent), newest first.
 *
 * The window is found by binary search on the ascending change times and only as many entries are
 * read as the page needs (plus one, without `since`, to know whether an older page exists): a
 * poller of a feed of 10,000+ entries costs a few dozen comparisons, not a pass over the feed.
 */
export function queryFeed(feed: Feed, query: FeedQuery): FeedPage {
  const { since, before, limit, type } = query;
  const model = query.model?.toLowerCase();
  const matches = (entry: FeedEntry): boolean =>
    (type === undefined || entry.event.eventType === type) &&
    (model === undefined || entry.event.model.slug.toLowerCase() === model);
  const start = since === undefined ? 0 : firstIndexWhere(feed, (entry) => entry.changeTime > since);
  const end =
    before === undefined ? feed.length : firstIndexWhere(feed, (entry) => entry.changeTime >= before);
  const page: FeedEntry[] = [];
  if (since !== undefined) {
    for (let index = start; index < end && page.length < limit; index++) {
      const entry = feed[index];
      if (entry !== undefined && matches(entry)) page.push(entry);
    }
    // A since-poller continues with `latest`; a cursor would only be a second way to say the same.
    return {
      items: page.map((entry) => entry.event),
      nextCursor: null,
      latest: page.at(-1)?.changeTime ?? null,
    };
  }
  let hasOlder = false;
  for (let index = end - 1; index >= start; index--) {
    const entry = feed[index];
    if (entry === undefined || !matches(entry)) continue;
    if (page.length === limit) {
      hasOlder = true;
      break;
    }
    page.push(entry);
  }
  return {
    items: page.map((entry) => entry.event),
    nextCursor: hasOlder ? (page.at(-1)?.changeTime ?? null) : null,
    latest: page[0]?.changeTime ?? null,
  };
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
