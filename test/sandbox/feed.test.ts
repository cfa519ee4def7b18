import { describe, expect, it } from 'vitest';
import { buildDataset } from '../../src/sandbox/dataset.js';
import {
  changeVerification,
  createFeed,
  detectedAtSeconds,
  type Feed,
  publishChange,
  publishChanges,
} from '../../src/sandbox/feed.js';
import { loadBundledData } from '../../src/sandbox/raw-data.js';
import { type FeedQuery, queryFeed } from '../../src/service-rules/feed-query.js';
import { makeEvent } from './fixtures.js';

const ids = (page: { items: { id: string }[] }) => page.items.map((item) => item.id);

// c, a, b detected in one second; d one second later, inside the spill of the tie.
const small = createFeed([
  makeEvent({ id: 'c', detectedAtSec: 1000, eventType: 'price_change', slug: 'openai' }),
  makeEvent({ id: 'a', detectedAtSec: 1000, slug: 'Anthropic' }),
  makeEvent({ id: 'd', detectedAtSec: 1001, status: 'pending', slug: 'openai' }),
  makeEvent({ id: 'b', detectedAtSec: 1000, eventType: 'price_change' }),
  makeEvent({ id: 'e', detectedAtSec: 2000 }),
]);

function pollAll(feed: Feed, query: Omit<FeedQuery, 'since'>, since = 0): { ids: string[]; latest: number } {
  const seen: string[] = [];
  let cursor = since;
  for (let round = 0; round <= feed.length + 1; round++) {
    const page = queryFeed(feed, { ...query, since: cursor });
    if (page.latest === null) return { ids: seen, latest: cursor };
    seen.push(...ids(page));
    cursor = page.latest;
  }
  throw new Error('polling did not terminate');
}

describe('createFeed', () => {
  it('gives same-second events the next free seconds, in id order, never before detectedAt', () => {
    expect(small.map((entry) => [entry.event.id, entry.changeTime])).toEqual([
      ['a', 1000],
      ['b', 1001],
      ['c', 1002],
      ['d', 1003],
      ['e', 2000],
    ]);
  });

  it('reads detectedAt in whole seconds', () => {
    expect(detectedAtSeconds(makeEvent({ id: 'x', detectedAtSec: 1234 }))).toBe(1234);
  });
});

describe('queryFeed', () => {
  it('with since: items changed after it, oldest first, latest = last change time', () => {
    expect(queryFeed(small, { since: 1000, limit: 2 })).toEqual({
      items: [small[1]?.event, small[2]?.event],
      nextCursor: null,
      latest: 1002,
    });
    expect(queryFeed(small, { since: 2000, limit: 20 })).toEqual({
      items: [],
      nextCursor: null,
      latest: null,
    });
  });

  it('without since: newest first, nextCursor = oldest change time on the page, null on the last page', () => {
    const first = queryFeed(small, { limit: 2 });
    expect(ids(first)).toEqual(['e', 'd']);
    expect(first).toMatchObject({ nextCursor: 1003, latest: 2000 });
    const second = queryFeed(small, { before: 1003, limit: 2 });
    expect(ids(second)).toEqual(['c', 'b']);
    expect(second.nextCursor).toBe(1001);
    const last = queryFeed(small, { before: 1001, limit: 2 });
    expect(ids(last)).toEqual(['a']);
    expect(last.nextCursor).toBeNull();
  });

  it('gives nextCursor null when the page ends exactly at the oldest item', () => {
    expect(queryFeed(small, { before: 1002, limit: 2 })).toMatchObject({ nextCursor: null, latest: 1001 });
  });

  it('with since and before: the open interval between them, oldest first', () => {
    expect(ids(queryFeed(small, { since: 1000, before: 2000, limit: 20 }))).toEqual(['b', 'c', 'd']);
    expect(ids(queryFeed(small, { since: 1000, before: 1001, limit: 20 }))).toEqual([]);
  });

  it('filters by type and by vendor slug (case-insensitive) before paging', () => {
    expect(ids(queryFeed(small, { type: 'price_change', limit: 1 }))).toEqual(['c']);
    expect(queryFeed(small, { type: 'price_change', limit: 1 }).nextCursor).toBe(1002);
    expect(ids(queryFeed(small, { model: 'OPENAI', limit: 20 }))).toEqual(['d', 'c']);
    expect(ids(queryFeed(small, { model: 'anthropic', since: 0, limit: 20 }))).toEqual(['a']);
  });
});

