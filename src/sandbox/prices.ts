import type { PricePoint } from './types.js';

/** USD per 1M tokens; null where the catalog gives no price. */
export interface Price {
  inputPrice: number | null;
  outputPrice: number | null;
}

const NO_PRICE: Price = { inputPrice: null, outputPrice: null };

/** A dated fact about a model's price: what it was just before `at` (when known) and from `at` on. */
export interface PriceObservation {
  at: number;
  before: Price | null;
  after: Price;
}

const AMOUNT = String.raw`(\d[\d,]*(?:\.\d+)?|\.\d+)`;
const INPUT_AMOUNT = new RegExp(String.raw`\b(?:in|input)\b\s*[:=]?\s*(?:US)?\$?\s*${AMOUNT}`, 'i');
const OUTPUT_AMOUNT = new RegExp(String.raw`\b(?:out|output)\b\s*[:=]?\s*(?:US)?\$?\s*${AMOUNT}`, 'i');
const DOLLAR_AMOUNT = new RegExp(String.raw`\$\s*${AMOUNT}`, 'g');

function toNumber(text: string | undefined): number | null {
  if (text === undefined) return null;
  const value = Number(text.replaceAll(',', ''));
  return Number.isFinite(value) ? value : null;
}

/**
 * Reads a price text of a price_change event, e.g. "in $0.14 / out $0.28 per 1M tokens".
 * Also accepts "input: 0.14, output: 0.28" and, unlabelled, "$0.14 / $0.28" (input first).
 * Returns null when the text does not state both prices.
 */
export function parsePriceText(text: string | null): Price | null {
  if (text === null) return null;
  let input = toNumber(INPUT_AMOUNT.exec(text)?.[1]);
  let output = toNumber(OUTPUT_AMOUNT.exec(text)?.[1]);
  if (input === null && output === null) {
    const amounts = [...text.matchAll(DOLLAR_AMOUNT)].map((match) => toNumber(match[1]));
    if (amounts.length === 2) {
      input = amounts[0] ?? null;
      output = amounts[1] ?? null;
    }
  }
  return input === null || output === null ? null : { inputPrice: input, outputPrice: output };
}

export function samePrice(a: Price, b: Price): boolean {
  return a.inputPrice === b.inputPrice && a.outputPrice === b.outputPrice;
}

/**
 * The price points from `start` on: the first is the price in effect at `start`, each later one a
 * price that differs from the point before it (service.md: "a point exists only when a value changes").
 *
 * The price at `start` is the newest observation at or before it; failing that, the price the first
 * later observation says held before it (its `before`, or its own price when it states none).
 * A `before` that contradicts the running price reveals a change whose time is unknown: no point is
 * invented for it; the next observation's price is recorded at that observation's time.
 */
export function derivePricePoints(start: number, observations: readonly PriceObservation[]): PricePoint[] {
  const sorted = [...observations].sort((a, b) => a.at - b.at);
  const later = sorted.filter((observation) => observation.at > start);
  const newestAtStart = sorted.filter((observation) => observation.at <= start).at(-1);
  const firstLater = later[0];
  const opening = newestAtStart?.after ?? firstLater?.before ?? firstLater?.after ?? NO_PRICE;
  const points: PricePoint[] = [{ ...opening, observedAt: start }];
  for (const observation of later) {
    // Two observations in one second: the later record is the price of that second.
    if (points.length > 1 && points[points.length - 1]?.observedAt === observation.at) points.pop();
    const previous = points[points.length - 1] ?? NO_PRICE;
    if (!samePrice(previous, observation.after))
      points.push({ ...observation.after, observedAt: observation.at });
  }
  return points;
}
