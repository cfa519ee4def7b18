/**
 * Keeps the record of the public origins fresh enough for a read: the newest snapshot is used while
 * it is younger than the refresh age; past it, one process fetches (others wait for it through the
 * store's fetch lock, then use what it recorded), and a fetch that fails leaves the record as it was,
 * answered from and marked stale. Every fetch is a snapshot, even when nothing changed.
 */

import { AbortedError, FileSystemError, OriginUnavailableError } from '../errors.js';
import type { Logger } from '../log.js';
import type { OriginsFetch } from './fetch-origins.js';
import { fromJson, type RecordedState, type RecordedStateJson } from './recorded-state.js';
import { snapshotCommit } from './snapshot-commit.js';
import type { PublicStore, StoreHead } from './store/store.js';

/** How this process fetches the origins for a snapshot; absent when the catalog, the spine, is off. */
export type OriginsFetcher = (takenAt: number, signal?: AbortSignal) => Promise<OriginsFetch>;

/** After a failed fetch, reads answer from the record for this long before the next try. */
const RETRY_AFTER_FAILURE_MS = 60_000;

export interface RecorderOptions {
  store: PublicStore<RecordedStateJson>;
  fetchOrigins: OriginsFetcher | undefined;
  /** Seconds a snapshot stays fresh; 0 fetches on every read. */
  refreshS: number;
  log: Logger;
  /** The catalog for people, and the setting of its address, for the error when nothing is recorded. */
  origin: { label: string; setting: string };
  /** Why a fetch failed, in a few words ("openrouter.ai is unreachable (ECONNREFUSED)"). */
  describeFailure: (error: unknown) => string;
  /**
   * The oldest record answered with while the catalog cannot be read (`MODEL_FEED_STALE_MAX_AGE_S`,
   * as for the service's cached answers); 0: none. Not applied when the catalog is turned off: then
   * the record is all there is, by choice.
   */
  staleMaxAgeS: number;
  /** The setting of that bound, for the message past it. */
  staleMaxAgeSetting: string;
  now?: () => number;
}

export interface Recorded {
  readonly head: StoreHead<RecordedStateJson>;
  readonly state: RecordedState;
  /** Set when the newest snapshot is older than the refresh age and a fetch could not renew it. */
  readonly stale?: { readonly ageSeconds: number; readonly reason: string };
}

export class Recorder {
  private readonly now: () => number;
  private inFlight: Promise<Recorded> | undefined;
  private failure: { at: number; reason: string } | undefined;
  /** Each head's state, parsed once: a head is replaced, never changed. */
  private readonly states = new WeakMap<object, RecordedState | null>();
  /** The newest answer given, for what a result says about where it came from. */
  latest: Recorded | undefined;

