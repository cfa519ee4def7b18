/**
 * Following `GET /api/v1/changes` from a cursor: the `since` to send is the last `latest` received.
 * The service gives each item a unique change time (runner.md), so sending `latest` back never
 * skips an item, however many share a second. The cursor moves only when the caller has accepted
 * the page: a crash redelivers at most that page, and skips nothing.
 */

import type { FeedApi } from '../api/client.js';
import type { ChangeEvent } from '../api/schemas.js';

/** The feed's own filters, sent to the service. */
export interface FeedFilters {
  type?: string | undefined;
  /** Vendor slug. */
  model?: string | undefined;
}

/** The largest page the service serves: fewest calls for a backlog. */
export const PAGE_SIZE = 100;

export interface FeedItem {
  /** As the service sent it. */
  sent: Readonly<Record<string, unknown>>;
  event: ChangeEvent;
}

export interface FeedPage {
  items: FeedItem[];
  /** The cursor after this page; equal to the one sent when the page is empty. */
  cursor: number;
  /** A full page: more may be waiting right now. */
  full: boolean;
}

type ChangesReader = Pick<FeedApi, 'readChanges'>;

/** The page after `cursor`, oldest first. */
export async function readPageAfter(
  api: ChangesReader,
  cursor: number,
  filters: FeedFilters,
  signal: AbortSignal,
): Promise<FeedPage> {
  const { page, sent } = await api.readChanges(
    { since: cursor, limit: PAGE_SIZE, type: filters.type, model: filters.model },
    signal,
  );
  if (page.items.length === 0) return { items: [], cursor, full: false };
  // The API client refuses such a page, naming the request (api/client.ts); this keeps drainFeed's
  // loop bounded whatever reader it is given.
  if (page.latest === null || page.latest <= cursor) {
    throw new Error(`a page of changes since ${cursor} did not move the cursor (latest=${page.latest})`);
  }
  return {
    items: page.items.map((event, index) => ({ event, sent: sent[index] ?? event })),
    cursor: page.latest,
    full: page.items.length >= PAGE_SIZE,
  };
}

/**
 * Where "from now on" begins: the change time of the newest item (one call), not this machine's
 * clock, which may be off from the service's. An empty feed starts from 0.
 */
export async function newestChangeTime(
  api: ChangesReader,
  filters: FeedFilters,
  signal: AbortSignal,
): Promise<number> {
  const { page } = await api.readChanges({ limit: 1, type: filters.type, model: filters.model }, signal);
  return page.latest ?? 0;
}

export interface DrainOptions {
  api: ChangesReader;
  filters: FeedFilters;
  cursor: number;
  /** Takes a whole page; the cursor moves past it only once this resolves. */
  accept(page: FeedPage): Promise<void>;
  /** Called before each request goes out: the pacer counts it. */
  onCall?(): void;
  signal: AbortSignal;
}

/**
 * Reads and hands over pages until one is not full. Bounded: each page moves the cursor strictly
 * forward (readPageAfter refuses one that does not), and the feed is finite.
 */
export async function drainFeed(options: DrainOptions): Promise<void> {
  let cursor = options.cursor;
  for (;;) {
    options.onCall?.();
    const page = await readPageAfter(options.api, cursor, options.filters, options.signal);
    if (page.items.length > 0) await options.accept(page);
    cursor = page.cursor;
    if (!page.full) return;
  }
}
