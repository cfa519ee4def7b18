/**
 * What one snapshot of the aggregator's catalog adds to the record: the events the diff finds, a
 * price point for each listed id whose price moved (or was never recorded), and the state the next
 * snapshot is diffed with. Pure: the recorder does the fetching and the writing.
 */

import { diffCatalog } from './diff.js';
import type { CatalogSnapshot } from './openrouter-catalog.js';
import type { RecordedState, RecordedStateJson } from './recorded-state.js';
import { toJson } from './recorded-state.js';
import type { PollRecord, SnapshotCommit, StoredPricePoint } from './store/store.js';

/**
 * `previous` is the state the store holds, or null on the first snapshot; `firstLook` false keeps a
 * restart after an unreadable record from announcing the recent models a second time.
 */
export function snapshotCommit(
  previous: RecordedState | null,
  snapshot: CatalogSnapshot,
  poll: PollRecord,
  firstLook = previous === null,
): { commit: SnapshotCommit<RecordedStateJson>; state: RecordedState } {
  const diff = diffCatalog(previous?.feed ?? null, snapshot);
  const events = previous === null && !firstLook ? [] : diff.events;
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
  const state: RecordedState = { feed: diff.state, listed: [...snapshot.models.keys()] };
  return {
    commit: { takenAt: snapshot.takenAt, state: toJson(state), events, prices, poll },
    state,
  };
}
