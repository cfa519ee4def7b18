/**
 * Live changes: the sandbox's feed grows while it runs, so a newcomer running `watch --sandbox`
 * sees changes arrive. `generateChange` draws the next realistic change from the sandbox's current
 * state: a price change of a catalog model, a verification of a pending event, or a new model of
 * a known vendor. `applyPublication` publishes it: the feed gets it with a fresh change time, and
 * the catalog and price history follow once the change is official. Pure: the seed, a sequence
 * number and the clock decide everything, so a test replays a run exactly.
 *
 * This file holds the state and the shapes; live-changes.ts draws changes, live-publish.ts
 * publishes them.
 */

import type { Dataset } from './dataset.js';
import { createFeed, type Feed } from './feed.js';
import type { Price } from './prices.js';
import type { ChangeEvent, Model, PriceHistory } from './types.js';

export const LIVE_KINDS = ['price_change', 'verification', 'new_model'] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];

/** What a change does to the catalog once it is official. */
export type CatalogEffect =
  | { type: 'price'; modelId: string; price: Price }
  /** `listedAt` is set to the change time when the model is listed. */
  | { type: 'listing'; model: Model };

/** What the sandbox serves, as live changes leave it. */
export interface LiveState {
  readonly feed: Feed;
  /** Catalog models, ordered by attention rank. */
  readonly catalog: readonly Model[];
  /** Keyed by history slug. */
  readonly histories: ReadonlyMap<string, PriceHistory>;
  /** What a pending live change does to the catalog if it is confirmed, by event id. */
  readonly deferred: ReadonlyMap<string, CatalogEffect>;
  /** When price recording began (Unix s): the `since` of a new model's history. */
  readonly recordingSince: number;
}

export type Publication =
  | { kind: 'price_change' | 'new_model'; event: ChangeEvent; effect: CatalogEffect }
  | { kind: 'verification'; eventId: string; status: 'official' | 'rejected' };

export interface GenerateOptions {
  seed: number;
  /** Number of this publication within the run, from 1. Part of the event id: ids never repeat. */
  sequence: number;
  /** The clock (ms since the epoch): the event's detectedAt. */
  nowMs: number;
  /**
   * What to publish. A verification with no pending event left, or a new model with no version to
   * bump, falls back to a price change. @default drawn: price_change 50%, verification 30%, new_model 20%
   */
  kind?: LiveKind | undefined;
}

export function initialLiveState(dataset: Dataset): LiveState {
  return {
    feed: createFeed(dataset.events),
    catalog: dataset.catalog,
    histories: dataset.histories,
    deferred: new Map(),
    recordingSince: dataset.recordingSince,
  };
}
