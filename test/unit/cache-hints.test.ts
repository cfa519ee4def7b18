/** The 2026-07-28 cache hints as pure rules, and the read cache's expiry they are read from. */

import { describe, expect, it } from 'vitest';
import { ReadCache } from '../../src/api/cache.js';
import { changesFreshMs, LIST_CACHE_HINTS, readHint } from '../../src/resources/cache-hints.js';

const tier = (limit: number, name: string) => ({ limit, remaining: limit, tier: name, observedAt: '' });

describe('readHint', () => {
  it('is private and fresh for what is left, never negative, 0 when unknown', () => {
    expect(readHint(1_060_000, 1_000_000)).toEqual({ ttlMs: 60_000, cacheScope: 'private' });
    expect(readHint(999_000, 1_000_000)).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(readHint(Number.POSITIVE_INFINITY, 1_000_000)).toEqual({ ttlMs: 0, cacheScope: 'private' });
  });
});

describe('changesFreshMs', () => {
  it('is the poll interval, never past the cache lifetime, 0 with the cache off', () => {
    expect(changesFreshMs({ rateLimit: tier(100_000, 'pro'), cacheTtlMs: 60_000 }, undefined)).toBe(4000);
    // The free tier polls every 346 s; a read is kept 60 s at most.
    expect(changesFreshMs({ rateLimit: tier(1000, 'free'), cacheTtlMs: 60_000 }, undefined)).toBe(60_000);
    // Before any answer the free tier is assumed.
    expect(changesFreshMs({ rateLimit: undefined, cacheTtlMs: 600_000 }, undefined)).toBe(346_000);
    expect(changesFreshMs({ rateLimit: tier(100_000, 'pro'), cacheTtlMs: 60_000 }, 10)).toBe(10_000);
    expect(changesFreshMs({ rateLimit: tier(100_000, 'pro'), cacheTtlMs: 0 }, undefined)).toBe(0);
    expect(changesFreshMs({ rateLimit: tier(100_000, 'pro') }, undefined)).toBe(0);
  });
});

it('the lists and discovery are public and fresh for a positive time', () => {
  for (const hint of Object.values(LIST_CACHE_HINTS)) {
    expect(hint.cacheScope).toBe('public');
    expect(hint.ttlMs).toBeGreaterThan(0);
  }
  expect(Object.keys(LIST_CACHE_HINTS).sort()).toEqual([
    'prompts/list',
    'resources/list',
    'resources/templates/list',
    'server/discover',
    'tools/list',
  ]);
});

describe('ReadCache.expiresAt', () => {
  it('is when the stored answer expires; undefined once expired, when not kept, or with a ttl of 0', async () => {
    let now = 1_000_000;
    const cache = new ReadCache(() => now);
    const load = async () => ({ value: 'v', bytes: 1 });
    await cache.read('kept', 60_000, load);
    await cache.read('not kept', 0, load);
    expect(cache.expiresAt('kept')).toBe(1_060_000);
    expect(cache.expiresAt('not kept')).toBeUndefined();
    now = 1_060_000;
    expect(cache.expiresAt('kept')).toBeUndefined();
  });
});
