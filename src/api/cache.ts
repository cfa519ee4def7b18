/**
 * Spends the user's quota only when needed: identical reads in flight share one request, and
 * catalog reads are kept for a TTL. A shared request is aborted only when every caller waiting on
 * it has cancelled. The change feed passes `ttlMs: 0`: it is coalesced, never served stale.
 */

import { AbortedError } from '../errors.js';

interface Shared {
  promise: Promise<unknown>;
  controller: AbortController;
  waiters: number;
}

export class ReadCache {
  private readonly entries = new Map<string, { value: unknown; expires: number }>();
  private readonly inflight = new Map<string, Shared>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Bounds memory whatever callers ask for; the oldest entry goes first. */
    private readonly maxEntries = 256,
  ) {}

  async read<T>(
    key: string,
    ttlMs: number,
    load: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (ttlMs > 0) {
      const hit = this.entries.get(key);
      if (hit && hit.expires > this.now()) return hit.value as T;
      if (hit) this.entries.delete(key);
    }
    const value = await this.join(key, load, signal);
    if (ttlMs > 0) this.store(key, value, ttlMs);
    return value;
  }

  private store(key: string, value: unknown, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  private join<T>(key: string, load: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(new AbortedError());
    let shared = this.inflight.get(key);
    if (!shared) {
      const controller = new AbortController();
      const promise = load(controller.signal).finally(() => {
        if (this.inflight.get(key) === created) this.inflight.delete(key);
      });
      // Every waiter may leave before it settles; the rejection must not go unhandled then.
      promise.catch(() => {});
      const created: Shared = { promise, controller, waiters: 0 };
      shared = created;
      this.inflight.set(key, created);
    }
    const current = shared;
    current.waiters++;
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        current.waiters--;
        if (current.waiters === 0) {
          this.inflight.delete(key);
          current.controller.abort();
        }
        reject(new AbortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      current.promise.then(
        (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value as T);
        },
        (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }
}
