/**
 * Live changes: the sandbox's feed grows while it runs, so a newcomer running `watch --sandbox`
 * sees changes arrive. `generateChange` draws the next realistic change from the sandbox's current
 * state: a price change of a catalog model, a verification of a pending event, or a new model of
 * a known vendor. `applyPublication` publishes it: the feed gets it with a fresh change time, and
 * the catalog and price history follow once the change is official. Pure: the seed, a sequence
 * number and the clock decide everything, so a test replays a run exactly.
 */

import { uuidV5 } from '../service-rules/content-id.js';
import { type Dataset, historySlug } from './dataset.js';
import {
  changeVerification,
  createFeed,
  type Feed,
  nextChangeTime,
  publishChange,
  publishChanges,
} from './feed.js';
import type { Price } from './prices.js';
import type { ChangeEvent, Model, PriceHistory, PricePoint } from './types.js';

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

// Fixed namespace of live event ids, apart from the data set's: the two can never collide.
const LIVE_EVENT_ID_NAMESPACE = '5b0e7c3a-91d4-4f6e-8a27-c4d1e9f03b68';

const KIND_WEIGHTS: readonly (readonly [LiveKind, number])[] = [
  ['price_change', 0.5],
  ['verification', 0.3],
  ['new_model', 0.2],
];
const OFFICIAL_PRICE_CHANGE_SHARE = 0.75;
const OFFICIAL_NEW_MODEL_SHARE = 0.6;
const CONFIRMED_SHARE = 0.7;
// A price drawn again and again drifts; past these bounds of its data-set price it turns back.
const PRICE_DRIFT_FLOOR = 0.5;
const PRICE_DRIFT_CEILING = 2;
// Enough to step past every version a run has taken; a family with more gets no new model.
const MAX_VERSION_BUMPS = 100;
// A model listed and reported at the attention reference time: novelty 1 (×50) and one news item
// (×20). Vendor activity is left out: it would need every event's catalog id.
const NEW_LISTING_SCORE = 70;

const OPENROUTER = 'OpenRouter Models API (GET /api/v1/models)';
const MODELS_DEV = 'models.dev automated OpenRouter catalog sync (diff of providers/openrouter/models)';
const MODELS_DEV_URL = 'https://github.com/anomalyco/models.dev';
const SYNTHETIC = "Synthetic: published by the sandbox's live mode, not a real change.";

export function initialLiveState(dataset: Dataset): LiveState {
  return {
    feed: createFeed(dataset.events),
    catalog: dataset.catalog,
    histories: dataset.histories,
    deferred: new Map(),
    recordingSince: dataset.recordingSince,
  };
}

/** What the generator reads from the data set: derived once per data set. */
interface Context {
  /** Vendor slug → the company and colour its events carry. Only these vendors get live changes. */
  vendors: Map<string, { company: string; accentColor: string }>;
  /** The data-set price of each catalog model, around which live prices stay. */
  originalPrices: Map<string, Model['pricing']>;
}

const contexts = new WeakMap<Dataset, Context>();

function contextOf(dataset: Dataset): Context {
  let context = contexts.get(dataset);
  if (context === undefined) {
    const vendors = new Map<string, { company: string; accentColor: string }>();
    for (const { model } of dataset.events) {
      if (!vendors.has(model.slug))
        vendors.set(model.slug, { company: model.company, accentColor: model.accentColor });
    }
    const originalPrices = new Map(dataset.catalog.map((model) => [model.id, model.pricing]));
    context = { vendors, originalPrices };
    contexts.set(dataset, context);
  }
  return context;
}

type Random = () => number;

/** mulberry32, seeded from (seed, sequence): each publication draws from a stream of its own. */
function randomStream(seed: number, sequence: number): Random {
  let state = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(sequence | 0, 0x85ebca77) ^ 0x2545f491) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  next();
  return next;
}

function pick<T>(items: readonly T[], random: Random): T | undefined {
  return items[Math.floor(random() * items.length)];
}

/** `pick` among the items that pass `test`, without building the list: a backlog draws 10,000 times. */
function pickWhere<T>(items: readonly T[], test: (item: T) => boolean, random: Random): T | undefined {
  let count = 0;
  for (const item of items) if (test(item)) count++;
  let wanted = Math.floor(random() * count);
  for (const item of items) {
    if (test(item) && wanted-- === 0) return item;
  }
  return undefined;
}

