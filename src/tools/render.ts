/**
 * Compact text renderings for clients that show only text: one line per event or model, keeping
 * what a reader acts on (title, type, model, before → after, verification, dates, source) and
 * dropping what the structured result already carries in full (summaries, ids, colours).
 *
 * Every string from the service (or echoed from the caller) goes into a line through `inline`: a
 * value holding a line break, an escape sequence or a bidi override must not forge a line such as
 * a fake polling hint, nor act on the terminal that `call` prints to. Only the text changes; the
 * structured result keeps every value exactly as the service sent it.
 */

import type { ChangesPage, Model, PriceHistory } from '../api/schemas.js';
import { changeLine, inline } from '../text/change-line.js';

/** A Unix time as its UTC day; as the number itself when no Date can hold it. */
function unixDay(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? `at ${seconds} (not a date)` : date.toISOString().slice(0, 10);
}

export function usd(value: number | null | undefined): string {
  return value === null || value === undefined ? '?' : `$${Number(value.toFixed(4))}`;
}

/**
 * 128000 → "128,000". Not toLocaleString: that wakes ICU, whose data pages in megabytes of the
 * node binary for the rest of the session.
 */
export function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export interface ChangesArgs {
  since?: number | undefined;
  type?: string | undefined;
  model?: string | undefined;
}

export function renderChanges(page: ChangesPage, args: ChangesArgs): string {
  const filters = [args.type && `type=${inline(args.type)}`, args.model && `model=${inline(args.model)}`]
    .filter(Boolean)
    .join(', ');
  const scope = filters ? ` (${filters})` : '';
  const lines: string[] = [];
  if (args.since !== undefined) {
    lines.push(`${count(page.items.length, 'change')} after since=${args.since}${scope}, oldest first:`);
  } else {
    lines.push(`${count(page.items.length, 'change')}${scope}, newest first:`);
  }
  for (const event of page.items) lines.push(`- ${changeLine(event)}`);
  if (page.latest !== null) {
    lines.push(`To poll for newer changes, call again with since=${page.latest}.`);
  } else if (args.since !== undefined) {
    lines.push(`Nothing newer yet; poll again later with since=${args.since}.`);
  }
  return lines.join('\n');
}

export function modelLine(model: Model): string {
  const facts: string[] = [];
  const kind = [inline(model.vendor), inline(model.type)].filter(Boolean).join(', ');
  if (model.pricing)
    facts.push(
      `in ${usd(model.pricing.inputPerMillion)} / out ${usd(model.pricing.outputPerMillion)} per 1M tokens`,
    );
  if (model.contextLength !== null) facts.push(`context ${thousands(model.contextLength)}`);
  if (model.attention?.rank !== null && model.attention?.rank !== undefined)
    facts.push(`attention #${model.attention.rank}`);
  const huggingfaceId = inline(model.huggingfaceId);
  if (huggingfaceId) facts.push(`hf ${huggingfaceId}`);
  const name = inline(model.displayName) || inline(model.name);
  return `${inline(model.id)}${name ? ` — ${name}` : ''}${kind ? ` (${kind})` : ''}${facts.length ? `: ${facts.join('; ')}` : ''}`;
}

export interface ModelsArgs {
  vendor?: string | undefined;
  maxInputPrice?: number | undefined;
  minContext?: number | undefined;
}

/** search_models' largest `limit`: once an answer holds this many, raising the limit shows no more. */
const MAX_LIMIT = 100;

/**
 * "3 of 40 models" only when that can be true: the service's total is its own count, and a broken
 * one (smaller than what it sent, negative) is reported beside what was shown, never as "20 of 1".
 */
function modelsHeading(shown: number, total: number, scope: string): string {
  if (Number.isSafeInteger(total) && total >= shown)
    return `${shown} of ${count(total, 'model')}${scope}, by attention:`;
  return `${count(shown, 'model')}${scope}, by attention (the service reported total ${total}):`;
}

export function renderModels(items: readonly Model[], total: number, args: ModelsArgs): string {
  const filters = [
    args.vendor && `vendor=${inline(args.vendor)}`,
    args.maxInputPrice !== undefined && `input <= ${usd(args.maxInputPrice)}/1M`,
    args.minContext !== undefined && `context >= ${thousands(args.minContext)}`,
  ].filter(Boolean);
  const scope = filters.length ? ` matching ${filters.join(', ')}` : '';
  const lines = [modelsHeading(items.length, total, scope)];
  for (const model of items) lines.push(`- ${modelLine(model)}`);
  if (Number.isSafeInteger(total) && items.length < total) {
    lines.push(
      items.length < MAX_LIMIT
        ? `Raise limit (up to ${MAX_LIMIT}) to see more.`
        : 'Narrow the filters (vendor, maxInputPrice, minContext) to see others.',
    );
  }
  return lines.join('\n');
}

/** Price points a rendering lists at most: the latest ones, which are what a reader asks about. */
const MAX_PRICE_POINTS = 50;

export function renderPriceHistory(history: PriceHistory): string {
  if (history.points.length === 0) return 'No price history recorded.';
  const shown = history.points.slice(-MAX_PRICE_POINTS);
  const points = shown.map(
    (p) => `${unixDay(p.observedAt)} in ${usd(p.inputPrice)} / out ${usd(p.outputPrice)}`,
  );
  const unit = [inline(history.currency), inline(history.unit)].filter(Boolean).join(' ');
  const omitted = history.points.length - shown.length;
  const earlier = omitted > 0 ? ` (latest ${shown.length} of ${history.points.length} points)` : '';
  return `Price history${unit ? ` (${unit})` : ''}${earlier}: ${points.join('; ')}`;
}