  constructor(private readonly options: RecorderOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The record, refreshed first when it is older than the refresh age. */
  async current(signal?: AbortSignal): Promise<Recorded> {
    const head = await this.options.store.readHead(signal);
    const state = head === null ? null : this.stateOf(head);
    if (head !== null && state !== null && this.isFresh(head)) return this.remember({ head, state });
    const failure = this.failure;
    if (
      head !== null &&
      state !== null &&
      failure !== undefined &&
      this.now() - failure.at < this.retryAfterMs()
    ) {
      return this.remember(this.staleAnswer(head, state, failure.reason, true));
    }
    // The refresh is everyone's: no caller's cancel stops it (its own deadline bounds it), and
    // each caller stops waiting on its own cancel.
    this.inFlight ??= this.refresh().finally(() => {
      this.inFlight = undefined;
    });
    try {
      return this.remember(await untilAborted(this.inFlight, signal));
    } catch (error) {
      if (signal?.aborted || head === null || state === null || !(error instanceof FileSystemError)) {
        throw error;
      }
      // The store would not let this process refresh now (another holds the fetch lock past the
      // wait, a disk fault): the record it has still answers, marked stale.
      const reason = `the record could not be renewed: ${error.message}`;
      this.failure = { at: this.now(), reason };
      return this.remember(this.staleAnswer(head, state, reason, true));
    }
  }

  private retryAfterMs(): number {
    return Math.min(RETRY_AFTER_FAILURE_MS, this.options.refreshS * 1000);
  }

  private isFresh(head: StoreHead<RecordedStateJson>): boolean {
    return this.now() - head.takenAt * 1000 < this.options.refreshS * 1000;
  }

  private async refresh(): Promise<Recorded> {
    const { store, fetchOrigins } = this.options;
    return store.withFetchLock(async () => {
      // Another process may have fetched while this one waited for the lock.
      const head = await store.readHead();
      const recorded = head === null ? null : this.stateOf(head);
      if (head !== null && recorded !== null && this.isFresh(head)) return { head, state: recorded };
      if (fetchOrigins === undefined) {
        if (head === null || recorded === null) {
          const { label, setting } = this.options.origin;
          throw new OriginUnavailableError(label, setting, 'it is turned off', true);
        }
        return this.staleAnswer(
          head,
          recorded,
          `it is turned off (${this.options.origin.setting}=off)`,
          false,
        );
      }
      const takenAt = Math.floor(this.now() / 1000);
      let fetched: OriginsFetch;
      try {
        fetched = await fetchOrigins(takenAt);
      } catch (error) {
        return this.failed(head, recorded, this.options.describeFailure(error));
      }
      const { catalog } = fetched;
      if (!catalog.ok) return this.failed(head, recorded, catalog.reason);
      this.failure = undefined;
      const poll = { takenAt, origins: fetched.statuses };
      const { commit, state } = snapshotCommit(
        recorded,
        { ...fetched, catalog: catalog.snapshot },
        poll,
        // A head that cannot be read is not a first look: its recent models were announced then.
        head === null && !(await store.hasRecord()),
      );
      const written = await store.append(commit);
      this.options.log.debug('public origins recorded', {
        origins: fetched.statuses,
        models: catalog.snapshot.models.size,
        events: commit.events.length,
        prices: commit.prices.length,
      });
      return { head: written, state };
    });
  }

  private failed(
    head: StoreHead<RecordedStateJson> | null,
    state: RecordedState | null,
    reason: string,
  ): Recorded {
    this.failure = { at: this.now(), reason };
    this.options.log.warn(`${this.options.origin.label} could not be read: ${reason}`);
    return this.withoutFetch(head, state, reason, true);
  }

  private withoutFetch(
    head: StoreHead<RecordedStateJson> | null,
    state: RecordedState | null,
    reason: string,
    failed: boolean,
  ): Recorded {
    if (head === null || state === null) {
      throw new OriginUnavailableError(this.options.origin.label, this.options.origin.setting, reason);
    }
    return this.staleAnswer(head, state, reason, failed);
  }

  private staleAnswer(
    head: StoreHead<RecordedStateJson>,
    state: RecordedState,
    reason: string,
    failed: boolean,
  ): Recorded {
    const ageSeconds = Math.max(0, Math.floor(this.now() / 1000) - head.takenAt);
    const { staleMaxAgeS, staleMaxAgeSetting } = this.options;
    if (failed && ageSeconds > staleMaxAgeS) {
      throw new OriginUnavailableError(
        this.options.origin.label,
        this.options.origin.setting,
        `${reason}; the newest snapshot is ${ageSeconds} s old, older than ${staleMaxAgeSetting} (${staleMaxAgeS} s) allows`,
      );
    }
    return { head, state, stale: { ageSeconds, reason } };
  }

  /** The head's state, or null when the record does not fit (the next snapshot starts anew). */
  private stateOf(head: StoreHead<RecordedStateJson>): RecordedState | null {
    let state = this.states.get(head);
    if (state === undefined) {
      state = fromJson(head.state);
      this.states.set(head, state);
    }
    return state;
  }

  private remember(recorded: Recorded): Recorded {
    this.latest = recorded;
    return recorded;
  }
}

/** `work`'s outcome, unless `signal` aborts first: then AbortedError, and `work` goes on for others. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(new AbortedError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new AbortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
