/**
 * Spends the user's quota only when needed: identical reads in flight share one request, and
 * catalog reads are kept for a TTL. A shared request is aborted only when every caller waiting on
 * it has cancelled. The change feed passes `ttlMs: 0`: it is coalesced, never served stale.
 *
 * Memory is bounded by bytes, not by a count of entries: 256 answers of 10 MiB each once took the
 * process to 3.7 GB. Each entry counts the bytes its loader says it costs (the API client: twice the
 * length of the body it was parsed from), counted when it is stored; the oldest go first, and an
 * answer larger than the whole budget is not kept at all.
 */

import { AbortedError } from '../errors.js';

/** A loaded value with the size it is counted as. */
export interface Sized<T> {
  value: T;
  bytes: number;
  /** When it stops being fresh (epoch ms), if not `ttlMs` from now: an answer another process stored earlier. */
  expires?: number;
}

/**
 * @default for `maxBytes`: a catalog answer is tens of KB, so this holds thousands of them. What is
 * counted is what each loader declares, summed over stored entries (never an in-flight read, never
 * a stale answer, which is not stored): for the API client, twice the body's length in characters
 * as decoded, an estimate of the parsed value plus the garbage it leaves (client.ts), not a
 * measurement of the heap.
 */
export const DEFAULT_CACHE_MAX_BYTES = 32 * 1024 * 1024;

interface Shared {
  promise: Promise<unknown>;
  controller: AbortController;
  waiters: number;
}

export class ReadCache {
  private readonly entries = new Map<string, { value: unknown; bytes: number; expires: number }>();
  private readonly inflight = new Map<string, Shared>();
  private storedBytes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    /** Bounds memory whatever callers ask for; the oldest entry goes first. */
    private readonly maxBytes = DEFAULT_CACHE_MAX_BYTES,
  ) {}

  /** What the stored entries count for, in bytes (at most `maxBytes`). */
  get bytes(): number {
    return this.storedBytes;
  }

  async read<T>(
    key: string,
    ttlMs: number,
    load: (signal: AbortSignal) => Promise<Sized<T>>,
    signal?: AbortSignal,
  ): Promise<T> {
    if (ttlMs > 0) {
      const hit = this.entries.get(key);
      if (hit && hit.expires > this.now()) return hit.value as T;
      if (hit) this.remove(key);
    }
    const loaded = await this.join(key, load, signal);
    if (ttlMs > 0) this.store(key, loaded, loaded.expires ?? this.now() + ttlMs);
    return loaded.value;
  }

  /** When the stored answer for `key` stops being fresh (epoch ms); undefined when none is stored. */
  expiresAt(key: string): number | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expires > this.now() ? entry.expires : undefined;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.storedBytes -= entry.bytes;
  }

  private store(key: string, { value, bytes }: Sized<unknown>, expires: number): void {
    this.remove(key);
    if (bytes > this.maxBytes || expires <= this.now()) return;
    this.entries.set(key, { value, bytes, expires });
    this.storedBytes += bytes;
    // Map iteration is insertion order: the first key is the oldest entry.
    for (const oldest of this.entries.keys()) {
      if (this.storedBytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private join<T>(
    key: string,
    load: (signal: AbortSignal) => Promise<Sized<T>>,
    signal?: AbortSignal,
  ): Promise<Sized<T>> {
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
    return new Promise<Sized<T>>((resolve, reject) => {
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
          resolve(value as Sized<T>);
        },
        (error: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }
}
