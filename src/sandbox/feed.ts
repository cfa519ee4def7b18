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

function matches(entry: FeedEntry, query: FeedQuery): boolean {
  if (query.type !== undefined && entry.event.eventType !== query.type) return false;
  return query.model === undefined || entry.event.model.slug.toLowerCase() === query.model.toLowerCase();
}

/**
 * With `since`: the entries changed after it (and before `before`, when given), oldest first.
 * Without: the entries changed before `before` (all, when absent), newest first.
 */
export function queryFeed(feed: Feed, query: FeedQuery): FeedPage {
  const { since, before, limit } = query;
  const inWindow = feed.filter(
    (entry) =>
      matches(entry, query) &&
      (since === undefined || entry.changeTime > since) &&
      (before === undefined || entry.changeTime < before),
  );
  if (since !== undefined) {
    const page = inWindow.slice(0, limit);
    // A since-poller continues with `latest`; a cursor would only be a second way to say the same.
    return {
      items: page.map((entry) => entry.event),
      nextCursor: null,
      latest: page.at(-1)?.changeTime ?? null,
    };
  }
  const page = inWindow.toReversed().slice(0, limit);
  const hasOlder = inWindow.length > page.length;
  return {
    items: page.map((entry) => entry.event),
    nextCursor: hasOlder ? (page.at(-1)?.changeTime ?? null) : null,
    latest: page[0]?.changeTime ?? null,
  };
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
  const newestChangeTime = feed.at(-1)?.changeTime ?? Number.NEGATIVE_INFINITY;
  const changed: FeedEntry = {
    event: { ...entry.event, verificationStatus: status, official: status === 'official' },
    changeTime: Math.max(Math.floor(nowSec), newestChangeTime + 1),
  };
  return [...feed.filter((candidate) => candidate !== entry), changed];
}
