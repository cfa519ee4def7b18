/**
 * What one fetch of the public origins adds to the record: the events the catalog's diff finds,
 * merged with the other origins' (one event for a change two origins see), a price point for each
 * listed id whose price moved (or was never recorded), the facts the other origins give of each
 * id, and the state the next fetch is diffed with. Pure: the recorder fetches and writes.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { isoSeconds } from './catalog-events.js';
import { diffCatalog } from './diff.js';
import { catalogFacts, type OriginFacts } from './enrich.js';
import type { HuggingFaceListings } from './huggingface.js';
import type { ModelsDevIndex } from './models-dev.js';
import type { CatalogSnapshot } from './openrouter-catalog.js';
import { deriveOriginEvents, mergeRunEvents } from './origins-feed.js';
import type { RecordedState, RecordedStateJson } from './recorded-state.js';
import { toJson } from './recorded-state.js';
import type { PollRecord, SnapshotCommit, StoredPricePoint } from './store/store.js';
import type { DeprecationList } from './vendor-deprecations.js';

/** One fetch: the catalog, and each other origin that answered (absent: off or failed). */
export interface FetchedOrigins {
  readonly catalog: CatalogSnapshot;
  readonly modelsDev?: ModelsDevIndex | undefined;
  readonly huggingFace?: HuggingFaceListings | undefined;
  readonly deprecations?: DeprecationList | undefined;
}

/**
 * `previous` is the state the store holds, or null on the first snapshot; `firstLook` false keeps a
 * restart after an unreadable record from announcing the recent models a second time.
 */
export function snapshotCommit(
  previous: RecordedState | null,
  fetched: FetchedOrigins,
  poll: PollRecord,
  firstLook = previous === null,
): { commit: SnapshotCommit<RecordedStateJson>; state: RecordedState } {
  const snapshot = fetched.catalog;
  const diff = diffCatalog(previous?.feed ?? null, snapshot);
  const derived = previous === null && !firstLook ? [] : diff.events;
  const catalogEvents =
    previous === null ? derived : withUnwatchedTime(derived, previous.feed.takenAt, snapshot.takenAt);
  const origins = deriveOriginEvents(previous?.origins ?? null, fetched, catalogEvents, snapshot.takenAt);
  const events = mergeRunEvents(catalogEvents, origins.events, origins.absorbed);
  const state: RecordedState = {
    feed: diff.state,
    listed: [...snapshot.models.keys()],
    origins: origins.state,
    facts: mergedFacts(previous?.facts, catalogFacts(snapshot, fetched)),
  };
  return {
    commit: {
      takenAt: snapshot.takenAt,
      state: toJson(state),
      events,
      prices: movedPrices(previous, snapshot),
      poll,
    },
    state,
  };
}

/** Past this, the time between two snapshots is said in the events the later one shows. */
export const UNWATCHED_AFTER_S = 24 * 3600;

/**
 * A change found after a time nothing was watched (the machine was off, the origin down) happened
 * somewhere in that time, not when it was found: its summary says so, with the window.
 */
function withUnwatchedTime(events: readonly ChangeEvent[], before: number, after: number): ChangeEvent[] {
  if (after - before <= UNWATCHED_AFTER_S) return [...events];
  const hours = Math.round((after - before) / 3600);
  const window = hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
  const note = `Found by the first snapshot after ${window} unwatched: it happened between ${isoSeconds(before)} and ${isoSeconds(after)}.`;
  return events.map((event) => ({ ...event, summary: event.summary ? `${event.summary} ${note}` : note }));
}

function movedPrices(previous: RecordedState | null, snapshot: CatalogSnapshot): StoredPricePoint[] {
  const prices: StoredPricePoint[] = [];
  for (const model of snapshot.models.values()) {
    if (model.alias) continue;
    const before = previous?.feed.models.get(model.id);
    if (
      before === undefined ||
      before.inputPerMillion !== model.inputPerMillion ||
      before.outputPerMillion !== model.outputPerMillion
    ) {
      prices.push({
        id: model.id,
        inputPrice: model.inputPerMillion,
        outputPrice: model.outputPerMillion,
        observedAt: snapshot.takenAt,
      });
    }
  }
  return prices;
}

/** Today's facts of each listed id; where an origin gave none today (off, failed), the last known. */
function mergedFacts(
  before: ReadonlyMap<string, OriginFacts> | undefined,
  now: ReadonlyMap<string, OriginFacts>,
): Map<string, OriginFacts> {
  const merged = new Map<string, OriginFacts>();
  for (const [id, fact] of now) {
    const old = before?.get(id);
    merged.set(id, {
      type: fact.type ?? old?.type ?? null,
      releaseDate: fact.releaseDate ?? old?.releaseDate ?? null,
      popularity: fact.popularity ?? old?.popularity ?? null,
    });
  }
  return merged;
}
