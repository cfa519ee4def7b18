/**
 * The feed of the aggregator's catalog, derived by diffing each snapshot with the one before it.
 * Only consecutive pairs: diffing the ends of a window misses every change that came and went
 * within it (on real 6-hourly snapshots, most price changes of a week).
 *
 * Rules, per snapshot:
 * - `new_model`: a base id never seen before. Variants (`:free`, `:batch`, `:thinking`) and
 *   `~…-latest` aliases are not new models: a new variant of a known model shows no event of its
 *   own when it appears (it is a listing of the same model, found in the catalog under its base);
 *   from then on its own price, API and expiration changes are events under its own id.
 * - `price_change`: the input or output price per 1M tokens differs (after normalising).
 * - `api_change`: the model's own context length or its modalities differ.
 * - `deprecation`: an expiration date set, moved or withdrawn; or a base id missing from two
 *   snapshots in a row (ids flap: one missing snapshot is not a removal). A removed model that is
 *   listed again gets a `deprecation` saying it returned.
 * An alias (`~openai/gpt-latest`) is its own listing with its own price, so its changes are
 * events under its own id while it points at the same model; when it moves to another model, its
 * new values are that model's, not a change, so the move itself gives no event.
 *
 * The very first snapshot is the baseline, except that the models the catalog registered in the
 * 30 days before it are `new_model`, dated from their registration, so a fresh feed is useful.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { catalogEvent, isoSeconds } from './catalog-events.js';
import { modelChanges } from './model-changes.js';
import type { CatalogModel, CatalogSnapshot } from './openrouter-catalog.js';

export const FIRST_LOOK_WINDOW_S = 30 * 24 * 3600;

/** What the diff remembers between snapshots. */
export interface CatalogFeedState {
  /** Unix seconds of the last snapshot diffed. */
  readonly takenAt: number;
  /** The last record of every id ever listed, to compare a return with. */
  readonly models: ReadonlyMap<string, CatalogModel>;
  /** Base ids ever listed: a base in here is never new again. */
  readonly seenBases: ReadonlySet<string>;
  /** Base ids listed before but missing from the last snapshot: when they first went missing. */
  readonly missingSince: ReadonlyMap<string, number>;
  /** Base ids declared removed (missing from two snapshots in a row) and not listed since. */
  readonly removedBases: ReadonlySet<string>;
}

export interface CatalogDiff {
  readonly state: CatalogFeedState;
  /** In a stable order: by date, then listed id, then type. */
  readonly events: readonly ChangeEvent[];
}

/** The events `next` shows after `previous` (null for the first snapshot), and the state after it. */
export function diffCatalog(previous: CatalogFeedState | null, next: CatalogSnapshot): CatalogDiff {
  const listed = [...next.models.values()];
  // An alias's base is whatever it points at today: it says nothing about which models exist.
  const bases = groupByBase(listed.filter((model) => !model.alias));
  if (previous === null) return firstLook(next, listed, bases);

  const events: ChangeEvent[] = [];
  const models = new Map(previous.models);
  const seenBases = new Set(previous.seenBases);
  const missingSince = new Map(previous.missingSince);
  const removedBases = new Set(previous.removedBases);

  for (const [baseId, entries] of bases) {
    const head = baseRecord(baseId, entries);
    if (!seenBases.has(baseId)) events.push(newModel(head, next.takenAt, next.takenAt));
    if (removedBases.has(baseId)) events.push(returned(head, next.takenAt));
    seenBases.add(baseId);
    missingSince.delete(baseId);
    removedBases.delete(baseId);
  }
  for (const baseId of seenBases) {
    if (bases.has(baseId) || removedBases.has(baseId)) continue;
    const since = missingSince.get(baseId);
    if (since === undefined) {
      missingSince.set(baseId, next.takenAt);
      continue;
    }
    const last = models.get(baseId) ?? lastOfBase(models, baseId);
    if (last !== undefined) events.push(removed(last, since, next.takenAt));
    missingSince.delete(baseId);
    removedBases.add(baseId);
  }
  for (const model of listed) {
    const before = models.get(model.id);
    const moved = model.alias && before !== undefined && before.baseId !== model.baseId;
    // A brand-new base's first listing is its new_model event, not a list of changes.
    if (!moved && (before !== undefined || previous.seenBases.has(model.baseId))) {
      events.push(...modelChanges(before ?? null, model, next.takenAt));
    }
    models.set(model.id, model);
  }
  return {
    state: { takenAt: next.takenAt, models, seenBases, missingSince, removedBases },
    events: ordered(events),
  };
}