/** Whole seconds, as the data set writes them: `2026-06-30T21:47:25Z`. */
function isoSeconds(nowMs: number): string {
  return new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function eventId(sequence: number, event: Omit<ChangeEvent, 'id'>): string {
  const { eventType, detectedAt, title, beforeValue, afterValue, sourceUrl } = event;
  const content = ['live', sequence, eventType, detectedAt, title, beforeValue, afterValue, sourceUrl];
  return uuidV5(JSON.stringify(content), LIVE_EVENT_ID_NAMESPACE);
}

function withId(sequence: number, event: Omit<ChangeEvent, 'id'>): ChangeEvent {
  return { id: eventId(sequence, event), ...event };
}

/** The text price events carry, e.g. "in $0.14 / out $0.28 per 1M tokens" (parsePriceText reads it). */
export function priceText(price: Price): string {
  return `in $${price.inputPrice ?? '?'} / out $${price.outputPrice ?? '?'} per 1M tokens`;
}

// Two significant digits, as list prices are quoted ($0.27, $1.1, $15).
function roundPrice(value: number): number {
  return Number(value.toPrecision(2));
}

/** A cut of 10–50% or a rise of 5–20%, rounded; never the same price, never zero. */
function movedPrice(current: number, direction: 1 | -1, random: Random): number {
  const change = direction < 0 ? 0.1 + 0.4 * random() : 0.05 + 0.15 * random();
  const moved = roundPrice(current * (1 + direction * change));
  if (moved !== current && moved > 0) return moved;
  // Rounding undid the move: step one unit of the second significant digit instead.
  return roundPrice(current + direction * 10 ** (Math.floor(Math.log10(current)) - 1));
}

function percent(before: number, after: number): string {
  return `${after < before ? 'down' : 'up'} ${Math.round((Math.abs(after - before) / before) * 100)}%`;
}

function vendorModel(model: Model, vendor: { company: string; accentColor: string }): ChangeEvent['model'] {
  return { slug: model.vendor, name: model.name, company: vendor.company, accentColor: vendor.accentColor };
}

function hasPriceToMove(context: Context, model: Model): boolean {
  const { inputPerMillion: input, outputPerMillion: output } = model.pricing;
  return context.vendors.has(model.vendor) && input !== null && output !== null && (input > 0 || output > 0);
}

/** The price live changes stay around: the data set's, or a live-listed model's price at listing. */
function referencePrice(
  context: Context,
  state: LiveState,
  model: Model,
): readonly [number | null, number | null] {
  const original = context.originalPrices.get(model.id);
  if (original !== undefined) return [original.inputPerMillion, original.outputPerMillion];
  const first = state.histories.get(historySlug(model.id))?.points[0];
  if (first !== undefined) return [first.inputPrice, first.outputPrice];
  return [model.pricing.inputPerMillion, model.pricing.outputPerMillion];
}

/** Which prices move, and which way: a cut (60%) or a rise, of one price or both; drifted prices turn back. */
function priceMove(
  current: readonly [number, number],
  reference: readonly [number | null, number | null],
  random: Random,
): { direction: 1 | -1; moving: number[] } {
  const ratios = current.map((value, index) => {
    const base = reference[index];
    return base != null && base > 0 ? value / base : 1;
  });
  // A price of 0 stays 0: nothing to scale.
  const movable = [0, 1].filter((index) => (current[index] ?? 0) > 0);
  const ratio = (index: number) => ratios[index] ?? 1;
  // At a bound counts as past it: a price there may only turn back, so some price can always move.
  const low = movable.some((index) => ratio(index) <= PRICE_DRIFT_FLOOR);
  const high = movable.some((index) => ratio(index) >= PRICE_DRIFT_CEILING);
  const direction: 1 | -1 = low && !high ? 1 : high && !low ? -1 : random() < 0.6 ? -1 : 1;
  const eligible = movable.filter((index) =>
    direction > 0 ? ratio(index) < PRICE_DRIFT_CEILING : ratio(index) > PRICE_DRIFT_FLOOR,
  );
  if (eligible.length < 2) return { direction, moving: eligible };
  // Input alone, output alone, or both, as the data set's price changes go.
  const which = random();
  return { direction, moving: which < 1 / 3 ? [0] : which < 2 / 3 ? [1] : [0, 1] };
}

function generatePriceChange(
  context: Context,
  state: LiveState,
  random: Random,
  options: GenerateOptions,
): Publication | undefined {
  const model = pickWhere(state.catalog, (candidate) => hasPriceToMove(context, candidate), random);
  const vendor = model && context.vendors.get(model.vendor);
  const input = model?.pricing.inputPerMillion;
  const output = model?.pricing.outputPerMillion;
  if (model === undefined || vendor === undefined || input == null || output == null) return undefined;

  const { direction, moving } = priceMove([input, output], referencePrice(context, state, model), random);
  if (moving.length === 0) return undefined;
  const before: Price = { inputPrice: input, outputPrice: output };
  const after: Price = {
    inputPrice: moving.includes(0) ? movedPrice(input, direction, random) : input,
    outputPrice: moving.includes(1) ? movedPrice(output, direction, random) : output,
  };
  const official = random() < OFFICIAL_PRICE_CHANGE_SHARE;
  const beforeValue = priceText(before);
  const afterValue = priceText(after);
  const moves = [
    moving.includes(0) ? `Input price ${percent(input, after.inputPrice ?? input)}` : undefined,
    moving.includes(1)
      ? `${moving.includes(0) ? 'output' : 'Output'} price ${percent(output, after.outputPrice ?? output)}`
      : undefined,
  ].filter((text) => text !== undefined);
  const event = withId(options.sequence, {
    eventType: 'price_change',
    title: `${model.name} price ${direction < 0 ? 'cut' : 'increase'}: ${beforeValue} → ${afterValue}`,
    summary: `${moves.join(', ')} (lowest provider price on OpenRouter). ${SYNTHETIC}`,
    beforeValue,
    afterValue,
    sourceUrl: official ? model.url : MODELS_DEV_URL,
    sourceName: official ? OPENROUTER : MODELS_DEV,
    verificationStatus: official ? 'official' : 'pending',
    official,
    detectedAt: isoSeconds(options.nowMs),
    publishedAt: null,
    model: vendorModel(model, vendor),
  });
  return { kind: 'price_change', event, effect: { type: 'price', modelId: model.id, price: after } };
}

function generateVerification(state: LiveState, random: Random): Publication | undefined {
  const pending = state.feed.filter((entry) => entry.event.verificationStatus === 'pending');
  const target = pick(pending, random);
  if (target === undefined) return undefined;
  const status = random() < CONFIRMED_SHARE ? 'official' : 'rejected';
  return { kind: 'verification', eventId: target.event.id, status };
}

/** A version in a model name: "4.5" in "Claude Sonnet 4.5", "V3.2" in "DeepSeek V3.2", "Qwen3" in "Qwen3 Max". */
interface Version {
  /** The token as written, e.g. "V3.2". */
  text: string;
  /** Letters before the number, e.g. "V". */
  prefix: string;
  major: number;
  minor: number | null;
  /** The name with the token replaced by a placeholder: models of one family share it. */
  family: string;
  index: number;
}

const VERSION_TOKEN = /(?<=^|[\s-])([A-Za-z]*)(\d+)(?:\.(\d+))?(?=$|[\s-])/;

function versionOf(name: string): Version | undefined {
  const match = VERSION_TOKEN.exec(name);
  if (match === null) return undefined;
  const [text, prefix = '', major = '', minor] = match;
  const family = `${name.slice(0, match.index)}${prefix}#${name.slice(match.index + text.length)}`;
  return {
    text,
    prefix,
    major: Number(major),
    minor: minor === undefined ? null : Number(minor),
    family,
    index: match.index,
  };
}

function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || (a.minor ?? -1) - (b.minor ?? -1);
}

