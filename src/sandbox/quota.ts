import type { Tier } from './keys.js';

/** Calls per UTC day. free: service.md; pro: runner.md (the service leaves it unstated). */
export const DAILY_LIMITS: Readonly<Record<Tier, number>> = { free: 1000, pro: 100_000 };

const DAY_MS = 86_400_000;

export interface QuotaDecision {
  allowed: boolean;
  tier: Tier;
  limit: number;
  /** Calls left today after this one. */
  remaining: number;
  /** Whole seconds until the count resets at the next 00:00 UTC; at least 1. */
  retryAfter: number;
}

/** Counts calls per key hash and UTC day; the clock is passed in so tests can cross midnight. */
export class DailyQuota {
  private readonly usage = new Map<string, { day: number; count: number }>();

  /** Counts one call unless today's limit is already reached (a refused call is not counted). */
  consume(keyHash: string, tier: Tier, nowMs: number): QuotaDecision {
    const day = Math.floor(nowMs / DAY_MS);
    const limit = DAILY_LIMITS[tier];
    const stored = this.usage.get(keyHash);
    const usage = stored !== undefined && stored.day === day ? stored : { day, count: 0 };
    const allowed = usage.count < limit;
    if (allowed) usage.count += 1;
    this.usage.set(keyHash, usage);
    const retryAfter = Math.max(1, Math.ceil(((day + 1) * DAY_MS - nowMs) / 1000));
    return { allowed, tier, limit, remaining: Math.max(0, limit - usage.count), retryAfter };
  }
}
