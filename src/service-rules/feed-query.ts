/**
 * The change feed's query rules (runner.md): `since` pages oldest first by change time, without it
 * newest first with `before` as the cursor. Shared by the sandbox and the public source, whose
 * events differ in type but not in what the rules read.
 */

/** What the rules read of an event. */
export interface FeedItem {
  readonly eventType: string;
  readonly model: { readonly slug: string };
}

/**
 * An event with its change time: the whole Unix second at which it was published or last changed.
 * Change times are unique across the feed and never earlier than the event's detectedAt, which is
 * what lets an integer `since` with a hard `limit` page through any number of same-second events.
 */
export interface FeedEntry<E extends FeedItem> {
  readonly event: E;
  readonly changeTime: number;
}

export interface FeedQuery {
  since?: number | undefined;
  before?: number | undefined;
  /** 1..100; the caller validates it. */
  limit: number;
  type?: string | undefined;
  /** Vendor slug, matched case-insensitively. */
  model?: string | undefined;
}

export interface FeedPage<E> {
  items: E[];
  /** Without `since`: `before` value for the next, older page; null on the last page. Always null with `since`. */
  nextCursor: number | null;
  /** Greatest change time among `items` (the last one when `since` is given); null when none. */
  latest: number | null;
}

/** The first index at which `test` holds, `feed.length` when none; `test` must be false, then true, along the feed. */
function firstIndexWhere<E extends FeedItem>(
  feed: readonly FeedEntry<E>[],
  test: (entry: FeedEntry<E>) => boolean,
): number {
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
export function queryFeed<E extends FeedItem>(feed: readonly FeedEntry<E>[], query: FeedQuery): FeedPage<E> {
  const { since, before, limit, type } = query;
  const model = query.model?.toLowerCase();
  const matches = (entry: FeedEntry<E>): boolean =>
    (type === undefined || entry.event.eventType === type) &&
    (model === undefined || entry.event.model.slug.toLowerCase() === model);
  const start = since === undefined ? 0 : firstIndexWhere(feed, (entry) => entry.changeTime > since);
  const end =
    before === undefined ? feed.length : firstIndexWhere(feed, (entry) => entry.changeTime >= before);
  const page: FeedEntry<E>[] = [];
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
