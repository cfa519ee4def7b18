/**
 * Snapshot commits for the store's tests, in the shapes a refresh writes: events as the service
 * sends them (its ChangeEvent), a price point per moved price, one poll record.
 */

import type { ChangeEvent } from '../../../src/api/schemas.js';
import type { SnapshotCommit, StoredPricePoint } from '../../../src/public/store/store.js';

/** 2027-01-15T08:00:00Z: any second will do, as long as every test counts from it. */
export const T0 = 1_800_000_000;

export function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

// Facts from the aggregator's catalog: deepseek/deepseek-v4-flash, its price on 2026-08-20.
export function event(id: string, detectedAt: number | string, verification = 'pending'): ChangeEvent {
  return {
    id,
    eventType: 'price_change',
    title: 'DeepSeek V4 Flash input price changed',
    summary: 'Input price changed from $0.0826 to $0.09 per 1M tokens.',
    beforeValue: '0.0826',
    afterValue: '0.09',
    sourceUrl: 'https://openrouter.ai/deepseek/deepseek-v4-flash',
    sourceName: 'OpenRouter',
    verificationStatus: verification,
    official: false,
    detectedAt: typeof detectedAt === 'number' ? iso(detectedAt) : detectedAt,
    publishedAt: null,
    model: { slug: 'deepseek-v4-flash', name: 'DeepSeek V4 Flash', company: 'DeepSeek', accentColor: null },
  };
}

export function price(id: string, observedAt: number, input: number | null = 0.0826): StoredPricePoint {
  return { id, inputPrice: input, outputPrice: 0.1652, observedAt };
}

export interface TestState {
  readonly n: number;
  readonly by: string;
}

export function commit(
  takenAt: number,
  events: ChangeEvent[] = [],
  prices: StoredPricePoint[] = [],
  state: TestState = { n: 0, by: 'test' },
): SnapshotCommit<TestState> {
  return {
    takenAt,
    state,
    events,
    prices,
    poll: { takenAt, origins: { openrouter: 'ok', 'models.dev': 'off' } },
  };
}

/**
 * The n-th commit of a writer named `by`: two events of its own and a price point; with
 * `republish`, the first event of commit n - 1 again (its verification moved), as a refresh does.
 */
export function nthCommit(by: string, n: number, republish: boolean): SnapshotCommit<TestState> {
  const takenAt = T0 + n * 60;
  const events = [event(`${by}-${n}-a`, takenAt - 30), event(`${by}-${n}-b`, takenAt - 30)];
  if (republish && n > 1) events.push(event(`${by}-${n - 1}-a`, takenAt - 90, 'official'));
  return commit(takenAt, events, [price(`model-${n % 3}`, takenAt, n)], { n, by });
}
