/**
 * Publishes live changes: the feed gets each with a fresh change time, and the catalog and price
 * history follow once the change is official.
 */

import { type Dataset, historySlug } from './dataset.js';
import { changeVerification, nextChangeTime, publishChange, publishChanges } from './feed.js';
import type { CatalogEffect, LiveState, Publication } from './live.js';
import { generateChange } from './live-changes.js';
import type { Price } from './prices.js';
import type { ChangeEvent, Model, PricePoint } from './types.js';

/** The history point for a price from `at` on; none when it is the price already (service.md: a point only where a value changes). */
function nextPricePoint(last: PricePoint | undefined, price: Price, at: number): PricePoint | undefined {
  if (last !== undefined && last.inputPrice === price.inputPrice && last.outputPrice === price.outputPrice)
    return undefined;
  // Points ascend even when the clock is behind the data set's newest snapshot.
  return { ...price, observedAt: last === undefined ? at : Math.max(at, last.observedAt + 1) };
}

function withPricePoint(points: readonly PricePoint[], price: Price, at: number): PricePoint[] {
  const point = nextPricePoint(points.at(-1), price, at);
  return point === undefined ? [...points] : [...points, point];
}

function pricing(price: Price): Model['pricing'] {
  return { inputPerMillion: price.inputPrice, outputPerMillion: price.outputPrice };
}

/** The catalog by attention, ranks renumbered 1..n (equal scores by id, as attention.ts ranks). */
function ranked(catalog: readonly Model[]): Model[] {
  return [...catalog]
    .sort((a, b) => b.attention.score - a.attention.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((model, index) =>
      model.attention.rank === index + 1
        ? model
        : { ...model, attention: { ...model.attention, rank: index + 1 } },
    );
}

/** The state once `effect` holds, from change time `at` on. */
function withEffect(state: LiveState, effect: CatalogEffect, at: number): LiveState {
  if (effect.type === 'price') {
    const slug = historySlug(effect.modelId);
    const history = state.histories.get(slug);
    if (history === undefined || !state.catalog.some((model) => model.id === effect.modelId)) return state;
    const price = pricing(effect.price);
    return {
      ...state,
      catalog: state.catalog.map((model) =>
        model.id === effect.modelId ? { ...model, pricing: price } : model,
      ),
      histories: new Map(state.histories).set(slug, {
        ...history,
        points: withPricePoint(history.points, effect.price, at),
      }),
    };
  }
  const slug = historySlug(effect.model.id);
  if (state.histories.has(slug)) return state;
  const model: Model = { ...effect.model, listedAt: at };
  const price = { inputPrice: model.pricing.inputPerMillion, outputPrice: model.pricing.outputPerMillion };
  return {
    ...state,
    catalog: ranked([...state.catalog, model]),
    histories: new Map(state.histories).set(slug, {
      id: model.id,
      currency: 'USD',
      unit: 'per 1M tokens',
      since: state.recordingSince,
      points: withPricePoint([], price, at),
    }),
  };
}

/** An official change takes effect at once; a pending one waits for its verification. */
function settle(
  state: LiveState,
  publication: { event: ChangeEvent; effect: CatalogEffect },
  changeTime: number,
): LiveState {
  if (publication.event.official) return withEffect(state, publication.effect, changeTime);
  return { ...state, deferred: new Map(state.deferred).set(publication.event.id, publication.effect) };
}

/**
 * Publishes one change: a new event joins the feed with a fresh change time; a verification moves
 * a pending event (`changeVerification`). The catalog and price history follow when the change is
 * official: a price change sets the model's price and adds a history point at its change time; a
 * new model joins the catalog with a first history point. A confirmed live change takes the effect
 * it deferred; a rejected one drops it. Returns the event as the feed now holds it.
 */
export function applyPublication(
  state: LiveState,
  publication: Publication,
  nowSec: number,
): { state: LiveState; event: ChangeEvent } {
  if (publication.kind === 'verification') {
    const feed = changeVerification(state.feed, publication.eventId, publication.status, nowSec);
    const entry = feed.at(-1);
    if (entry === undefined) throw new Error('sandbox live mode: the feed is empty after a verification');
    const effect = state.deferred.get(publication.eventId);
    if (effect === undefined) return { state: { ...state, feed }, event: entry.event };
    const deferred = new Map(state.deferred);
    deferred.delete(publication.eventId);
    const next: LiveState = { ...state, feed, deferred };
    return {
      state: publication.status === 'official' ? withEffect(next, effect, entry.changeTime) : next,
      event: entry.event,
    };
  }
  const feed = publishChange(state.feed, publication.event, nowSec);
  const changeTime = feed.at(-1)?.changeTime ?? Math.floor(nowSec);
  return { state: settle({ ...state, feed }, publication, changeTime), event: publication.event };
}

export interface BacklogOptions {
  seed: number;
  /** Sequence number of the first change; the others follow. */
  firstSequence: number;
  count: number;
  nowMs: number;
}

/**
 * `count` price changes at once, as `applyPublication` would publish them one by one, but with
 * the feed extended once and the catalog and histories changed in place on copies made once: a
 * backlog of 10,000 takes milliseconds. Only price changes: they read the catalog, not the feed,
 * so the feed can wait to the end.
 */
export function publishBacklog(
  dataset: Dataset,
  state: LiveState,
  options: BacklogOptions,
): { state: LiveState; events: ChangeEvent[] } {
  const nowSec = Math.floor(options.nowMs / 1000);
  const catalog = [...state.catalog];
  const positions = new Map(catalog.map((model, index) => [model.id, index]));
  // Points of the histories changed so far, by slug: each copied once, then appended to.
  const points = new Map<string, PricePoint[]>();
  const deferred = new Map(state.deferred);
  const working: LiveState = { ...state, catalog };
  const events: ChangeEvent[] = [];
  let newest = state.feed.at(-1)?.changeTime ?? Number.NEGATIVE_INFINITY;
  for (let offset = 0; offset < options.count; offset++) {
    const publication = generateChange(dataset, working, {
      seed: options.seed,
      sequence: options.firstSequence + offset,
      nowMs: options.nowMs,
      kind: 'price_change',
    });
    // Any other kind would read the feed, which is only extended at the end.
    if (publication.kind !== 'price_change' || publication.effect.type !== 'price') {
      throw new Error('sandbox live mode: no price to change');
    }
    events.push(publication.event);
    // The change time publishChanges gives this event below.
    newest = nextChangeTime(newest, publication.event, nowSec);
    if (!publication.event.official) {
      deferred.set(publication.event.id, publication.effect);
      continue;
    }
    const { modelId, price } = publication.effect;
    const slug = historySlug(modelId);
    const position = positions.get(modelId);
    const model = position === undefined ? undefined : catalog[position];
    const history = state.histories.get(slug);
    if (position === undefined || model === undefined || history === undefined) continue;
    catalog[position] = { ...model, pricing: pricing(price) };
    let modelPoints = points.get(slug);
    if (modelPoints === undefined) {
      modelPoints = [...history.points];
      points.set(slug, modelPoints);
    }
    const point = nextPricePoint(modelPoints.at(-1), price, newest);
    if (point !== undefined) modelPoints.push(point);
  }
  const histories = new Map(state.histories);
  for (const [slug, modelPoints] of points) {
    const history = state.histories.get(slug);
    if (history !== undefined) histories.set(slug, { ...history, points: modelPoints });
  }
  const feed = publishChanges(state.feed, events, nowSec);
  return { state: { ...state, feed, catalog, histories, deferred }, events };
}
