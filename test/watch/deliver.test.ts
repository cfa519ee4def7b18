/**
 * Retry timing of a delivery: the pure backoff within its bounds, and a receiver's `retry-after`
 * honoured, on a fake clock.
 */

import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { deliveryBackoffMs, MAX_DELIVERY_WAIT_MS, withRetries } from '../../src/watch/deliver.js';

describe('deliveryBackoffMs', () => {
  const randoms = [0, 0.01, 0.25, 0.5, 0.75, 0.99, 1];

  it('doubles from 1 s to a cap of 60 s, with the upper half of each step random', () => {
    for (let attempts = 1; attempts <= 20; attempts++) {
      const ceiling = Math.min(60_000, 1000 * 2 ** (attempts - 1));
      for (const random of randoms) {
        const wait = deliveryBackoffMs(attempts, () => random);
        expect(wait).toBeGreaterThanOrEqual(ceiling / 2);
        expect(wait).toBeLessThanOrEqual(ceiling);
      }
      expect(deliveryBackoffMs(attempts, () => 0)).toBe(ceiling / 2);
      expect(deliveryBackoffMs(attempts, () => 1)).toBe(ceiling);
    }
    expect(deliveryBackoffMs(7, () => 1)).toBe(60_000);
    expect(deliveryBackoffMs(1000, () => 1)).toBe(60_000);
  });

  it('spreads watchers that failed together across the random half', () => {
    const waits = new Set(randoms.map((random) => deliveryBackoffMs(4, () => random)));
    expect(waits.size).toBe(randoms.length);
  });
});

/** A clock that moves only when the retry loop sleeps, and what each attempt saw of it. */
function fakeRetries(failures: (attempt: number) => Error | undefined) {
  let now = 0;
  const attemptsAt: number[] = [];
  const waits: number[] = [];
  const warnings: string[] = [];
  const policy = {
    maxAttempts: 10,
    random: () => 1,
    sleep: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    log: { ...silentLogger, warn: (message: string) => void warnings.push(message) },
    cursorSaved: true,
  };
  const attempt = async () => {
    attemptsAt.push(now);
    const error = failures(attemptsAt.length);
    if (error) throw error;
  };
  return { policy, attempt, attemptsAt, waits, warnings };
}

describe('withRetries and the receiver’s retry-after', () => {
  const signal = new AbortController().signal;

  it('makes no attempt before retry-after has passed, when it is longer than the backoff', async () => {
    const run = fakeRetries((n) => (n === 1 ? new DeliveryError('HTTP 429', false, 30_000) : undefined));
    await withRetries('delivery', run.attempt, run.policy, signal);
    expect(run.attemptsAt).toEqual([0, 30_000]);
    expect(run.warnings[0]).toContain('trying again in 30 s');
  });

  it('keeps to the backoff when retry-after is shorter', async () => {
    const run = fakeRetries((n) => (n <= 3 ? new DeliveryError('HTTP 503', false, 100) : undefined));
    await withRetries('delivery', run.attempt, run.policy, signal);
    // random 1: the top of each step, 1 s, 2 s, 4 s.
    expect(run.waits).toEqual([1000, 2000, 4000]);
  });

  it('waits at most an hour, whatever the receiver asks', async () => {
    const run = fakeRetries((n) => (n === 1 ? new DeliveryError('HTTP 429', false, 86_400_000) : undefined));
    await withRetries('delivery', run.attempt, run.policy, signal);
    expect(run.waits).toEqual([MAX_DELIVERY_WAIT_MS]);
  });
});
