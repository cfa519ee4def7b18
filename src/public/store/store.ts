/**
 * Where the public feed is recorded: one small interface, so that files on this machine (the only
 * backend today) and, later, a database a team's mirrors share can stand behind it alike.
 *
 * The store keeps what a refresh produced, never the raw answers: the diff's own state (replaced
 * each time), the events (appended: the feed), price points (appended only when a price moves) and
 * one short record per poll. So it grows with changes, not with polls.
 */

import type { ChangeEvent } from '../../api/schemas.js';

/** One event as the feed holds it. Change times are unique across the store and only grow. */
export interface StoredEvent {
  readonly changeTime: number;
  readonly event: ChangeEvent;
}

/** A price that held from `observedAt` until the next point of the same id. */
export interface StoredPricePoint {
  readonly id: string;
  readonly inputPrice: number | null;
  readonly outputPrice: number | null;
  readonly observedAt: number;
}

/** One fetch, kept even when nothing changed: a few hundred bytes at most. */
export interface PollRecord {
  /** Unix seconds. */
  readonly takenAt: number;
  /** Per origin name: `ok`, `off`, or a short reason it failed (`timeout`, `HTTP 503`). */
  readonly origins: Readonly<Record<string, string>>;
}

export interface StoreHead<S> {
  /** Unix seconds of the newest snapshot. */
  readonly takenAt: number;
  /** Unix seconds of the first snapshot: when this machine began to record. */
  readonly recordingSince: number;
  /** The greatest change time given so far; 0 before the first event. */
  readonly lastChangeTime: number;
  readonly lastPoll: PollRecord;
  /** How many polls were recorded. */
  readonly polls: number;
  /** The caller's own state after the newest snapshot (JSON-serialisable), as it was appended. */
  readonly state: S;
}

export interface SnapshotCommit<S> {
  readonly takenAt: number;
  readonly state: S;
  /**
   * In the order they happened. An id new to the store gets the change time
   * max(detectedAt in whole seconds, lastChangeTime + 1); an id already stored (its verification
   * moved) is published again at max(takenAt, lastChangeTime + 1), and the feed then holds it once,
   * at its new change time.
   */
  readonly events: readonly ChangeEvent[];
  readonly prices: readonly StoredPricePoint[];
  readonly poll: PollRecord;
}

export interface PublicStore<S> {
  /** The newest head, or null when nothing was recorded yet (or the record is unreadable). */
  readHead(signal?: AbortSignal): Promise<StoreHead<S> | null>;
  /** Whether anything was ever recorded here, even where its head cannot be read now. */
  hasRecord(signal?: AbortSignal): Promise<boolean>;
  /** The whole feed in ascending change time, one entry per event id (its latest publication). */
  readFeed(signal?: AbortSignal): Promise<readonly StoredEvent[]>;
  /** Every recorded price point, by id, oldest first. */
  readPrices(signal?: AbortSignal): Promise<ReadonlyMap<string, readonly StoredPricePoint[]>>;
  /**
   * Records one snapshot. Only inside `withFetchLock`. Atomic: after a crash at any point readers
   * see the store as it was before the call or as it is after, never a part.
   */
  append(commit: SnapshotCommit<S>, signal?: AbortSignal): Promise<StoreHead<S>>;
  /**
   * Runs `work` while no other process (or caller in this one) refreshes the same store: a second
   * caller waits for the first to finish, then runs its own `work` (which should read the head
   * again: the first caller may have made its fetch unnecessary).
   */
  withFetchLock<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}