function firstLook(
  snapshot: CatalogSnapshot,
  listed: CatalogModel[],
  bases: Map<string, CatalogModel[]>,
): CatalogDiff {
  const events: ChangeEvent[] = [];
  for (const [baseId, entries] of bases) {
    const head = baseRecord(baseId, entries);
    const created = head.created;
    if (
      created !== null &&
      created <= snapshot.takenAt &&
      snapshot.takenAt - created <= FIRST_LOOK_WINDOW_S
    ) {
      events.push(newModel(head, snapshot.takenAt, created));
    }
  }
  return {
    state: {
      takenAt: snapshot.takenAt,
      models: new Map(listed.map((model) => [model.id, model])),
      seenBases: new Set(bases.keys()),
      missingSince: new Map(),
      removedBases: new Set(),
    },
    events: ordered(events),
  };
}

function groupByBase(models: CatalogModel[]): Map<string, CatalogModel[]> {
  const bases = new Map<string, CatalogModel[]>();
  for (const model of models) {
    const entries = bases.get(model.baseId);
    if (entries === undefined) bases.set(model.baseId, [model]);
    else entries.push(model);
  }
  return bases;
}

/** The base's own listing when there is one; otherwise its earliest registered variant. */
function baseRecord(baseId: string, entries: CatalogModel[]): CatalogModel {
  const own = entries.find((model) => model.id === baseId);
  if (own !== undefined) return own;
  return entries.reduce((a, b) => ((b.created ?? Infinity) < (a.created ?? Infinity) ? b : a));
}

function lastOfBase(models: ReadonlyMap<string, CatalogModel>, baseId: string): CatalogModel | undefined {
  for (const model of models.values()) if (model.baseId === baseId && !model.alias) return model;
  return undefined;
}

function newModel(model: CatalogModel, snapshotAt: number, detectedAt: number): ChangeEvent {
  return catalogEvent({
    eventType: 'new_model',
    model: { ...model, id: model.baseId },
    snapshotAt,
    detectedAt,
    publishedAt: model.created,
    title: `${model.name ?? model.baseId} added to the aggregator's catalog`,
    summary:
      model.expirationDate === null
        ? `Listed as ${model.baseId}.`
        : `Listed as ${model.baseId}, to be removed after ${model.expirationDate}.`,
    beforeValue: null,
    afterValue: model.baseId,
  });
}

function removed(model: CatalogModel, missingSince: number, snapshotAt: number): ChangeEvent {
  return catalogEvent({
    eventType: 'deprecation',
    model: { ...model, id: model.baseId },
    snapshotAt,
    detectedAt: snapshotAt,
    title: `${model.name ?? model.baseId} removed from the aggregator's catalog`,
    summary: `${model.baseId} is missing from two snapshots in a row, the first taken at ${isoSeconds(missingSince)}.`,
    beforeValue: 'listed',
    afterValue: 'removed',
  });
}

function returned(model: CatalogModel, snapshotAt: number): ChangeEvent {
  return catalogEvent({
    eventType: 'deprecation',
    model: { ...model, id: model.baseId },
    snapshotAt,
    detectedAt: snapshotAt,
    title: `${model.name ?? model.baseId} listed again in the aggregator's catalog`,
    summary: `${model.baseId} returned after it was reported removed.`,
    beforeValue: 'removed',
    afterValue: 'listed',
  });
}

function ordered(events: ChangeEvent[]): ChangeEvent[] {
  const key = (event: ChangeEvent) =>
    `${event.detectedAt}\u0000${String(event.catalogId)}\u0000${event.eventType}`;
  return events.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