/** The next version: a minor step ("4.5" → "4.6", "5" → "5.1"). */
function bumped(version: Version): Version {
  const minor = (version.minor ?? 0) + 1;
  return { ...version, minor, text: `${version.prefix}${version.major}.${minor}` };
}

/**
 * `text` with its first `-` or `/` separated part that spells `from` (ignoring case) rewritten to
 * `to`, keeping that part's own spelling of the prefix letters; undefined when no part does.
 */
function replacePart(text: string, from: Version, to: Version): string | undefined {
  const parts = text.split(/([-/])/);
  const at = parts.findIndex((part) => part.toLowerCase() === from.text.toLowerCase());
  const part = parts[at];
  if (part === undefined) return undefined;
  parts[at] = `${part.slice(0, from.prefix.length)}${to.text.slice(to.prefix.length)}`;
  return parts.join('');
}

/** The catalog id with the version rewritten in its model part, e.g. openai/gpt-5.5 → openai/gpt-5.6. */
function replaceInId(id: string, from: Version, to: Version): string | undefined {
  const slash = id.indexOf('/');
  const rewritten = replacePart(id.slice(slash + 1), from, to);
  return rewritten === undefined ? undefined : `${id.slice(0, slash + 1)}${rewritten.toLowerCase()}`;
}

function renamed(name: string, from: Version, to: Version): string {
  return `${name.slice(0, from.index)}${to.text}${name.slice(from.index + from.text.length)}`;
}

function takenModelIds(state: LiveState): Set<string> {
  const taken = new Set(state.catalog.map((model) => model.id));
  for (const effect of state.deferred.values()) if (effect.type === 'listing') taken.add(effect.model.id);
  // New-model events name their model in afterValue; removed models are remembered only there.
  for (const { event } of state.feed) if (event.afterValue !== null) taken.add(event.afterValue);
  return taken;
}

