import { describe, expect, it } from 'vitest';
import { type AttentionEvent, computeAttention } from '../../src/service-rules/attention.js';

const REFERENCE = 1_800_000_000;
const DAY = 86_400;

function event(catalogId: string, daysAgo: number, official = true): AttentionEvent {
  const vendorSlug = catalogId.split('/')[0] ?? '';
  return { catalogId, vendorSlug, detectedAtSec: REFERENCE - daysAgo * DAY, official };
}

describe('computeAttention', () => {
  it('scores novelty 50 for a model listed at the reference date, halving every 180 days', () => {
    const attention = computeAttention(
      [
        { id: 'a/new', vendorSlug: 'a', listedAt: REFERENCE },
        { id: 'b/old', vendorSlug: 'b', listedAt: REFERENCE - 180 * DAY },
        { id: 'c/unknown', vendorSlug: 'c', listedAt: null },
      ],
      [],
      REFERENCE,
    );
    expect(attention.get('a/new')).toEqual({ rank: 1, score: 50, newsCount: 0, opinions: 0 });
    expect(attention.get('b/old')).toEqual({ rank: 2, score: 25, newsCount: 0, opinions: 0 });
    expect(attention.get('c/unknown')).toEqual({ rank: 3, score: 0, newsCount: 0, opinions: 0 });
  });

  it('adds news (20 each, half-life 90 days), opinions (10 each) and vendor activity (5 each)', () => {
    const events = [event('a/x', 0), event('a/x', 90, false), event('a/other', 0)];
    const attention = computeAttention([{ id: 'a/x', vendorSlug: 'a', listedAt: null }], events, REFERENCE);
    // news 20·(1 + 0.5) + opinions 10·1 + vendor 5·(1 + 0.5 + 1)
    expect(attention.get('a/x')).toEqual({ rank: 1, score: 52.5, newsCount: 2, opinions: 1 });
  });

  it('ranks equal scores by id, whatever the input order', () => {
    const subjects = ['m/b', 'm/c', 'm/a'].map((id) => ({ id, vendorSlug: 'm', listedAt: REFERENCE }));
    const attention = computeAttention(subjects, [], REFERENCE);
    expect(['m/a', 'm/b', 'm/c'].map((id) => attention.get(id)?.rank)).toEqual([1, 2, 3]);
  });
});
