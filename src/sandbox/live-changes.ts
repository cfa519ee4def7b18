/**
 * Draws the next live change from the sandbox's current state: a price change of a catalog model, a
 * verification of a pending event, or a new model of a known vendor.
 */

import { uuidV5 } from '../service-rules/content-id.js';
import { type Dataset, historySlug } from './dataset.js';
import type { GenerateOptions, LiveKind, LiveState, Publication } from './live.js';
import { pick, pickWhere, type Random, randomStream } from './live-random.js';
import { bumped, compareVersions, nextModel, replaceInId, type Version, versionOf } from './live-versions.js';
import type { Price } from './prices.js';
import type { ChangeEvent, Model } from './types.js';

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

const OPENROUTER = 'OpenRouter Models API (GET /api/v1/models)';
const MODELS_DEV = 'models.dev automated OpenRouter catalog sync (diff of providers/openrouter/models)';
const MODELS_DEV_URL = 'https://github.com/anomalyco/models.dev';
const SYNTHETIC = "Synthetic: published by the sandbox's live mode, not a real change.";

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

function takenModelIds(state: LiveState): Set<string> {
  const taken = new Set(state.catalog.map((model) => model.id));
  for (const effect of state.deferred.values()) if (effect.type === 'listing') taken.add(effect.model.id);
  // New-model events name their model in afterValue; removed models are remembered only there.
  for (const { event } of state.feed) if (event.afterValue !== null) taken.add(event.afterValue);
  return taken;
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