/** The next version of a family's newest model, as a new model that nobody has taken. */
function nextModel(newest: Model, taken: ReadonlySet<string>): { model: Model; base: Model } | undefined {
  const from = versionOf(newest.name);
  if (from === undefined) return undefined;
  let to = bumped(from);
  for (let step = 0; step < MAX_VERSION_BUMPS; step++, to = bumped(to)) {
    const id = replaceInId(newest.id, from, to);
    if (id === undefined) return undefined;
    if (taken.has(id)) continue;
    const name = renamed(newest.name, from, to);
    const displayName = newest.displayName.endsWith(newest.name)
      ? `${newest.displayName.slice(0, newest.displayName.length - newest.name.length)}${name}`
      : name;
    const model: Model = {
      ...newest,
      id,
      name,
      displayName,
      pricing: { ...newest.pricing },
      listedAt: null,
      huggingfaceId:
        newest.huggingfaceId === null ? null : (replacePart(newest.huggingfaceId, from, to) ?? null),
      attention: { rank: 0, score: NEW_LISTING_SCORE, newsCount: 1, opinions: 0 },
      url: `https://openrouter.ai/${id}`,
    };
    return { model, base: newest };
  }
  return undefined;
}

function contextText(tokens: number | null): string {
  return tokens === null ? 'context not listed' : `context ${tokens.toLocaleString('en-US')} tokens`;
}

function generateNewModel(
  context: Context,
  state: LiveState,
  random: Random,
  options: GenerateOptions,
): Publication | undefined {
  // The newest model of each family whose version also appears in its catalog id.
  const newestOfFamily = new Map<string, { model: Model; version: Version }>();
  for (const model of state.catalog) {
    const version = versionOf(model.name);
    if (!context.vendors.has(model.vendor) || version === undefined) continue;
    if (replaceInId(model.id, version, bumped(version)) === undefined) continue;
    const key = `${model.vendor}/${version.family}`;
    const known = newestOfFamily.get(key);
    if (known === undefined || compareVersions(version, known.version) > 0)
      newestOfFamily.set(key, { model, version });
  }
  const families = [...newestOfFamily.values()];
  const taken = takenModelIds(state);
  // Start at a random family; a family whose next versions are all taken gives way to the next one.
  const start = Math.floor(random() * families.length);
  for (let offset = 0; offset < families.length; offset++) {
    const family = families[(start + offset) % families.length];
    const next = family && nextModel(family.model, taken);
    const vendor = next && context.vendors.get(next.model.vendor);
    if (next === undefined || vendor === undefined) continue;
    const { model, base } = next;
    const official = random() < OFFICIAL_NEW_MODEL_SHARE;
    const price =
      model.pricing.inputPerMillion === null || model.pricing.outputPerMillion === null
        ? 'price not listed'
        : priceText({
            inputPrice: model.pricing.inputPerMillion,
            outputPrice: model.pricing.outputPerMillion,
          });
    const summary = official
      ? `Listed next to ${base.name}, at its price: ${price}; ${contextText(model.contextLength)}. ${SYNTHETIC}`
      : `Seen in the models.dev sync of the OpenRouter catalog, not yet in ${vendor.company}'s own channels; ` +
        `it joins the catalog once confirmed. ${SYNTHETIC}`;
    const detectedAt = isoSeconds(options.nowMs);
    const event = withId(options.sequence, {
      eventType: 'new_model',
      title: `${model.name} added to the OpenRouter catalog`,
      summary,
      beforeValue: null,
      afterValue: model.id,
      sourceUrl: official ? model.url : MODELS_DEV_URL,
      sourceName: official ? OPENROUTER : MODELS_DEV,
      verificationStatus: official ? 'official' : 'pending',
      official,
      detectedAt,
      publishedAt: official ? detectedAt : null,
      model: vendorModel(model, vendor),
    });
    return { kind: 'new_model', event, effect: { type: 'listing', model } };
  }
  return undefined;
}

function drawKind(random: Random): LiveKind {
  let draw = random();
  for (const [kind, weight] of KIND_WEIGHTS) {
    if (draw < weight) return kind;
    draw -= weight;
  }
  return 'price_change';
}

/**
 * The next change to publish, drawn from the current state. Deterministic: the same data set,
 * state and options give the same publication. Throws only when the catalog offers nothing to
 * change at all.
 */
export function generateChange(dataset: Dataset, state: LiveState, options: GenerateOptions): Publication {
  const context = contextOf(dataset);
  const random = randomStream(options.seed, options.sequence);
  const kind = options.kind ?? drawKind(random);
  const generators = {
    price_change: () => generatePriceChange(context, state, random, options),
    verification: () => generateVerification(state, random),
    new_model: () => generateNewModel(context, state, random, options),
  };
  const publication =
    generators[kind]() ?? generators.price_change() ?? generators.new_model() ?? generators.verification();
  if (publication === undefined) throw new Error('sandbox live mode: the catalog offers nothing to change');
  return publication;
}

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
