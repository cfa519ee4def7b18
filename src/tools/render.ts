/**
 * Compact text renderings for clients that show only text: one line per event or model, keeping
 * what a reader acts on (title, type, model, before → after, verification, dates, source) and
 * dropping what the structured result already carries in full (summaries, ids, colours).
 */

import type { ChangeEvent, ChangesPage, Model, PriceHistory } from '../api/schemas.js';

function day(iso: string | null): string | undefined {
  return iso ? iso.slice(0, 10) : undefined;
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

export function changeLine(event: ChangeEvent): string {
  const detected = day(event.detectedAt);
  const published = day(event.publishedAt);
  const dates = published && published !== detected ? `${detected} (published ${published})` : detected;
  const model = event.model.name ? `${event.model.name} (${event.model.slug})` : event.model.slug;
  const parts = [`${dates} ${event.eventType}`, model, event.title];
  if (event.beforeValue && event.afterValue) parts.push(`${event.beforeValue} → ${event.afterValue}`);
  else if (event.afterValue) parts.push(`→ ${event.afterValue}`);
  else if (event.beforeValue) parts.push(`was ${event.beforeValue}`);
  if (event.verificationStatus) parts.push(event.verificationStatus);
  const source = event.sourceUrl ?? event.sourceName;
  if (source) parts.push(source);
  return parts.join(' | ');
}

export interface ChangesArgs {
  since?: number | undefined;
  type?: string | undefined;
  model?: string | undefined;
}

export function renderChanges(page: ChangesPage, args: ChangesArgs): string {
  const filters = [args.type && `type=${args.type}`, args.model && `model=${args.model}`]
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
  const kind = [model.vendor, model.type].filter(Boolean).join(', ');
  if (model.pricing)
    facts.push(
      `in ${usd(model.pricing.inputPerMillion)} / out ${usd(model.pricing.outputPerMillion)} per 1M tokens`,
    );
  if (model.contextLength !== null) facts.push(`context ${thousands(model.contextLength)}`);
  if (model.attention?.rank !== null && model.attention?.rank !== undefined)
    facts.push(`attention #${model.attention.rank}`);
  if (model.huggingfaceId) facts.push(`hf ${model.huggingfaceId}`);
  const name = model.displayName ?? model.name;
  return `${model.id}${name ? ` — ${name}` : ''}${kind ? ` (${kind})` : ''}${facts.length ? `: ${facts.join('; ')}` : ''}`;
}

export interface ModelsArgs {
  vendor?: string | undefined;
  maxInputPrice?: number | undefined;
  minContext?: number | undefined;
}

export function renderModels(items: readonly Model[], total: number, args: ModelsArgs): string {
  const filters = [
    args.vendor && `vendor=${args.vendor}`,
    args.maxInputPrice !== undefined && `input <= ${usd(args.maxInputPrice)}/1M`,
    args.minContext !== undefined && `context >= ${thousands(args.minContext)}`,
  ].filter(Boolean);
  const scope = filters.length ? ` matching ${filters.join(', ')}` : '';
  const lines = [`${items.length} of ${count(total, 'model')}${scope}, by attention:`];
  for (const model of items) lines.push(`- ${modelLine(model)}`);
  if (items.length < total) lines.push(`Raise limit (up to 100) to see more.`);
  return lines.join('\n');
}

export function renderPriceHistory(history: PriceHistory): string {
  if (history.points.length === 0) return 'No price history recorded.';
  const points = history.points.map(
    (p) =>
      `${new Date(p.observedAt * 1000).toISOString().slice(0, 10)} in ${usd(p.inputPrice)} / out ${usd(p.outputPrice)}`,
  );
  const unit = [history.currency, history.unit].filter(Boolean).join(' ');
  return `Price history${unit ? ` (${unit})` : ''}: ${points.join('; ')}`;
}
