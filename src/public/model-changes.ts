/**
 * The changes one listed id shows between its last known record and the next snapshot: price,
 * the model's own API surface (context length, modalities), and its announced removal date.
 */

import type { ChangeEvent } from '../api/schemas.js';
import { catalogEvent, describePrice } from './catalog-events.js';
import type { CatalogModel } from './openrouter-catalog.js';

/** Events for `next`, compared with `before` (null for an id listed for the first time). */
export function modelChanges(
  before: CatalogModel | null,
  next: CatalogModel,
  takenAt: number,
): ChangeEvent[] {
  const events: ChangeEvent[] = [];
  const at = { model: next, snapshotAt: takenAt, detectedAt: takenAt };
  const label = next.name ?? next.id;
  if (before !== null && priceDiffers(before, next)) {
    events.push(
      catalogEvent({
        ...at,
        eventType: 'price_change',
        title: `${label} price change: ${describePrice(before)} → ${describePrice(next)}`,
        summary: `${next.id} in the aggregator's catalog.`,
        beforeValue: describePrice(before),
        afterValue: describePrice(next),
      }),
    );
  }
  const apiBefore = before === null ? '' : describeApi(before, next);
  if (before !== null && apiBefore !== '') {
    const apiAfter = describeApi(next, before);
    events.push(
      catalogEvent({
        ...at,
        eventType: 'api_change',
        title: `${label}: ${apiBefore} → ${apiAfter}`,
        summary: `${next.id} in the aggregator's catalog.`,
        beforeValue: apiBefore,
        afterValue: apiAfter,
      }),
    );
  }
  // A new id (a variant of a known model) announcing a date is as much news as a known one.
  const dateBefore = before?.expirationDate ?? null;
  if (dateBefore !== next.expirationDate) {
    events.push(
      catalogEvent({
        ...at,
        eventType: 'deprecation',
        title: expirationTitle(label, dateBefore, next.expirationDate),
        summary: `${next.id}: the aggregator's catalog gives the date after which it may be removed.`,
        beforeValue: dateBefore === null ? null : `expires ${dateBefore}`,
        afterValue: next.expirationDate === null ? 'no expiration date' : `expires ${next.expirationDate}`,
      }),
    );
  }
  return events;
}

function priceDiffers(a: CatalogModel, b: CatalogModel): boolean {
  return a.inputPerMillion !== b.inputPerMillion || a.outputPerMillion !== b.outputPerMillion;
}

/**
 * The parts of `model`'s API surface that differ from `other`, in words; the empty string when
 * none does. Only the changed parts, so an event says what moved.
 */
function describeApi(model: CatalogModel, other: CatalogModel): string {
  const parts: string[] = [];
  if (model.contextLength !== other.contextLength) parts.push(`context ${tokens(model.contextLength)}`);
  const modalities = `${model.inputModalities.join('+')}->${model.outputModalities.join('+')}`;
  const otherModalities = `${other.inputModalities.join('+')}->${other.outputModalities.join('+')}`;
  if (modalities !== otherModalities) parts.push(`modalities ${modalities}`);
  return parts.join('; ');
}

function tokens(count: number | null): string {
  return count === null ? 'unknown' : `${count.toLocaleString('en-US')} tokens`;
}

function expirationTitle(label: string, before: string | null, after: string | null): string {
  if (after === null) return `${label}: expiration date ${before} withdrawn`;
  if (before === null) return `${label} may be removed after ${after}`;
  return `${label}: expiration date moved from ${before} to ${after}`;
}