describe('changeVerification', () => {
  it('moves a pending item to the end with a new change time and the new status', () => {
    const changed = changeVerification(small, 'd', 'official', 0);
    expect(changed.at(-1)).toMatchObject({
      changeTime: 2001,
      event: { id: 'd', verificationStatus: 'official' },
    });
    expect(changed.at(-1)?.event.official).toBe(true);
    expect(changed.map((entry) => entry.event.id)).toEqual(['a', 'b', 'c', 'e', 'd']);
    expect(small[3]?.event.verificationStatus).toBe('pending');
  });

  it('uses the current second when it is later than every change time', () => {
    const changed = changeVerification(small, 'd', 'rejected', 5000.7);
    expect(changed.at(-1)).toMatchObject({
      changeTime: 5000,
      event: { verificationStatus: 'rejected', official: false },
    });
  });

  it('makes the item reappear for a poller that had caught up', () => {
    const { latest } = pollAll(small, { limit: 3 });
    const changed = changeVerification(small, 'd', 'official', 0);
    expect(pollAll(changed, { limit: 3 }, latest).ids).toEqual(['d']);
  });

  it('refuses unknown ids and items that are not pending', () => {
    expect(() => changeVerification(small, 'nope', 'official', 0)).toThrow(/no change event/);
    expect(() => changeVerification(small, 'a', 'rejected', 0)).toThrow(/only pending/);
  });
});

describe('publishChange', () => {
  it('appends with max(floor(now), newest change time + 1), never before detectedAt', () => {
    const late = publishChange(small, makeEvent({ id: 'f', detectedAtSec: 4000 }), 5000.7);
    expect(late.at(-1)).toMatchObject({ changeTime: 5000, event: { id: 'f' } });
    const burst = publishChange(late, makeEvent({ id: 'g', detectedAtSec: 5000 }), 5000.2);
    expect(burst.at(-1)).toMatchObject({ changeTime: 5001, event: { id: 'g' } });
    const early = publishChange(small, makeEvent({ id: 'h', detectedAtSec: 3000 }), 0);
    expect(early.at(-1)?.changeTime).toBe(3000);
    expect(small).toHaveLength(5);
  });

  it('publishChanges gives a batch the times one-by-one publishing would, and a caught-up poller all of it', () => {
    const events = ['p', 'q', 'r'].map((id) => makeEvent({ id, detectedAtSec: 2000 }));
    const oneByOne = events.reduce((feed, event) => publishChange(feed, event, 2000), small);
    expect(publishChanges(small, events, 2000)).toEqual(oneByOne);
    expect(oneByOne.slice(-3).map((entry) => entry.changeTime)).toEqual([2001, 2002, 2003]);
    const { latest } = pollAll(small, { limit: 2 });
    expect(pollAll(oneByOne, { limit: 2 }, latest).ids).toEqual(['p', 'q', 'r']);
  });
});

describe('the real data set', () => {
  const feed = createFeed(buildDataset(loadBundledData()).events);

  it('has 10 events detected in one second', () => {
    const counts = new Map<number, number>();
    for (const entry of feed) {
      const second = detectedAtSeconds(entry.event);
      counts.set(second, (counts.get(second) ?? 0) + 1);
    }
    expect(Math.max(...counts.values())).toBe(10);
  });

  it('polling since=latest at limit=2 sees all 53 events once, in change-time order', () => {
    const seen = pollAll(feed, { limit: 2 }).ids;
    expect(seen).toHaveLength(53);
    expect(seen).toEqual(feed.map((entry) => entry.event.id));
  });
});
