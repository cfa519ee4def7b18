import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hashKey, KeyStore } from '../../src/sandbox/keys.js';
import { DAILY_LIMITS, DailyQuota } from '../../src/sandbox/quota.js';

const KEY = 'mfsk_test_0123456789abcdef';

describe('KeyStore', () => {
  it('accepts a bearer key it holds, with its tier', () => {
    const store = new KeyStore();
    store.add(KEY, 'pro');
    expect(store.authenticate(`Bearer ${KEY}`)).toEqual({
      ok: true,
      key: KEY,
      keyHash: hashKey(KEY),
      tier: 'pro',
    });
    expect(store.authenticate(`bearer   ${KEY} `)).toMatchObject({ ok: true });
  });

  it('tells a missing header from a malformed one and from a wrong or revoked key', () => {
    const store = new KeyStore();
    store.add(KEY, 'free');
    expect(store.authenticate(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(store.authenticate('  ')).toEqual({ ok: false, reason: 'missing' });
    expect(store.authenticate(KEY)).toEqual({ ok: false, reason: 'malformed' });
    expect(store.authenticate(`Basic ${KEY}`)).toEqual({ ok: false, reason: 'malformed' });
    expect(store.authenticate('Bearer ')).toEqual({ ok: false, reason: 'malformed' });
    expect(store.authenticate('Bearer mfsk_other')).toEqual({ ok: false, reason: 'unknown' });
    store.revoke(KEY);
    expect(store.authenticate(`Bearer ${KEY}`)).toEqual({ ok: false, reason: 'unknown' });
    store.add(KEY, 'free');
    expect(store.authenticate(`Bearer ${KEY}`)).toMatchObject({ ok: true });
  });

  it('keeps only SHA-256 hashes of the keys', () => {
    const store = new KeyStore();
    store.add(KEY, 'free');
    store.add('mfsk_second_key', 'pro');
    store.revoke('mfsk_second_key');
    const everything = inspect(store, { depth: Number.POSITIVE_INFINITY, showHidden: true });
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain('mfsk_second_key');
    expect(everything).toContain(hashKey(KEY));
    expect(hashKey(KEY)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a key that cannot travel in a bearer header', () => {
    expect(() => new KeyStore().add('has space', 'free')).toThrow(/printable ASCII/);
    expect(() => new KeyStore().add('', 'free')).toThrow(/printable ASCII/);
  });
});

describe('DailyQuota', () => {
  const noon = Date.UTC(2026, 6, 1, 12, 0, 0);

  it('allows 1000 calls a day on free and 100000 on pro', () => {
    expect(DAILY_LIMITS).toEqual({ free: 1000, pro: 100_000 });
    const quota = new DailyQuota();
    expect(quota.consume('k', 'free', noon)).toMatchObject({ allowed: true, limit: 1000, remaining: 999 });
    expect(quota.consume('p', 'pro', noon)).toMatchObject({
      allowed: true,
      limit: 100_000,
      remaining: 99_999,
    });
  });

  it('refuses call 1001 without counting it, with the seconds until 00:00 UTC', () => {
    const quota = new DailyQuota();
    for (let call = 1; call <= 1000; call++) expect(quota.consume('k', 'free', noon).allowed).toBe(true);
    const refused = quota.consume('k', 'free', noon + 500);
    expect(refused).toEqual({ allowed: false, tier: 'free', limit: 1000, remaining: 0, retryAfter: 43_200 });
    expect(quota.consume('k', 'free', Date.UTC(2026, 6, 1, 23, 59, 59, 999)).retryAfter).toBe(1);
    expect(quota.consume('other', 'free', noon).allowed).toBe(true);
  });

  it('starts a new count at 00:00 UTC', () => {
    const quota = new DailyQuota();
    for (let call = 1; call <= 1001; call++) quota.consume('k', 'free', noon);
    expect(quota.consume('k', 'free', Date.UTC(2026, 6, 2, 0, 0, 0))).toMatchObject({
      allowed: true,
      remaining: 999,
    });
  });
});
