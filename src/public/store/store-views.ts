/**
 * What a reader of the store holds in memory: the feed (one entry per event id, at its newest
 * publication) and the price points, each grown by the lines read since, never changed in place:
 * a value handed out earlier stays as it was.
 */

import type { StoredEvent, StoredPricePoint } from './store.js';
import { parseFeedLine, parsePriceLine } from './store-records.js';

export interface Feed {
  readonly byId: ReadonlyMap<string, StoredEvent>;
  /** Ascending change time. */
  readonly list: readonly StoredEvent[];
  readonly lastChangeTime: number;
}

export type Prices = ReadonlyMap<string, readonly StoredPricePoint[]>;

export const EMPTY_FEED: Feed = { byId: new Map(), list: [], lastChangeTime: 0 };
export const EMPTY_PRICES: Prices = new Map();

/** The feed with `lines` after it: a republished id leaves its old place for its new one. */
export function addEvents(feed: Feed, lines: readonly string[], skip: () => void): Feed {
  if (lines.length === 0) return feed;
  const byId = new Map(feed.byId);
  let last = feed.lastChangeTime;
  for (const line of lines) {
    const stored = parseFeedLine(line);
    // Change times only grow: a line that does not is not one this store wrote.
    if (!stored || stored.changeTime <= last) {
      skip();
      continue;
    }
    last = stored.changeTime;
    byId.delete(stored.event.id);
    byId.set(stored.event.id, stored);
  }
  // A Map iterates in insertion order, which is change-time order.
  return { byId, list: [...byId.values()], lastChangeTime: last };
}

/** The price points with `lines` after them, each id's oldest first. */
export function addPrices(prices: Prices, lines: readonly string[], skip: () => void): Prices {
  if (lines.length === 0) return prices;
  const next = new Map<string, StoredPricePoint[]>();
  for (const line of lines) {
    const point = parsePriceLine(line);
    const points = point && (next.get(point.id) ?? [...(prices.get(point.id) ?? [])]);
    const previous = points?.at(-1);
    if (!point || !points || (previous && previous.observedAt > point.observedAt)) {
      skip();
      continue;
    }
    points.push(point);
    next.set(point.id, points);
  }
  return new Map([...prices, ...next]);
}
