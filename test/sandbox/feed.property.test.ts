import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  changeVerification,
  createFeed,
  detectedAtSeconds,
  type Feed,
  type FeedEntry,
  publishChange,
} from '../../src/sandbox/feed.js';
import { EVENT_TYPES } from '../../src/sandbox/types.js';
import { type FeedQuery, queryFeed } from '../../src/service-rules/feed-query.js';
import { makeEvent } from './fixtures.js';

const BASE = 1_750_000_000;
const SLUGS = ['openai', 'anthropic', 'deepseek'];
const NUM_RUNS = 300;

// Mostly a handful of seconds, so that many items share one and their spill runs into the next ones.
const eventsArb = fc.uniqueArray(
  fc.record({
    id: fc.uuid(),
    offset: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 300 })),
    eventType: fc.constantFrom(...EVENT_TYPES),
    slug: fc.constantFrom(...SLUGS),
    status: fc.constantFrom('official' as const, 'pending' as const),
  }),
  { selector: (spec) => spec.id, maxLength: 150 },
);

const feedArb = eventsArb.map((specs) =>
  createFeed(specs.map((spec) => makeEvent({ ...spec, detectedAtSec: BASE + spec.offset }))),
);

const filterArb = fc.record({
  limit: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 100 })),
  type: fc.option(fc.constantFrom(...EVENT_TYPES), { nil: undefined }),
  model: fc.option(fc.constantFrom('openai', 'ANTHROPIC', 'deepseek', 'nobody'), { nil: undefined }),
});

type Filter = Omit<FeedQuery, 'since' | 'before'>;

function matching(feed: Feed, filter: Filter): FeedEntry[] {
  return feed.filter(
    (entry) =>
      (filter.type === undefined || entry.event.eventType === filter.type) &&
      (filter.model === undefined || entry.event.model.slug === filter.model.toLowerCase()),
  );
}

/** Polls with since=latest from `since` until nothing new comes; fails if it would loop. */
function poll(feed: Feed, filter: Filter, since = 0): { ids: string[]; latest: number } {
  const ids: string[] = [];
  let cursor = since;
  for (let round = 0; round <= feed.length + 1; round++) {
    const page = queryFeed(feed, { ...filter, since: cursor });
    expect(page.items.length).toBeLessThanOrEqual(filter.limit);
    if (page.latest === null) return { ids, latest: cursor };
    expect(page.latest).toBeGreaterThan(cursor);
    ids.push(...page.items.map((item) => item.id));
    cursor = page.latest;
  }
  throw new Error('polling did not terminate');
}

/** Pages with before=nextCursor from the newest item; fails if it would loop. */
function pageBack(feed: Feed, filter: Filter): string[] {
  const ids: string[] = [];
  let before: number | undefined;
  for (let round = 0; round <= feed.length + 1; round++) {
    const page = queryFeed(feed, { ...filter, before });
    expect(page.items.length).toBeLessThanOrEqual(filter.limit);
    ids.push(...page.items.map((item) => item.id));
    if (page.nextCursor === null) return ids;
    expect(page.items).toHaveLength(filter.limit);
    before = page.nextCursor;
  }
  throw new Error('paging did not terminate');
}

function expectUniqueChangeTimesNotBeforeDetection(feed: Feed): void {
  const times = feed.map((entry) => entry.changeTime);
  expect(new Set(times).size).toBe(times.length);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  for (const entry of feed) expect(entry.changeTime).toBeGreaterThanOrEqual(detectedAtSeconds(entry.event));
}

describe('feed invariants (property-based)', () => {
  it('(a) polling since=0, then since=latest, visits every matching item once, in change-time order', () => {
    fc.assert(
      fc.property(feedArb, filterArb, (feed, filter) => {
        const expected = matching(feed, filter).map((entry) => entry.event.id);
        expect(poll(feed, filter).ids).toEqual(expected);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('(b) paging with before=nextCursor from the top visits every matching item once, newest first', () => {
    fc.assert(
      fc.property(feedArb, filterArb, (feed, filter) => {
        const expected = matching(feed, filter)
          .map((entry) => entry.event.id)
          .reverse();
        expect(pageBack(feed, filter)).toEqual(expected);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('(c) after a verification change, a poller that had caught up sees the changed item again', () => {
    fc.assert(
      fc.property(
        feedArb,
        fc.nat(),
        fc.constantFrom('official' as const, 'rejected' as const),
        fc.integer({ min: BASE - 1000, max: BASE + 1000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.constantFrom('none', 'type', 'model'),
        (feed, pick, status, nowSec, limit, filterBy) => {
          const pending = feed.filter((entry) => entry.event.verificationStatus === 'pending');
          fc.pre(pending.length > 0);
          const target = pending[pick % pending.length]?.event;
          if (target === undefined) return;
          const filter: Filter = {
            limit,
            type: filterBy === 'type' ? target.eventType : undefined,
            model: filterBy === 'model' ? target.model.slug.toUpperCase() : undefined,
          };
          const { latest } = poll(feed, filter);
          const changed = changeVerification(feed, target.id, status, nowSec);
          const page = queryFeed(changed, { ...filter, since: latest });
          expect(page.items).toEqual([
            { ...target, verificationStatus: status, official: status === 'official' },
          ]);
          expect(poll(changed, filter, latest).ids).toEqual([target.id]);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('(d) change times are unique and never before detectedAt, also after verification changes', () => {
    fc.assert(
      fc.property(feedArb, fc.array(fc.nat(), { maxLength: 10 }), (feed, picks) => {
        expectUniqueChangeTimesNotBeforeDetection(feed);
        let current = feed;
        for (const pick of picks) {
          const pending = current.filter((entry) => entry.event.verificationStatus === 'pending');
          const target = pending[pick % Math.max(1, pending.length)];
          if (target === undefined) break;
          current = changeVerification(current, target.event.id, pick % 2 ? 'official' : 'rejected', BASE);
          expectUniqueChangeTimesNotBeforeDetection(current);
        }
        expect(current).toHaveLength(feed.length);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('since with before gives exactly the matching items strictly between them, oldest first', () => {
    fc.assert(
      fc.property(
        feedArb,
        filterArb,
        fc.integer({ min: BASE - 2, max: BASE + 320 }),
        fc.integer({ min: 0, max: 200 }),
        (feed, filter, since, width) => {
          const before = since + width;
          const expected = matching(feed, filter)
            .filter((entry) => entry.changeTime > since && entry.changeTime < before)
            .slice(0, filter.limit)
            .map((entry) => entry.event.id);
          expect(queryFeed(feed, { ...filter, since, before }).items.map((item) => item.id)).toEqual(
            expected,
          );
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('(e) published events keep change times unique and reach a caught-up poller exactly once, in order', () => {
    fc.assert(
      fc.property(
        feedArb,
        filterArb,
        fc.array(fc.record({ offset: fc.integer({ min: -5, max: 400 }), slug: fc.constantFrom(...SLUGS) }), {
          maxLength: 30,
        }),
        fc.integer({ min: BASE - 10, max: BASE + 400 }),
        (feed, filter, specs, nowSec) => {
          const { latest } = poll(feed, filter);
          let current = feed;
          const published = specs.map((spec, index) =>
            makeEvent({
              id: `published-${index}`,
              detectedAtSec: nowSec + Math.min(0, spec.offset),
              slug: spec.slug,
            }),
          );
          for (const event of published) current = publishChange(current, event, nowSec);
          expectUniqueChangeTimesNotBeforeDetection(current);
          const expected = matching(current.slice(feed.length), filter).map((entry) => entry.event.id);
          expect(poll(current, filter, latest).ids).toEqual(expected);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
