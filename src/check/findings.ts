/**
 * What `check` says about each model a codebase references, from the catalog, the feed's
 * deprecation notices and price history. Pure: the service's answers in, findings out.
 *
 * - `deprecated`: a deprecation notice concerns the model, by the feed's one rule
 *   (feed/concerns.ts), so a notice that names its replacement does not make the replacement
 *   deprecated, and one about a variant (`:free`) concerns code that names that variant, not the
 *   model. The newest notice is given.
 * - `price_increase`: the input or output price rose since a date. The price then is the last
 *   history point at or before it (the first point, if the history starts later); now is today's
 *   catalog price.
 * - `cheaper`, for information: the catalog model with at least the same context and the lowest
 *   input price below this one's, leaving out deprecated models.
 * (`not_listed` comes from the matcher's near misses, not from here.)
 */

import type { ChangeEvent, Model, PriceHistory } from '../api/schemas.js';
import { concernedModel, indexModels } from '../feed/concerns.js';

export const FINDING_KINDS = ['deprecated', 'not_listed', 'price_increase', 'cheaper'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Prices {
  input: number | null;
  output: number | null;
}

export type Finding =
  | { kind: 'deprecated'; date: string; title: string; source: string | null; changeId: string }
  | { kind: 'not_listed'; suggestions: string[] }
  | { kind: 'price_increase'; since: string; before: Prices; after: Prices }
  | { kind: 'cheaper'; modelId: string; inputPrice: number; contextLength: number };

export interface FindingsInput {
  catalog: readonly Model[];
  /** The feed's deprecation notices. */
  deprecations: readonly ChangeEvent[];
  /** Price history by catalog id, for the models that were price-checked. */
  histories: ReadonlyMap<string, PriceHistory>;
  /** Unix seconds: price increases are counted from then. */
  since: number;
}

const isoDate = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const noticeTime = (event: ChangeEvent) => Date.parse(event.publishedAt ?? event.detectedAt) || 0;

/** The price in effect at `since`: the last point at or before it, else the first point. */
export function priceAt(history: PriceHistory, since: number): Prices | undefined {
  const points = [...history.points].sort((a, b) => a.observedAt - b.observedAt);
  const point = points.filter((p) => p.observedAt <= since).at(-1) ?? points[0];
  return point ? { input: point.inputPrice ?? null, output: point.outputPrice ?? null } : undefined;
}

const rose = (before: number | null, after: number | null) =>
  before !== null && after !== null && after > before;

/** A model that can be named as cheaper: priced, with a known context, and not deprecated. */
interface Alternative {
  id: string;
  price: number;
  context: number;
}

/** Whether `a` is a better cheaper model than `b`: a lower price, then a larger context. */
const better = (a: Alternative, b: Alternative) =>
  a.price < b.price || (a.price === b.price && a.context > b.context);

/**
 * The best alternative (see `better`; the first in the catalog on a tie) with at least a given
 * context, other than a given model. Sorted by context once, largest first, each prefix keeps its
 * best and its best of another id, so that each question is a binary search, not a pass over the
 * catalog.
 */
function bestAlternatives(alternatives: readonly Alternative[]) {
  // A stable sort: alternatives of the same context stay in catalog order.
  const sorted = [...alternatives].sort((a, b) => b.context - a.context);
  const best: Alternative[] = [];
  const bestOfOtherId: (Alternative | undefined)[] = [];
  let first: Alternative | undefined;
  let second: Alternative | undefined;
  for (const alternative of sorted) {
    if (!first || better(alternative, first)) {
      if (first && first.id !== alternative.id) second = first;
      first = alternative;
    } else if (alternative.id !== first.id && (!second || better(alternative, second))) {
      second = alternative;
    }
    best.push(first);
    bestOfOtherId.push(second);
  }
  return (context: number, except: string): Alternative | undefined => {
    // How many alternatives have at least `context`: they are the prefix that many long.
    let [low, high] = [0, sorted.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle]!.context >= context) low = middle + 1;
      else high = middle;
    }
    if (low === 0) return undefined;
    return best[low - 1]!.id !== except ? best[low - 1] : bestOfOtherId[low - 1];
  };
}

/** Where a model's notices, or one variant's, are kept. */
const noticeKey = (modelId: string, variant: string | null) =>
  variant === null ? modelId : `${modelId}:${variant}`;

/**
 * Works out, once per catalog and notices, the findings of any referenced model, or variant of one
 * (lower-cased, without its colon): a variant has its model's notices and its own.
 */
export function findingsFor(input: FindingsInput): (modelId: string, variant?: string | null) => Finding[] {
  let index: ReturnType<typeof indexModels> | undefined;
  const byId = new Map(input.catalog.map((model) => [model.id, model]));
  const notices = new Map<string, ChangeEvent>();
  for (const event of input.deprecations) {
    if (event.eventType !== 'deprecation') continue;
    // Only a notice needs the index of names, most of this function's cost when nothing is
    // referenced.
    index ??= indexModels(input.catalog);
    const concerned = concernedModel(event, index);
    if (!concerned) continue;
    const key = noticeKey(concerned.modelId, concerned.variant);
    const held = notices.get(key);
    if (!held || noticeTime(event) > noticeTime(held)) notices.set(key, event);
  }
  const alternatives: Alternative[] = [];
  for (const model of input.catalog) {
    const price = model.pricing?.inputPerMillion;
    if (typeof price === 'number' && model.contextLength != null && !notices.has(model.id)) {
      alternatives.push({ id: model.id, price, context: model.contextLength });
    }
  }
  const bestAlternative = bestAlternatives(alternatives);

  // The same model is often referenced many times: its findings are worked out once.
  const known = new Map<string, Finding[]>();
  return (modelId, variant = null) => {
    const key = noticeKey(modelId, variant);
    const held = known.get(key);
    if (held) return held;
    const findings: Finding[] = [];
    known.set(key, findings);
    const own = variant === null ? undefined : notices.get(key);
    const base = notices.get(modelId);
    const notice = own && (!base || noticeTime(own) > noticeTime(base)) ? own : base;
    if (notice) {
      findings.push({
        kind: 'deprecated',
        date: new Date(noticeTime(notice)).toISOString().slice(0, 10),
        title: notice.title,
        source: notice.sourceUrl ?? notice.sourceName ?? null,
        changeId: notice.id,
      });
    }
    const model = byId.get(modelId);
    const history = input.histories.get(modelId);
    const before = history && priceAt(history, input.since);
    if (model && before) {
      const after = {
        input: model.pricing?.inputPerMillion ?? null,
        output: model.pricing?.outputPerMillion ?? null,
      };
      if (rose(before.input, after.input) || rose(before.output, after.output)) {
        findings.push({ kind: 'price_increase', since: isoDate(input.since), before, after });
      }
    }
    const price = model?.pricing?.inputPerMillion;
    const context = model?.contextLength;
    if (typeof price === 'number' && context != null) {
      const best = bestAlternative(context, modelId);
      if (best && best.price < price)
        findings.push({
          kind: 'cheaper',
          modelId: best.id,
          inputPrice: best.price,
          contextLength: best.context,
        });
    }
    return findings;
  };
}
