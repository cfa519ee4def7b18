import { describe, expect, it } from 'vitest';
import { isRunningLow, MAX_RETRY_AFTER_S, parseRetryAfter, readRateLimit } from '../../src/api/rate-limit.js';
import { attemptBudgetMs, backoffMs, isRetryableStatus } from '../../src/api/retry.js';

const now = Date.parse('2026-11-22T12:00:00Z');

describe('rate-limit headers', () => {
  it('reads the three headers', () => {
    const headers = new Headers({
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '12',
      'x-service-tier': 'free',
    });
    expect(readRateLimit(headers, now)).toEqual({
      limit: 1000,
      remaining: 12,
      tier: 'free',
      observedAt: '2026-11-22T12:00:00.000Z',
    });
  });

  it('is undefined when none is present, and ignores garbage', () => {
    expect(readRateLimit(new Headers(), now)).toBeUndefined();
    expect(
      readRateLimit(new Headers({ 'x-ratelimit-limit': 'lots', 'x-service-tier': 'pro' }), now),
    ).toMatchObject({ limit: null, tier: 'pro' });
  });

  it('is running low under 5% remaining', () => {
    const info = (remaining: number) => ({ limit: 1000, remaining, tier: 'free', observedAt: '' });
    expect(isRunningLow(info(49))).toBe(true);
    expect(isRunningLow(info(50))).toBe(false);
    expect(isRunningLow(undefined)).toBe(false);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 12:01:00 GMT', now)).toBe(60);
  });
  it('clamps to at least 1 s and at most a day and a bit', () => {
    expect(parseRetryAfter('0', now)).toBe(1);
    expect(parseRetryAfter('99999999', now)).toBe(MAX_RETRY_AFTER_S);
  });
  it('ignores what it cannot read', () => {
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('retry policy', () => {
  it('retries only gateway statuses', () => {
    expect([500, 501, 502, 503, 504, 429].map(isRetryableStatus)).toEqual([
      false,
      false,
      true,
      true,
      true,
      false,
    ]);
  });
  it('backs off exponentially with jitter, capped', () => {
    expect(backoffMs(1, () => 0)).toBe(100);
    expect(backoffMs(1, () => 1)).toBe(200);
    expect(backoffMs(2, () => 0)).toBe(200);
    expect(backoffMs(10, () => 1)).toBe(2000);
  });
  it('gives an attempt half the timeout, at least 1 s, never more than is left', () => {
    expect(attemptBudgetMs(15000, 15000)).toBe(7500);
    expect(attemptBudgetMs(1000, 1000)).toBe(1000);
    expect(attemptBudgetMs(15000, 300)).toBe(300);
  });
});
